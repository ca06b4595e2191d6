"""The sentences that open Euchre's sections of the report."""

from __future__ import annotations

from typing import Any

from pipeline.report.findings import ci, overlap, pct


def findings(e: dict[str, Any]) -> dict[str, list[str]]:
    """Section key -> sentences, from the ``euchre`` object of ``summary.json``."""
    return {
        "euchre": _euchre(e),
        "alone": _alone(e["alone"]),
        "dealer": _dealer(e["dealer_advantage"]),
        "players": [
            "Each player's row counts the hands that name sat in; 'calls' are the hands that "
            "player made trump, 'net points' are their team's points minus the opponents' per hand."
        ],
    }


def _euchre(e: dict[str, Any]) -> list[str]:
    positions = e["euchre_rate_by_maker_position"]
    ranked = sorted((p for p in positions if positions[p]["n"]), key=lambda p: positions[p]["rate"])
    out = [f"The makers were euchred in {pct(e['euchre_rate'])} counted hands."]
    if len(ranked) >= 2:
        low, high = ranked[0], ranked[-1]
        verdict = (
            "their intervals overlap, so the difference may be chance"
            if overlap(positions[low], positions[high])
            else "their intervals do not overlap"
        )
        out.append(
            f"By position, makers in the {low} seat were euchred least ({pct(positions[low])}) and in "
            f"the {high} seat most ({pct(positions[high])}); {verdict}."
        )
    r1, r2 = e["euchre_rate_by_round"]["1"], e["euchre_rate_by_round"]["2"]
    out.append(f"Ordering the upcard up (round 1): {pct(r1)}; naming trump in round 2: {pct(r2)}.")
    return out


def _alone(a: dict[str, Any]) -> list[str]:
    if not a["attempts"]:
        return ["No lone hand was played."]
    net = a["net_points_per_attempt"]
    return [
        f"{a['attempts']:,} lone attempts: the lone maker took three tricks or more in "
        f"{pct(a['success'])} and marched in {pct(a['march'])}.",
        f"On average a lone attempt earned its team {net:+.3f} points net of the defenders'"
        f"{ci(a.get('net_points_ci95', [None, None]))}.",
    ]


def _dealer(d: dict[str, Any]) -> list[str]:
    if d["edge"] is None:
        return ["No hand was counted."]
    lo, hi = d["edge_ci95"]
    verdict = ""
    if lo is not None and hi is not None:
        verdict = (
            " The interval excludes zero: the deal is worth something."
            if lo > 0 or hi < 0
            else " The interval includes zero: no clear edge."
        )
    first = d["first_dealer_game_win"]
    return [
        f"Per counted hand the dealer's team scored {d['dealer_team_points_per_hand']:.3f} points and the "
        f"other team {d['other_team_points_per_hand']:.3f}: a dealer's edge of {d['edge']:+.3f} points per "
        f"hand{ci(d['edge_ci95'])}.{verdict}",
        f"The first dealer's team won {pct(first)} complete games.",
    ]
