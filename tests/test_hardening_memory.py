"""Memory stays bounded whatever the input: a line too long is reported, not held;
the quarantine is checked against the database, not a set of every bad line;
a grown log does not quarantine its old bad lines again."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest
from cli import TRICKLOG
from warehouse_helpers import many_games, run_cli

from pipeline.sources import MAX_LINE_BYTES

GAMES = many_games(20, prefix="mem")


def peak_rss_mb(*args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run tricklog from a fresh Python whose only child it is; its peak RSS in MiB."""
    probe = (
        "import resource, subprocess, sys, json\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(json.dumps([p.returncode, p.stdout, p.stderr,"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *TRICKLOG, *args], capture_output=True, text=True, check=True
    )
    code, stdout, stderr, rss = orjson.loads(out.stdout)
    return subprocess.CompletedProcess(args, code, stdout, stderr), rss


@pytest.fixture(scope="module")
def huge_line(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A .gz of about 100 KB holding 20 games around one 100 MB line."""
    line = b'{"format": "euchre/1", "game_id": "huge", "pad": "' + b"x" * (100 << 20) + b'"}'
    path = tmp_path_factory.mktemp("huge") / "huge.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=6) as out:
        out.write(b"\n".join([*GAMES[:10], line, *GAMES[10:]]) + b"\n")
    return path, line


def test_a_huge_line_is_quarantined_not_held(huge_line: tuple[Path, bytes], tmp_path: Path) -> None:
    path, line = huge_line
    db = tmp_path / "w.duckdb"
    proc, rss = peak_rss_mb("load", str(path), "--db", str(db), "--json")
    assert proc.returncode == 1, proc.stderr
    assert rss < 800, f"load of a 100 MB line peaked at {rss} MiB"
    summary = orjson.loads(proc.stdout)
    assert (summary["lines"], summary["games_loaded"], summary["quarantined"]) == (21, 20, 1)
    con = duckdb.connect(str(db), read_only=True)
    try:
        code, message, raw, where = con.execute("select code, message, raw, line from quarantine").fetchone()  # type: ignore[misc]
    finally:
        con.close()
    offset = sum(len(g) + 1 for g in GAMES[:10])
    assert (code, where) == ("line_too_long", 11)
    assert str(len(line)) in message and f"byte {offset}" in message
    assert hashlib.sha256(line).hexdigest() in message
    assert line.startswith(raw) and len(raw) <= 4096
    again = run_cli("load", str(path), "--db", str(db), "--json")
    assert orjson.loads(again.stdout)["already_present"] == 21


def test_validate_reports_a_huge_line(huge_line: tuple[Path, bytes]) -> None:
    path, _ = huge_line
    proc, rss = peak_rss_mb("validate", str(path), "--json")
    assert proc.returncode == 1 and rss < 800, (proc.stderr, rss)
    assert orjson.loads(proc.stdout)["by_code"] == {"line_too_long": 1}


def test_max_line_bytes_raises_or_lowers_the_cap(tmp_path: Path) -> None:
    long_game = orjson.loads(GAMES[0])
    cap = str(max(len(g) for g in GAMES) + 100)
    long_game["game_id"], long_game["note"] = "long", "y" * int(cap)
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\n".join([*GAMES[1:4], orjson.dumps(long_game)]) + b"\n")
    assert run_cli("validate", str(path)).returncode == 0
    low = run_cli("validate", str(path), "--max-line-bytes", cap, "--json")
    assert low.returncode == 1 and orjson.loads(low.stdout)["by_code"] == {"line_too_long": 1}
    out = tmp_path / "c.jsonl"
    converted = run_cli("convert", str(path), "--max-line-bytes", cap, "-o", str(out))
    assert converted.returncode == 1 and "line_too_long" in converted.stderr
    db = tmp_path / "w.duckdb"
    loaded = run_cli("load", str(path), "--db", str(db), "--max-line-bytes", cap, "--json")
    assert orjson.loads(loaded.stdout)["quarantined"] == 1
    assert run_cli("load", str(path), "--db", str(db), "--json").returncode == 0  # now read whole: loaded
    assert MAX_LINE_BYTES == 16 << 20
