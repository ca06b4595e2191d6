"""A load killed with SIGKILL half way keeps its committed batches; re-running completes it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from warehouse_helpers import counts, many_games

from pipeline.warehouse.api import load

GAMES = 600


def test_sigkill_then_reload_equals_a_clean_load(tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    source.write_bytes(b"\n".join([*many_games(GAMES), b"not json"]) + b"\n")
    killed_db, clean_db = tmp_path / "killed.duckdb", tmp_path / "clean.duckdb"

    # A real load in its own process, killed by SIGKILL right after its third committed batch.
    script = (
        "import os, signal, sys\n"
        "from pipeline.warehouse.api import load\n"
        "def kill_after_third(summary):\n"
        "    if summary.batches == 3:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "load([sys.argv[1]], sys.argv[2], batch_size=20, on_batch=kill_after_third)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(source), str(killed_db)], check=False, timeout=300
    )
    assert proc.returncode == -signal.SIGKILL

    partial = counts(killed_db)
    assert partial["games"] == 3 * 20  # three whole batches, nothing of the fourth
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
