"""The sentences that open Euchre's sections of the report, the key findings at the
top of the page, and the comparisons they rest on.

A difference the page calls real comes from a test (``comparisons``: the core
adjusts them all together with Holm's correction and hands them back in the
summary's ``tests``), never from whether intervals overlap; a group under the
minimum sample is said to be too small to read and left out of the findings.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from pipeline.report.findings import ci, pct
from pipeline.report.inference import (
    Comparison,
    badge,
    compare_rates,
    mean_against,
    rate_against,
    sentence,
    small,
)

POSITIONS = ("dealer", "left", "partner", "right")
#: Real differences shown in the key findings (the largest first); the rest are in their sections.
KEY_TESTS = 4

#: Terms of Euchre's pages, for the page's glossary.
GLOSSARY = (
    ("maker", "the player who named or ordered up trump; the maker's team must take 3 of the 5 tricks"),
    ("euchre(d)", "the makers took fewer than 3 tricks: the defenders score 2 points"),
    ("march", "one side took all 5 tricks (2 points, 4 for a lone maker under most rules)"),
    ("lone hand", "the maker played without a partner; it scores more when it takes all 5 tricks"),
    (
        "maker position",
        "the maker's seat relative to the dealer: left (first to speak), partner, right, or the dealer",
    ),
    ("round 1 / round 2", "trump made by ordering up the upcard (1), or named after it was turned down (2)"),
    (
        "dealer's edge",
        "per counted hand, the points of the dealer's team minus the other team's; "
        "its mean is what the deal is worth",
    ),
    (
        "first dealer's games",
        "complete games recorded from 0-0 whose first hand was replayed, won by the team that dealt first",
    ),
    ("stuck dealer", "under stick-the-dealer, the dealer forced to name trump after seven passes"),
    (
        "rating (mu, sigma, ordinal)",
        "a Bayesian skill estimate (openskill, over complete games in date order): mu the estimate, sigma "
        "its uncertainty, ordinal mu - 3 sigma the conservative rating",
    ),
    ("next", "in round 2, naming the other suit of the turned-down upcard's colour"),
    ("defence euchres", "hands where the player's team defended and the makers were euchred"),
)


def comparisons(e: dict[str, Any]) -> list[Comparison]:
    """The differences Euchre's findings may claim, each with its test."""
    positions = e["euchre_rate_by_maker_position"]
    out = [
        compare_rates(
            a,
            positions[a]["k"],
            positions[a]["n"],
            b,
            positions[b]["k"],
            positions[b]["n"],
            what=f"Euchre rate, maker in the {a} seat minus the {b} seat",
        )
        for a, b in combinations(POSITIONS, 2)
    ]
    r1, r2 = e["euchre_rate_by_round"]["1"], e["euchre_rate_by_round"]["2"]
    out.append(
        compare_rates(
            "round 1",
            r1["k"],
            r1["n"],
            "round 2",
            r2["k"],
            r2["n"],
            what="Euchre rate, ordered up (round 1) minus named (round 2)",
        )
    )
    d = e["dealer_advantage"]
    out.append(
        mean_against(
            "dealer's edge",
            (int(d.get("hands") or 0), d["edge"], d.get("edge_sd")),
            0.0,
            what="Dealer's edge, points per hand against none",
        )
    )
    first = d["first_dealer_game_win"]
    out.append(
        rate_against(
            "first dealer",
            first["k"],
            first["n"],
            0.5,
            what="Complete games won by the first dealer's team, against 50%",
        )
    )
    return out


def _tests(e: dict[str, Any]) -> list[Comparison]:
    return [Comparison.from_json(t) for t in e.get("tests", [])]


def findings(e: dict[str, Any]) -> dict[str, list[str]]:
    """Section key -> sentences, from the ``euchre`` object of ``summary.json``."""
    tests = _tests(e)
    return {
        "key": _key(e, tests),
        "notes": _notes(e),
        "euchre": _euchre(e, tests),
        "alone": _alone(e["alone"]),
        "dealer": _dealer(e["dealer_advantage"], tests),
        "players": [
            "Each player's row counts the hands that person sat in, under their canonical name "
            "(placeholders such as North or p0 are no one); 'calls' are the hands they made trump, "
            "'net points' their team's points minus the opponents' per hand. The shrunk rates pull "
            "each player toward everyone's: read them, not the raw rate, to rank players. "
            f"Players with fewer than 30 hands are listed apart ({_small_players(e)})."
        ],
        "people": _people(e),
        "situations": _situations(e),
    }


def _people(e: dict[str, Any]) -> list[str]:
    players = e.get("ratings", {}).get("players", {})
    readable = {name: r for name, r in players.items() if not r["small"]}
    out = [
        "Ratings are openskill's Bayesian estimates over complete games in date order; rank by the "
        "ordinal (mu - 3 sigma), which a few lucky games cannot lift. Partnerships are rated as one "
        "entity, and their records count the hands and games they played together."
    ]
    if readable:
        name, best = max(readable.items(), key=lambda item: item[1]["ordinal"])
        out.append(
            f"Highest conservative rating: {name}, mu {best['mu']:.1f} "
            f"(95% interval {best['ci95'][0]:.1f} to {best['ci95'][1]:.1f}) [{badge(best['games'])}]."
        )
    return out


def _situations(e: dict[str, Any]) -> list[str]:
    at_nine = e.get("by_score_situation", {}).get("makers at 9 (one point from the target)")
    if not at_nine or not at_nine["hands"]:
        return []
    return [
        f"With the makers one point from the target they were euchred in {pct(at_nine['euchre_rate'])} "
        f"[{badge(at_nine['hands'])}], against {pct(e['euchre_rate'])} overall."
    ]


def _small_players(e: dict[str, Any]) -> str:
    n = sum(1 for p in e.get("per_player", {}).values() if p.get("small"))
    return f"{n:,} player{'s' if n != 1 else ''}"


def _key(e: dict[str, Any], tests: list[Comparison]) -> list[str]:
    """The few sentences at the top of the page, each with its sample size."""
    rate = e["euchre_rate"]
    if not rate["n"]:
        return ["Euchre: no hand was counted."]
    out = [f"Euchre: makers were euchred in {pct(rate)} [{badge(rate['n'])}]."]
    real = sorted((t for t in tests if t.significant), key=lambda t: -abs(t.diff or 0.0))
    out += [sentence(t) for t in real[:KEY_TESTS]]
    if len(real) > KEY_TESTS:
        out.append(f"Euchre: {len(real) - KEY_TESTS} more real difference(s) in the sections below.")
    if not real:
        readable = sum(t.readable for t in tests)
        out.append(
            f"Euchre: none of the {readable} differences tested (seats, rounds, the deal, the first dealer) "
            "is real at the 5% level after Holm's correction."
        )
    alone = e["alone"]
    if alone["attempts"] and not small(alone["attempts"]):
        out.append(
            f"Going alone: the lone maker took 3 tricks or more in {pct(alone['success'])} "
            f"[{badge(alone['attempts'])}]."
        )
    return out


def _notes(e: dict[str, Any]) -> list[str]:
    sample = e.get("sample") or {}
    out = []
    if sample.get("games_part_way"):
        out.append(
            f"{sample['games_part_way']:,} Euchre game(s) were joined part way (recorded from a score other "
            "than 0-0, or cut after an unchecked deal): their first dealer is not the game's."
        )
    if sample.get("games_unfinished"):
        out.append(
            f"{sample['games_unfinished']:,} Euchre game(s) are unfinished (no team reached the target): "
            "fragments, or abandoned; their hands count, their outcome does not."
        )
    return out


def _verdict(tests: list[Comparison], names: set[str]) -> list[Comparison]:
    return [t for t in tests if t.a in names and t.b in names]


def _euchre(e: dict[str, Any], tests: list[Comparison]) -> list[str]:
    positions = e["euchre_rate_by_maker_position"]
    out = [f"The makers were euchred in {pct(e['euchre_rate'])} counted hands."]
    readable = [p for p in POSITIONS if not small(positions[p]["n"])]
    too_small = [p for p in POSITIONS if small(positions[p]["n"])]
    if too_small:
        out.append(f"Too few hands to read for the {', '.join(too_small)} seat(s) (fewer than 30 each).")
    pairs = _verdict(tests, set(POSITIONS))
    real = [t for t in pairs if t.significant]
    if real:
        out += [sentence(t) for t in real]
    elif len(readable) >= 2:
        out.append(
            f"By the maker's position no seat's euchre rate differs from another's at the 5% level "
            f"({sum(t.readable for t in pairs)} pairs tested, Holm-adjusted)."
        )
    rounds = _verdict(tests, {"round 1", "round 2"})
    r1, r2 = e["euchre_rate_by_round"]["1"], e["euchre_rate_by_round"]["2"]
    out.append(f"Ordering the upcard up (round 1): {pct(r1)}; naming trump in round 2: {pct(r2)}.")
    out += [sentence(t) for t in rounds if t.readable]
    return out


def _alone(a: dict[str, Any]) -> list[str]:
    if not a["attempts"]:
        return ["No lone hand was played."]
    net = a["net_points_per_attempt"]
    warn = " Too few to read." if small(a["attempts"]) else ""
    return [
        f"{a['attempts']:,} lone attempts [{badge(a['attempts'])}]: the lone maker took three tricks or more in "
        f"{pct(a['success'])} and marched in {pct(a['march'])}.{warn}",
        f"On average a lone attempt earned its team {net:+.3f} points net of the defenders'"
        f"{ci(a.get('net_points_ci95', [None, None]))}.",
    ]


def _dealer(d: dict[str, Any], tests: list[Comparison]) -> list[str]:
    if d["edge"] is None:
        return ["No hand was counted."]
    out = [
        f"Per counted hand the dealer's team scored {d['dealer_team_points_per_hand']:.3f} points and the "
        f"other team {d['other_team_points_per_hand']:.3f}: a dealer's edge of {d['edge']:+.3f} points per "
        f"hand{ci(d['edge_ci95'])} [{badge(d.get('hands'))}]."
    ]
    out += [sentence(t) for t in tests if t.a == "dealer's edge"]
    first = d["first_dealer_game_win"]
    out.append(f"The first dealer's team won {pct(first)} complete games recorded from 0-0.")
    out += [sentence(t) for t in tests if t.a == "first dealer" and t.p is not None]
    return out
