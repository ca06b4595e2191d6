"""The sentences at the top of each section: what the figures say, with their
intervals (the core's sections here; each game writes its own with these helpers).

>>> pct({"k": 1, "n": 4, "rate": 0.25, "ci95": [0.0456, 0.6994]})
'25.0% of 4 (95% CI 4.6-69.9%)'
>>> pct({"k": 0, "n": 0, "rate": None, "ci95": [None, None]})
'no hands'
"""

from __future__ import annotations

from typing import Any

from pipeline.report.inference import badge


def pct(r: dict[str, Any]) -> str:
    if not r["n"]:
        return "no hands"
    lo, hi = r["ci95"]
    return f"{r['rate']:.1%} of {r['n']:,} (95% CI {lo * 100:.1f}-{hi * 100:.1f}%)"


def ci(ci: list[float | None]) -> str:
    lo, hi = ci
    return "" if lo is None or hi is None else f" (95% CI {lo:+.3f} to {hi:+.3f})"


#: The core's terms, for the page's glossary (each game adds its own).
GLOSSARY = (
    (
        "counted hand",
        "a hand played to the end (not thrown in, not abandoned) that no violation names; "
        "a hand recorded several times (copies) counts once",
    ),
    (
        "copy",
        "a hand whose recorded play (dealer, upcard, calls, discard, tricks) is that of a hand "
        "loaded before it, in any file, format or game id",
    ),
    ("placeholder", "a seat name that is no person (North, Player0, p0, seat 0, empty...): never a player"),
    ("95% CI", "Wilson score interval for a rate, normal interval for a mean"),
    ("n", "how many hands (or games) a figure counts"),
    ("too small to read", "fewer than 30 hands: shown, marked, and kept out of the findings"),
    (
        "shrunk rate",
        "a player's rate pulled toward everyone's by empirical Bayes, the less the more hands they played",
    ),
    (
        "real difference",
        "a test (two-proportion z or Fisher's exact for rates, Welch's t for means) gives p < 0.05 "
        "after Holm's correction for every difference tested on the page",
    ),
)


def findings(summary: dict[str, Any]) -> dict[str, list[str]]:
    """The core's section key -> sentences (each game adds its own); ``key`` and
    ``notes`` feed the boxes at the top of the page."""
    d = summary["dataset"]
    return {
        "dataset": _dataset(d),
        "audit": _audit(summary["audit"]),
        "key": [_counted(d)],
        "notes": _notes(d),
    }


def _counted(d: dict[str, Any]) -> str:
    return (
        f"{d['hands_counted']:,} distinct hands counted [{badge(d['hands_counted'])}] of "
        f"{d['hands_loaded']:,} recorded in {d['games_loaded']:,} games from {d['files']:,} file(s)."
    )


def _dataset(d: dict[str, Any]) -> list[str]:
    dates = f", played {d['first_game']} to {d['last_game']}" if d["first_game"] else ""
    return [
        f"{d['games_loaded']:,} games from {d['files']:,} file(s) read{dates}: {d['hands_loaded']:,} hands "
        f"recorded, {d['hands_counted']:,} counted. Left out: {d['hands_thrown_in']:,} thrown in, "
        f"{d['hands_abandoned']:,} abandoned (fewer than five tricks), "
        f"{d['hands_with_violations']:,} with a violation, {d.get('hands_copies', 0):,} copies of a hand "
        "loaded before them (counted once)."
    ]


def _notes(d: dict[str, Any]) -> list[str]:
    """What makes the data less than a fair sample, with counts."""
    out = []
    if d.get("hands_copies"):
        out.append(
            f"{d['hands_copies']:,} recorded hands are copies of hands loaded before them "
            f"({d.get('games_copies', 0):,} games hold nothing but copies): each is counted once. "
            "See the audit's list of copies."
        )
    if d.get("lines_quarantined"):
        out.append(
            f"{d['lines_quarantined']:,} input line(s) in {d.get('files_with_quarantined_lines', 0):,} file(s) "
            "could not be loaded (quarantined): their games are missing."
        )
    return out


def _audit(a: dict[str, Any]) -> list[str]:
    codes = a["violations_by_code"]
    total = sum(codes.values())
    if not total:
        text = "No violation was found in the games in scope."
    else:
        top = ", ".join(f"{c} ({n:,})" for c, n in sorted(codes.items(), key=lambda kv: -kv[1])[:3])
        text = f"{total:,} violations were found; the most common: {top}."
    return [f"{text} {a['quarantined_lines']:,} input line(s) were quarantined (not loaded)."]
