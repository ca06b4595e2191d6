"""The sentences at the top of each section: what the figures say, with their intervals.

>>> _pct({"k": 1, "n": 4, "rate": 0.25, "ci95": [0.0456, 0.6994]})
'25.0% of 4 (95% CI 4.6-69.9%)'
>>> _pct({"k": 0, "n": 0, "rate": None, "ci95": [None, None]})
'no hands'
"""

from __future__ import annotations

from typing import Any


def _pct(r: dict[str, Any]) -> str:
    if not r["n"]:
        return "no hands"
    lo, hi = r["ci95"]
    return f"{r['rate']:.1%} of {r['n']:,} (95% CI {lo * 100:.1f}-{hi * 100:.1f}%)"


def _ci(ci: list[float | None]) -> str:
    lo, hi = ci
    return "" if lo is None or hi is None else f" (95% CI {lo:+.3f} to {hi:+.3f})"


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if not a["n"] or not b["n"]:
        return True
    return bool(a["ci95"][0] <= b["ci95"][1] and b["ci95"][0] <= a["ci95"][1])


def findings(summary: dict[str, Any]) -> dict[str, list[str]]:
    """Section key -> sentences."""
    e = summary["euchre"]
    return {
        "dataset": _dataset(summary["dataset"]),
        "audit": _audit(summary["audit"]),
        "euchre": _euchre(e),
        "alone": _alone(e["alone"]),
        "dealer": _dealer(e["dealer_advantage"]),
        "players": [
            "Each player's row counts the hands that name sat in; 'calls' are the hands that "
            "player made trump, 'net points' are their team's points minus the opponents' per hand."
        ],
    }


def _dataset(d: dict[str, Any]) -> list[str]:
    dates = f", played {d['first_game']} to {d['last_game']}" if d["first_game"] else ""
    return [
        f"{d['games_loaded']:,} games from {d['files']:,} file(s){dates}: {d['hands_loaded']:,} hands recorded, "
        f"{d['hands_counted']:,} counted. Left out: {d['hands_thrown_in']:,} thrown in, "
        f"{d['hands_abandoned']:,} abandoned (fewer than five tricks), "
        f"{d['hands_with_violations']:,} with a violation."
    ]


def _audit(a: dict[str, Any]) -> list[str]:
    codes = a["violations_by_code"]
    total = sum(codes.values())
    if not total:
        text = "No violation was found in the games in scope."
    else:
        top = ", ".join(f"{c} ({n:,})" for c, n in sorted(codes.items(), key=lambda kv: -kv[1])[:3])
        text = f"{total:,} violations were found; the most common: {top}."
    return [f"{text} {a['quarantined_lines']:,} input line(s) were quarantined (not loaded)."]


def _euchre(e: dict[str, Any]) -> list[str]:
    positions = e["euchre_rate_by_maker_position"]
    ranked = sorted((p for p in positions if positions[p]["n"]), key=lambda p: positions[p]["rate"])
    out = [f"The makers were euchred in {_pct(e['euchre_rate'])} counted hands."]
    if len(ranked) >= 2:
        low, high = ranked[0], ranked[-1]
        verdict = (
            "their intervals overlap, so the difference may be chance"
            if _overlap(positions[low], positions[high])
            else "their intervals do not overlap"
        )
        out.append(
            f"By position, makers in the {low} seat were euchred least ({_pct(positions[low])}) and in "
            f"the {high} seat most ({_pct(positions[high])}); {verdict}."
        )
    r1, r2 = e["euchre_rate_by_round"]["1"], e["euchre_rate_by_round"]["2"]
    out.append(f"Ordering the upcard up (round 1): {_pct(r1)}; naming trump in round 2: {_pct(r2)}.")
    return out


def _alone(a: dict[str, Any]) -> list[str]:
    if not a["attempts"]:
        return ["No lone hand was played."]
    net = a["net_points_per_attempt"]
    return [
        f"{a['attempts']:,} lone attempts: the lone maker took three tricks or more in "
        f"{_pct(a['success'])} and marched in {_pct(a['march'])}.",
        f"On average a lone attempt earned its team {net:+.3f} points net of the defenders'"
        f"{_ci(a.get('net_points_ci95', [None, None]))}.",
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
        f"hand{_ci(d['edge_ci95'])}.{verdict}",
        f"The first dealer's team won {_pct(first)} complete games.",
    ]
