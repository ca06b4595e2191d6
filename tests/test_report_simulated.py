"""tricklog report on simulated games (mixed presets, some corrupted) against the plain-Python oracle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from report_oracle import expected_extras, expected_summary
from test_report import assert_same, report, tricklog

from pipeline.games.euchre.simulate import write_simulation

GAMES = 300


def read_records(path: Path) -> list[Any]:
    """Every line that parses as JSON (a malformed line never reaches the warehouse)."""
    records = []
    for line in path.read_bytes().splitlines():
        try:
            records.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    return records


def test_simulated_games_match_plain_python(tmp_path: Path) -> None:
    games = tmp_path / "sim.jsonl"
    write_simulation(games, GAMES, seed=7, preset="mixed", corrupt_rate=0.05, workers=1)
    records = read_records(games)
    db = tmp_path / "w.duckdb"
    assert tricklog("load", str(games), "--db", str(db)).exit_code == 1  # the corrupted games
    summary = report(db, tmp_path / "report")
    lines = len(games.read_bytes().splitlines())
    assert summary["audit"]["quarantined_lines"] >= lines - len(records)
    expected = expected_summary(records)
    assert expected["hands"] > 10 * GAMES * 0.8
    assert expected["alone"]["attempts"] > 0
    assert_same(expected, summary["euchre"], "euchre")
    extra = expected_extras(records)
    euchre = summary["euchre"]
    assert_same(extra["by_trumps_held"], euchre["by_trumps_held"], "by_trumps_held")
    assert_same(extra["stuck_dealer"], euchre["stuck_dealer"]["stuck dealer"], "stuck_dealer")
    assert_same(extra["per_player"], euchre["per_player"], "per_player")
