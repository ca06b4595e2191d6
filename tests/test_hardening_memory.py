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
from warehouse_helpers import run_cli

from pipeline.games.euchre.simulate import simulate_games
from pipeline.sources import MAX_LINE_BYTES

#: 20 distinct games (copies of one game under new ids would be reported as copies).
GAMES = [orjson.dumps(record) for record in simulate_games(20, seed=41, preset="mixed")]


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


def _python_heap_peak_mb(source: Path, db: Path) -> float:
    """Peak of Python's own heap (tracemalloc) while loading ``source``, in a fresh process."""
    probe = (
        "import sys, tracemalloc\n"
        "from pipeline.warehouse.api import load\n"
        "tracemalloc.start()\n"
        "summary = load([sys.argv[1]], sys.argv[2])\n"
        "assert summary.accounted and summary.quarantined == summary.lines\n"
        "print(tracemalloc.get_traced_memory()[1])\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(source), str(db)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return int(out.stdout) / 2**20


def test_memory_is_flat_in_the_number_of_bad_lines(tmp_path: Path) -> None:
    peaks = []
    for n in (5_000, 50_000):  # flat within 0.3 MiB; keeping each line's quarantine key grows it 10
        junk = tmp_path / f"junk-{n}.jsonl"
        junk.write_bytes(b"".join(b"junk line %d\n" % i for i in range(n)))
        peaks.append(_python_heap_peak_mb(junk, tmp_path / f"w-{n}.duckdb"))
    assert peaks[1] - peaks[0] < 2, f"the heap grew from {peaks[0]:.1f} to {peaks[1]:.1f} MiB"


def _run_json(*args: str) -> dict[str, int]:
    proc = run_cli(*args, "--json")
    assert proc.returncode in (0, 1), proc.stderr
    summary: dict[str, int] = orjson.loads(proc.stdout)
    assert summary["lines"] == summary["games_loaded"] + summary["already_present"] + summary["quarantined"]
    return summary


def test_a_grown_log_does_not_quarantine_its_old_bad_lines_again(tmp_path: Path) -> None:
    log, db = tmp_path / "live.jsonl", tmp_path / "w.duckdb"
    first = [GAMES[0], b"junk", GAMES[1], b"[1, 2]", b"junk"]  # the same junk twice: two bad lines
    log.write_bytes(b"\n".join(first) + b"\n")
    one = _run_json("load", str(log), "--db", str(db))
    assert (one["games_loaded"], one["quarantined"]) == (2, 3)
    with log.open("ab") as out:
        out.write(b"\n".join([GAMES[2], b"junk", b"{broken"]) + b"\n")
    two = _run_json("load", str(log), "--db", str(db))
    assert (two["lines"], two["games_loaded"], two["already_present"], two["quarantined"]) == (8, 1, 5, 2)
    twice = _run_json("load", str(log), str(log), "--db", str(db))
    assert twice["already_present"] == 16 and twice["quarantined"] == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("select line, raw from quarantine order by line").fetchall()
    finally:
        con.close()
    assert rows == [(2, b"junk"), (4, b"[1, 2]"), (5, b"junk"), (7, b"junk"), (8, b"{broken")]


def test_the_same_file_twice_in_one_load(tmp_path: Path) -> None:
    log, db = tmp_path / "a.jsonl", tmp_path / "w.duckdb"
    log.write_bytes(b"\n".join([GAMES[0], b"junk", GAMES[1]]) + b"\n")
    summary = _run_json("load", str(log), str(log), "--db", str(db), "--batch-size", "1")
    assert (summary["games_loaded"], summary["quarantined"], summary["already_present"]) == (2, 1, 3)
