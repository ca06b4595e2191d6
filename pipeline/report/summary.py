"""``summary.json``: the machine-readable contract, built from the report tables.

The core writes ``filters``, ``dataset`` and ``audit``; each game's report adds
its key (``euchre``, ``tarot``, ...), whose contract keys never change meaning
(docs/reports.md); extra keys may grow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.report.game import GameReport
from pipeline.report.run import Table
from pipeline.report.stats import from_moments, rate


def rate_of(row: dict[str, Any], stem: str) -> dict[str, Any]:
    return rate(row[f"{stem}_k"], row[f"{stem}_n"]).to_json()


def mean_ci(row: dict[str, Any], stem: str) -> list[float | None]:
    return from_moments(row[f"{stem}_count"], row[f"{stem}_mean"], row[f"{stem}_sd"]).ci95


def build_summary(
    tables: dict[str, Table], filters: dict[str, list[str]], reports: Sequence[GameReport]
) -> dict[str, Any]:
    """The whole ``summary.json`` object: the core's keys, then one per game."""
    return {
        "filters": filters,
        "dataset": plain(tables["dataset"].one()),
        "audit": {
            "violations_by_code": {
                r["code"]: r["violations"] for r in tables["audit_violations_by_code"].rows()
            },
            "quarantined_lines": sum(r["lines"] for r in tables["audit_quarantine"].rows()),
        },
        **{report.key: report.summary(tables) for report in reports},
    }


def plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row with dates as ISO text, ready for JSON."""
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}
