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
from pipeline.report.summary import mean_ci, rate_of

REPORTS = (
    "tarot_overview",
    "tarot_by_contract",
    "tarot_by_bouts",
    "tarot_by_taker_position",
    "tarot_margin",
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
    Section("tarot_players", "French Tarot: per player", tables=[("tarot_per_player", "Per player")]),
)


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
    }


def findings(t: dict[str, Any]) -> dict[str, list[str]]:
    """Section key -> sentences, from the ``tarot`` object of ``summary.json``."""
    if not t["hands"]:
        return {"tarot": ["No Tarot hand was counted."]}
    taken = {c: v for c, v in t["contracts"].items() if v["n"]}
    contracts = "; ".join(f"{c.replace('_', ' ')} {pct(v['success'])}" for c, v in taken.items())
    pab = t["petit_au_bout"]
    return {
        "tarot": [
            f"The taker made the contract in {pct(t['made'])} counted hands "
            f"({t['thrown_in']:,} valid hands were thrown in).",
            f"Made, by contract: {contracts}.",
            f"The Petit went to the last trick in {pab['hands']:,} hands: won by the taker in "
            f"{pab['taker']:,}, by the defence in {pab['defence']:,}.",
        ],
        "tarot_players": [
            "Each player's row counts the hands that name sat in; 'score' is the player's own score "
            "for the hand (3X as taker, -X in defence)."
        ],
    }


def headline(t: dict[str, Any]) -> str:
    made = t["made"]
    counted = f"{t['hands']:,} hands of {t['games']:,} Tarot games counted"
    return f"{counted}: contracts made in {made['rate']:.1%}" if made["n"] else counted


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
    macro_files=("tarot_scoped_games", "tarot_counted_hands"),
    sections=SECTIONS,
    summary=summary,
    charts=draw_all,
    findings=findings,
    headline=headline,
    examples=EXAMPLES,
)
