"""French Tarot's part of ``tricklog report``: its SQL files (``reports/``
beside this file), the page's section, its charts, the ``tarot`` object of
``summary.json`` (the contract of docs/reports.md) and the sentences that open
the section.
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.charts import draw_all
from pipeline.report.findings import pct
from pipeline.report.game import GameReport, Section, Tables
from pipeline.report.inference import small
from pipeline.report.summary import mean_ci, rate_of
from pipeline.report.viewer import viewer_link

REPORTS = (
    "tarot_overview",
    "tarot_by_contract",
    "tarot_by_bouts",
    "tarot_by_taker_position",
    "tarot_margin",
    "tarot_contract_by_strength",
    "tarot_strength_surprises",
    "tarot_per_player",
)

SECTIONS = (
    Section(
        "tarot",
        "French Tarot: which contracts are made, and by how much?",
        charts=[
            ("tarot_success", "Contracts made by contract, by bouts and by the taker's position."),
            ("tarot_margin", "The taker's card points minus the target, hands made and down."),
        ],
        tables=[
            ("tarot_overview", "All counted hands: petit au bout, poignées, chelems"),
            ("tarot_by_contract", "By contract"),
            ("tarot_by_bouts", "By the bouts the taker ended with"),
            ("tarot_by_taker_position", "By the taker's position from the dealer"),
            ("tarot_margin", "Distribution of the taker's margin"),
        ],
    ),
    Section(
        "tarot_strength",
        "French Tarot: do takers bid what their hand is worth?",
        tables=[
            ("tarot_contract_by_strength", "Each contract by the taker's hand as dealt"),
            ("tarot_strength_surprises", "Hands that defied their strength (open one in the viewer)"),
        ],
    ),
    Section(
        "tarot_players",
        "French Tarot: per player",
        tables=[("tarot_per_player", "Per player: as taker, in defence, over all hands")],
    ),
)

#: The study's measures of strength: the table's ``measure`` -> the summary's key.
MEASURES = {"bouts held": "bouts_held", "trumps held": "trumps_held", "points de main": "points_de_main"}


def summary(tables: Tables) -> dict[str, Any]:
    """The ``tarot`` object of ``summary.json``."""
    o = tables["tarot_overview"].one()
    hands = o["hands"]
    return {
        "games": o["games"],
        "hands": hands,
        "thrown_in": o["thrown_in"],
        "made": rate_of(o, "made"),
        "contracts": {
            r["contract"]: {
                "n": r["hands"],
                "share": r["share"] if hands else None,
                "success": rate_of(r, "made"),
                "mean_taker_score": r["taker_score_mean"],
                "mean_taker_score_ci95": mean_ci(r, "taker_score"),
            }
            for r in tables["tarot_by_contract"].rows()
        },
        "success_by_bouts": {str(r["bouts"]): rate_of(r, "made") for r in tables["tarot_by_bouts"].rows()},
        "success_by_taker_position": {
            r["taker_position"]: rate_of(r, "made") for r in tables["tarot_by_taker_position"].rows()
        },
        "petit_au_bout": {
            "hands": o["petit_au_bout_hands"],
            "taker": o["petit_au_bout_taker"],
            "defence": o["petit_au_bout_defence"],
        },
        "poignee": {
            "simple": o["poignee_simple"],
            "double": o["poignee_double"],
            "triple": o["poignee_triple"],
        },
        "chelem": {
            "announced": o["chelem_announced"],
            "made": o["chelem_made"],
            "defence": o["defence_chelem"],
        },
        "margin": [
            {"from": r["margin_from"], "to": r["margin_to"], "made": r["made"], "down": r["down"]}
            for r in tables["tarot_margin"].rows()
        ],
        "by_strength": by_strength(tables),
        "strength_surprises": [
            {
                "kind": r["kind"],
                "game_id": r["game_id"],
                "hand": r["hand_no"],
                "hand_points": r["hand_points"],
                "viewer": viewer_link(r["game_id"], r["hand_no"]),
            }
            for r in tables["tarot_strength_surprises"].rows()
        ],
        "per_player": {r["player"]: player(r) for r in tables["tarot_per_player"].rows()},
    }


def taken(row: dict[str, Any]) -> dict[str, Any]:
    """A group of contracts taken: how many, how often made, the taker's mean score."""
    return {
        "n": row["made_n"],
        "success": rate_of(row, "made"),
        "mean_taker_score": row["taker_score_mean"],
        "mean_taker_score_ci95": mean_ci(row, "taker_score"),
        "small": small(row["made_n"]),
    }


def by_strength(tables: Tables) -> dict[str, dict[str, dict[str, Any]]]:
    """measure -> band -> contract -> :func:`taken` (the bands with a hand only)."""
    out: dict[str, dict[str, dict[str, Any]]] = {key: {} for key in MEASURES.values()}
    for r in tables["tarot_contract_by_strength"].rows():
        out[MEASURES[r["measure"]]].setdefault(r["band"], {})[r["contract"]] = taken(r)
    return out


def player(row: dict[str, Any]) -> dict[str, Any]:
    """A player's record: as taker (by contract), in defence, and over every hand."""
    return {
        "hands": row["hands"],
        "small": small(row["hands"]),
        "taker": {
            **taken(row),
            "contracts": {c: row[c] for c in ("prise", "garde", "garde_sans", "garde_contre")},
        },
        "defence": {
            "n": row["defended"],
            "won": rate_of(row, "defence_won"),
            "mean_score": row["defence_score_mean"],
            "mean_score_ci95": mean_ci(row, "defence_score"),
        },
        "mean_score": row["score_mean"],
        "mean_score_ci95": mean_ci(row, "score"),
    }


def findings(t: dict[str, Any]) -> dict[str, list[str]]:
    """Section key -> sentences, from the ``tarot`` object of ``summary.json``."""
    if not t["hands"]:
        return {"tarot": ["No Tarot hand was counted."]}
    called = {c: v for c, v in t["contracts"].items() if v["n"]}
    contracts = "; ".join(f"{c.replace('_', ' ')} {pct(v['success'])}" for c, v in called.items())
    pab = t["petit_au_bout"]
    return {
        "tarot": [
            f"The taker made the contract in {pct(t['made'])} counted hands "
            f"({t['thrown_in']:,} valid hands were thrown in).",
            f"Made, by contract: {contracts}.",
            f"The Petit went to the last trick in {pab['hands']:,} hands: won by the taker in "
            f"{pab['taker']:,}, by the defence in {pab['defence']:,}.",
        ],
        "tarot_strength": strength_findings(t["by_strength"]["points_de_main"]),
        "tarot_players": [
            "Each player's row counts the hands that name sat in; 'score' is the player's own score "
            "for the hand (3X as taker, -X in defence); 'defence won' counts the contracts the "
            "player's defence beat."
        ],
    }


def strength_findings(bands: dict[str, dict[str, Any]]) -> list[str]:
    """Each contract's success by points de main, the groups of at least 30 hands only."""
    lines = [
        f"{contract.replace('_', ' ').capitalize()}, by points de main: "
        + "; ".join(f"{band} made in {pct(g['success'])}" for band, g in groups)
        + "."
        for contract in ("prise", "garde", "garde_sans", "garde_contre")
        if (
            groups := [
                (b, c[contract]) for b, c in bands.items() if contract in c and not c[contract]["small"]
            ]
        )
    ]
    return [
        "The taker's hand as dealt is weighed by Noël Chavey's points de main (Le jeu de tarot, 1986): "
        "under 40 pass, 40-55 prise, 56-70 garde, 71-80 garde sans, 81 and up garde contre.",
        *(lines or ["Every group of a contract and a band has fewer than 30 hands: too small to read."]),
    ]


def headline(t: dict[str, Any]) -> str:
    made = t["made"]
    counted = f"{t['hands']:,} hands of {t['games']:,} Tarot games counted"
    return f"{counted}: contracts made in {made['rate']:.1%}" if made["n"] else counted


GLOSSARY = (
    (
        "hand as dealt",
        "the taker's 18 cards before the chien: those it played, plus its écart, less the chien it took up",
    ),
    ("bouts held", "of the Petit, the 21 and the Excuse, those in the taker's hand as dealt"),
    ("trumps held", "trumps 1 to 21 in the taker's hand as dealt (the Excuse is no trump)"),
    (
        "points de main",
        "Noël Chavey's count of a hand (Le jeu de tarot, Hatier 1986): 21 10, Excuse 8, Petit 0-9 by "
        "the trumps held, 2 a trump from the fifth, 2 more a trump from 16 up and 1 more in a run, "
        "King and Queen 10, King 6, Queen 3, Cavalier 2, Jack 1, long suits 5-9 "
        "(pipeline/games/tarot/reports/tarot_taker_hands.sql)",
    ),
)

EXAMPLES = (
    (
        "tarot: contracts made by contract",
        "select contract, count(*) as hands, round(avg(made::int), 3) as made_rate "
        "from tarot.hands where valid and complete and thrown_in is null and taker is not null "
        "group by contract order by hands desc",
    ),
)

REPORT = GameReport(
    key="tarot",
    title="French Tarot",
    package="pipeline.games.tarot.reports",
    reports=REPORTS,
    macro_files=("tarot_scoped_games", "tarot_counted_hands", "tarot_taker_hands"),
    frozen=("tarot_taker_hands",),
    sections=SECTIONS,
    summary=summary,
    charts=draw_all,
    findings=findings,
    headline=headline,
    examples=EXAMPLES,
    glossary=GLOSSARY,
)
