"""Shared helpers of the warehouse tests: inputs made from the fixture games, the CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import duckdb
import orjson
from cli import run

FIXTURES = Path(__file__).parent / "fixtures" / "spec-examples"
VALID_FILES = ("euchre-cards4net.jsonl", "euchre-pagat.jsonl", "euchre-french.jsonl")
TABLES = (
    "games",
    "euchre.games",
    "euchre.hands",
    "euchre.bids",
    "euchre.tricks",
    "euchre.plays",
    "violations",
    "quarantine",
    "ingest_runs",
)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run(*args, cwd=cwd)


def run_json(*args: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli(*args, "--json")
    assert proc.stdout, proc.stderr
    return proc.returncode, orjson.loads(proc.stdout)


def valid_lines() -> list[bytes]:
    """The 15 valid fixture games, one JSON line each."""
    lines: list[bytes] = []
    for name in VALID_FILES:
        lines.extend(line for line in (FIXTURES / name).read_bytes().splitlines() if line.strip())
    return lines


def corrupt_lines() -> list[bytes]:
    return [line for line in (FIXTURES / "euchre-corrupt.jsonl").read_bytes().splitlines() if line.strip()]


def many_games(n: int, prefix: str = "copy") -> list[bytes]:
    """``n`` distinct valid games: the fixture games under new ids."""
    base = [orjson.loads(line) for line in valid_lines()]
    out = []
    for i in range(n):
        record = dict(base[i % len(base)])
        record["game_id"] = f"{prefix}-{i}"
        out.append(orjson.dumps(record))
    return out


def counts(db: Path) -> dict[str, int]:
    """Rows per table (ingest_runs left out: each load adds one)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"select count(*) from {t}").fetchall()[0][0] for t in TABLES[:-1]}
    finally:
        con.close()


def small_warehouse(folder: Path) -> Path:
    """A warehouse in ``folder`` loaded with the 15 valid fixture games."""
    from pipeline.warehouse.api import load

    source = folder / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    load([str(source)], folder / "w.duckdb")
    return folder / "w.duckdb"


def assert_refused(proc: subprocess.CompletedProcess[str]) -> None:
    """Exit 2 with one line on stderr, no traceback."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.startswith("tricklog: ") and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def every_row(db: Path) -> dict[str, list[str]]:
    """Every table of a warehouse, its rows as sorted reprs (a run's times left out):
    two loads of the same input compare equal, row order aside."""
    from pipeline.warehouse.ddl import table_names

    with duckdb.connect(str(db), read_only=True) as con:
        return {
            t: sorted(
                map(repr, con.execute(f"select * exclude (started_at, ended_at) from {t}").fetchall())
                if t == "ingest_runs"
                else map(repr, con.execute(f"select * from {t}").fetchall())
            )
            for t in table_names()
        }
