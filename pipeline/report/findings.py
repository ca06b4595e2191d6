"""The sentences at the top of each section: what the figures say, with their
intervals (the core's sections here; each game writes its own with these helpers).

>>> pct({"k": 1, "n": 4, "rate": 0.25, "ci95": [0.0456, 0.6994]})
'25.0% of 4 (95% CI 4.6-69.9%)'
>>> pct({"k": 0, "n": 0, "rate": None, "ci95": [None, None]})
'no hands'
"""

from __future__ import annotations

from typing import Any


def pct(r: dict[str, Any]) -> str:
    if not r["n"]:
        return "no hands"
    lo, hi = r["ci95"]
    return f"{r['rate']:.1%} of {r['n']:,} (95% CI {lo * 100:.1f}-{hi * 100:.1f}%)"


def ci(ci: list[float | None]) -> str:
    lo, hi = ci
    return "" if lo is None or hi is None else f" (95% CI {lo:+.3f} to {hi:+.3f})"


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if not a["n"] or not b["n"]:
        return True
    return bool(a["ci95"][0] <= b["ci95"][1] and b["ci95"][0] <= a["ci95"][1])


def findings(summary: dict[str, Any]) -> dict[str, list[str]]:
    """The core's section key -> sentences (each game adds its own)."""
    return {"dataset": _dataset(summary["dataset"]), "audit": _audit(summary["audit"])}


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
