"""A load killed with SIGKILL half way keeps its committed batches; re-running completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from cli import TRICKLOG
from warehouse_helpers import counts, many_games

from pipeline.warehouse.api import load

GAMES = 600


def test_sigkill_then_reload_equals_a_clean_load(tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    source.write_bytes(b"\n".join([*many_games(GAMES), b"not json"]) + b"\n")
    killed_db, clean_db = tmp_path / "killed.duckdb", tmp_path / "clean.duckdb"

    args = [*TRICKLOG, "load", str(source), "--db", str(killed_db), "--batch-size", "20", "--json"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wal = Path(str(killed_db) + ".wal")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if wal.exists() and wal.stat().st_size > 100_000:  # a few batches are committed
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the load ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    partial = counts(killed_db)
    assert 0 < partial["games"] < GAMES
    assert partial["games"] % 20 == 0 or partial["quarantine"] == 1  # whole batches only
    _assert_batches_whole(killed_db)

    rerun = load([str(source)], killed_db)
    assert rerun.games_loaded == GAMES - partial["games"]
    assert rerun.accounted
    clean = load([str(source)], clean_db)
    assert clean.games_loaded == GAMES and clean.quarantined == 1
    assert counts(killed_db) == counts(clean_db)
    _assert_batches_whole(killed_db)

    import duckdb

    con = duckdb.connect(str(killed_db), read_only=True)
    statuses = [r[0] for r in con.execute("select status from ingest_runs order by run_id").fetchall()]
    con.close()
    assert statuses == ["aborted", "complete"]


def _assert_batches_whole(db: Path) -> None:
    """Every game has all its hands and plays: no batch was half written."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        missing = con.execute(
            "select count(*) from games g where g.hands_played <> "
            "(select count(*) from euchre.hands h where h.game_id = g.game_id)"
        ).fetchall()[0][0]
        orphans = con.execute("select count(*) from euchre.plays anti join games using (game_id)").fetchall()[
            0
        ][0]
    finally:
        con.close()
    assert missing == 0 and orphans == 0
