"""``summary.json``: the machine-readable contract, built from the report tables.

The keys of /work/shared/spec/reports.md (Euchre part) never change meaning;
the extra keys (``by_preset``, ``by_trump``, ``by_trumps_held``,
``stuck_dealer``, ``per_player``, ``dataset``, ``audit``) may grow.
"""

from __future__ import annotations

from typing import Any

from pipeline.report.run import Table
from pipeline.report.stats import from_moments, rate

POSITIONS = ("dealer", "left", "partner", "right")


def _rate(row: dict[str, Any], stem: str) -> dict[str, Any]:
    return rate(row[f"{stem}_k"], row[f"{stem}_n"]).to_json()


def _mean_ci(row: dict[str, Any], stem: str) -> list[float | None]:
    return from_moments(row[f"{stem}_count"], row[f"{stem}_mean"], row[f"{stem}_sd"]).ci95


def build_summary(tables: dict[str, Table], filters: dict[str, list[str]]) -> dict[str, Any]:
    """The whole ``summary.json`` object."""
    return {
        "filters": filters,
        "dataset": _plain(tables["dataset"].one()),
        "audit": {
            "violations_by_code": {
                r["code"]: r["violations"] for r in tables["audit_violations_by_code"].rows()
            },
            "quarantined_lines": sum(r["lines"] for r in tables["audit_quarantine"].rows()),
        },
        "euchre": euchre_summary(tables),
    }


def euchre_summary(tables: dict[str, Table]) -> dict[str, Any]:
    """The contract's ``euchre`` object, plus the extra keys."""
    overview = tables["euchre_overview"].one()
    return {
        "games": overview["games"],
        "complete_games": overview["complete_games"],
        "hands": overview["hands"],
        "euchre_rate": _rate(overview, "euchred"),
        "euchre_rate_by_round": {
            str(r["round"]): _rate(r, "euchred") for r in tables["euchre_by_round"].rows()
        },
        "euchre_rate_by_maker_position": {
            r["maker_position"]: _rate(r, "euchred") for r in tables["euchre_by_maker_position"].rows()
        },
        "alone": _alone(tables["euchre_alone"].one()),
        "dealer_advantage": _dealer(
            tables["euchre_dealer_advantage"].one(), tables["euchre_first_dealer"].one()
        ),
        "by_preset": {r["preset"]: _preset(r) for r in tables["euchre_by_preset"].rows()},
        "by_trump": {r["trump"]: _rate(r, "euchred") for r in tables["euchre_by_trump"].rows()},
        "by_trumps_held": {
            str(r["trumps_held"]): _rate(r, "euchred") for r in tables["euchre_by_trumps_held"].rows()
        },
        "stuck_dealer": {r["call"]: _rate(r, "euchred") for r in tables["euchre_stuck_dealer"].rows()},
        "per_player": {r["player"]: _player(r) for r in tables["euchre_per_player"].rows()},
    }


def _alone(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "attempts": row["attempts"],
        "success": _rate(row, "success"),
        "march": _rate(row, "march"),
        "net_points_per_attempt": row["net_points_mean"],
        "net_points_ci95": _mean_ci(row, "net_points"),
    }


def _dealer(row: dict[str, Any], first: dict[str, Any]) -> dict[str, Any]:
    return {
        "dealer_team_points_per_hand": row["dealer_team_points_per_hand"],
        "other_team_points_per_hand": row["other_team_points_per_hand"],
        "edge": row["edge_mean"],
        "edge_ci95": _mean_ci(row, "edge"),
        "first_dealer_game_win": _rate(first, "won"),
    }


def _preset(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "games": row["games"],
        "hands": row["euchred_n"],
        "euchre_rate": _rate(row, "euchred"),
        "lone_attempts": row["lone_attempts"],
        "lone_defences": row["lone_defences"],
        "edge": row["edge_mean"],
        "edge_ci95": _mean_ci(row, "edge"),
    }


def _player(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "hands": row["hands"],
        "calls": row["calls"],
        "euchred_as_maker": _rate(row, "euchred"),
        "alone_success": _rate(row, "alone"),
        "net_points_per_hand": row["net_points_mean"],
        "net_points_ci95": _mean_ci(row, "net_points"),
        "games_won": _rate(row, "won"),
    }


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row with dates as ISO text, ready for JSON."""
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}
