"""Euchre's object in ``summary.json``: the contract's keys (docs/reports.md),
then the extra ones (``by_preset``, ``by_trump``, ``by_trumps_held``,
``stuck_dealer``, ``per_player``, ``ratings``, ``partnerships``,
``head_to_head``, ``by_score_situation``, ``win_probability``, ``bidding``,
``by_week``, ``by_file``), which may grow."""

from __future__ import annotations

from typing import Any

from pipeline.report.inference import small
from pipeline.report.run import Table
from pipeline.report.summary import mean_ci, rate_of


def summary(tables: dict[str, Table]) -> dict[str, Any]:
    """The contract's ``euchre`` object, plus the extra keys."""
    overview = tables["euchre_overview"].one()
    return {
        "games": overview["games"],
        "complete_games": overview["complete_games"],
        "hands": overview["hands"],
        "euchre_rate": rate_of(overview, "euchred"),
        "euchre_rate_by_round": {
            str(r["round"]): rate_of(r, "euchred") for r in tables["euchre_by_round"].rows()
        },
        "euchre_rate_by_maker_position": {
            r["maker_position"]: rate_of(r, "euchred") for r in tables["euchre_by_maker_position"].rows()
        },
        "alone": _alone(tables["euchre_alone"].one()),
        "dealer_advantage": _dealer(
            tables["euchre_dealer_advantage"].one(), tables["euchre_first_dealer"].one()
        ),
        "by_preset": {r["preset"]: _preset(r) for r in tables["euchre_by_preset"].rows()},
        "by_trump": {r["trump"]: rate_of(r, "euchred") for r in tables["euchre_by_trump"].rows()},
        "by_trumps_held": {
            str(r["trumps_held"]): rate_of(r, "euchred") for r in tables["euchre_by_trumps_held"].rows()
        },
        "stuck_dealer": {r["call"]: rate_of(r, "euchred") for r in tables["euchre_stuck_dealer"].rows()},
        "per_player": {r["player"]: _player(r) for r in _rows(tables, "euchre_per_player")},
        "ratings": _ratings(tables),
        "partnerships": {pair(r): _partnership(r) for r in _rows(tables, "euchre_partnerships")},
        "head_to_head": {
            f"{r['pair_a']} vs {r['pair_b']}": _meeting(r) for r in _rows(tables, "euchre_head_to_head")
        },
        "by_score_situation": {
            r["situation"]: _cut(r, "edge") for r in tables["euchre_by_score_situation"].rows()
        },
        "win_probability": {
            f"{r['my_score']}-{r['opp_score']}": rate_of(r, "won")
            for r in tables["euchre_win_probability"].rows()
        },
        "bidding": {r["call"]: _cut(r, "net_points") for r in tables["euchre_bidding"].rows()},
        **_periods(tables["euchre_by_week_and_file"]),
        "sample": {
            "games_part_way": overview.get("games_part_way"),
            "games_unfinished": overview.get("games_unfinished"),
        },
    }


def _alone(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "attempts": row["attempts"],
        "success": rate_of(row, "success"),
        "march": rate_of(row, "march"),
        "net_points_per_attempt": row["net_points_mean"],
        "net_points_ci95": mean_ci(row, "net_points"),
        "net_points_sd": row["net_points_sd"],
    }


def _dealer(row: dict[str, Any], first: dict[str, Any]) -> dict[str, Any]:
    return {
        "dealer_team_points_per_hand": row["dealer_team_points_per_hand"],
        "other_team_points_per_hand": row["other_team_points_per_hand"],
        "edge": row["edge_mean"],
        "edge_ci95": mean_ci(row, "edge"),
        "edge_sd": row["edge_sd"],
        "hands": row["edge_count"],
        "first_dealer_game_win": rate_of(first, "won"),
    }


def _preset(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "games": row["games"],
        "hands": row["euchred_n"],
        "euchre_rate": rate_of(row, "euchred"),
        "lone_attempts": row["lone_attempts"],
        "lone_defences": row["lone_defences"],
        "edge": row["edge_mean"],
        "edge_ci95": mean_ci(row, "edge"),
    }


def _player(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "hands": row["hands"],
        "calls": row["calls"],
        "euchred_as_maker": rate_of(row, "euchred"),
        "alone_success": rate_of(row, "alone"),
        "defence_euchres": rate_of(row, "defence_euchres"),
        "net_points_per_hand": row["net_points_mean"],
        "net_points_ci95": mean_ci(row, "net_points"),
        "games_won": rate_of(row, "won"),
        "euchred_as_maker_shrunk": row.get("euchred_shrunk"),
        "games_won_shrunk": row.get("won_shrunk"),
        "small": small(row["hands"]),
    }


def _rated(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "games": row["games"],
        "mu": row["mu"],
        "sigma": row["sigma"],
        "ci95": [row["mu_lo"], row["mu_hi"]],
        "ordinal": row["ordinal"],
        "small": small(row["games"]),
    }


def _rows(tables: dict[str, Table], name: str) -> list[dict[str, Any]]:
    """The rows of a table split by sample size: its own, then its ``_small`` table's."""
    return [r for n in (name, f"{name}_small") if n in tables for r in tables[n].rows()]


def _ratings(tables: dict[str, Table]) -> dict[str, Any]:
    """``ratings.players.<name>`` and ``ratings.partnerships.<a & b>``."""
    return {
        "players": {r["player"]: _rated(r) for r in _rows(tables, "euchre_ratings")},
        "partnerships": {pair(r): _rated(r) for r in _rows(tables, "euchre_pair_ratings")},
    }


def pair(row: dict[str, Any]) -> str:
    """A partnership's key: its two names in alphabetical order, ``"ana & ben"``."""
    return f"{row['player_a']} & {row['player_b']}"


def _partnership(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "games": row["games"],
        "hands": row["hands"],
        "hands_won": rate_of(row, "hands_won"),
        "games_won": rate_of(row, "games_won"),
        "small": small(row["hands"]),
    }


def _meeting(row: dict[str, Any]) -> dict[str, Any]:
    """Pair a against pair b: the hands and games pair a won."""
    return {
        "hands": row["hands"],
        "hands_won_by_a": rate_of(row, "a_hands"),
        "games_won_by_a": rate_of(row, "a_games"),
        "small": small(row["hands"]),
    }


def _cut(row: dict[str, Any], stem: str) -> dict[str, Any]:
    """A group of hands: its euchre rate and the mean of ``stem`` with its interval."""
    return {
        "hands": row["euchred_n"],
        "euchre_rate": rate_of(row, "euchred"),
        stem: row[f"{stem}_mean"],
        f"{stem}_ci95": mean_ci(row, stem),
    }


def _periods(table: Table) -> dict[str, Any]:
    """``by_week`` (ISO week, or "no date") and ``by_file``."""
    out: dict[str, Any] = {"by_week": {}, "by_file": {}}
    for r in table.rows():
        out[f"by_{r['cut']}"][r["period"]] = {
            "games": r["games"],
            "lone_attempts": r["lone_attempts"],
            **_cut(r, "edge"),
        }
    return out
