"""A DuckDB file that is not a tricklog warehouse (or not of this schema version)
is refused in one line by every command, before anything is written to it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from test_hardening_errors import one_line_error
from warehouse_helpers import run_cli, valid_lines

from pipeline.warehouse.meta import SCHEMA_VERSION

FOREIGN: dict[str, Callable[[duckdb.DuckDBPyConnection], None]] = {
    "own players table": lambda con: con.execute("create table players (name varchar, elo int)"),
    "a games(x int) table": lambda con: con.execute("create table games (x int)"),
    "an older warehouse": lambda con: con.execute(
        "create table tricklog_meta (key varchar primary key, value varchar not null);"
        "insert into tricklog_meta values ('schema_version', '0')"
    ),
    "a view named like ours": lambda con: con.execute("create view hands as select 1 as x"),
}


def _file_state(db: Path) -> tuple[str, list[tuple[str, ...]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = con.execute(
            "select table_name, table_type from information_schema.tables order by 1"
        ).fetchall()
    finally:
        con.close()
    return hashlib.sha256(db.read_bytes()).hexdigest(), tables


@pytest.mark.parametrize("kind", list(FOREIGN))
def test_a_foreign_database_is_refused_untouched(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(db))
    FOREIGN[kind](con)
    con.close()
    before = _file_state(db)
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    for command in (
        ["load", str(source), "--db", str(db)],
        ["sql", "select 1", "--db", str(db)],
        ["report", "--db", str(db), "--out", str(tmp_path / "report")],
        ["export", "--db", str(db), "--parquet", str(tmp_path / "parquet")],
    ):
        stderr = one_line_error(run_cli(*command))
        assert "warehouse" in stderr and str(db) in stderr
        assert _file_state(db) == before, command
        assert not Path(f"{db}.wal").exists()
    assert not (tmp_path / "report").exists() and not (tmp_path / "parquet").exists()


def test_an_empty_file_is_a_new_warehouse_and_carries_its_version(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    duckdb.connect(str(db)).close()
    empty = _file_state(db)
    stderr = one_line_error(run_cli("sql", "select 1", "--db", str(db)))
    assert "empty database" in stderr
    # analyze writes into a warehouse, but has nothing to analyse in a new one: it creates none
    assert "empty database" in one_line_error(run_cli("analyze", "--db", str(db)))
    assert _file_state(db) == empty
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    assert run_cli("load", str(source), "--db", str(db)).returncode == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("select key, value from tricklog_meta").fetchall() == [
            ("schema_version", SCHEMA_VERSION)
        ]
    finally:
        con.close()
    assert run_cli("sql", "select count(*) from games", "--db", str(db)).returncode == 0


def test_a_warehouse_made_before_the_version_was_stored_is_recognised(tmp_path: Path) -> None:
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    db = tmp_path / "w.duckdb"
    assert run_cli("load", str(source), "--db", str(db)).returncode == 0
    con = duckdb.connect(str(db))
    con.execute("drop table tricklog_meta")
    con.close()
    assert run_cli("sql", "select count(*) from games", "--db", str(db)).returncode == 0
    assert run_cli("load", str(source), "--db", str(db)).returncode == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("select value from tricklog_meta").fetchall() == [(SCHEMA_VERSION,)]
    finally:
        con.close()


def test_a_pipe_as_the_database_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO given as --db: DuckDB would wait for a writer to open it, for good."""
    import os

    from cli import run

    fifo = tmp_path / "db.fifo"
    os.mkfifo(fifo)
    games = tmp_path / "g.jsonl"
    games.write_bytes(b"\n".join(valid_lines()[:2]) + b"\n")
    for args in (
        ("load", str(games), "--db", str(fifo)),
        ("sql", "select 1", "--db", str(fifo)),
        ("report", "--db", str(fifo), "--out", str(tmp_path / "r")),
        ("analyze", "--db", str(fifo)),
    ):
        message = one_line_error(run(*args, timeout=60))
        assert "not a file but a pipe, a device or a socket" in message, args


@pytest.mark.parametrize("name", ["euchre", "tarot", "main", "it's"])
def test_a_warehouse_named_after_a_game_or_a_catalog_loads_and_reads(tmp_path: Path, name: str) -> None:
    """DuckDB names a file's catalog after the file: in ``euchre.duckdb``,
    ``euchre.hands`` was ambiguous and the load failed.  The file is opened as
    one catalog whatever its name (a quote in it included)."""
    db = tmp_path / f"{name}.duckdb"
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    loaded = run_cli("load", str(source), "--db", str(db))
    assert loaded.returncode == 0, loaded.stderr
    counted = run_cli("sql", "select count(*) as n from euchre.games", "--db", str(db), "--format", "csv")
    assert counted.returncode == 0 and counted.stdout.split() == ["n", str(len(valid_lines()))], counted
    report = run_cli("report", "--db", str(db), "--out", str(tmp_path / "report"))
    assert report.returncode == 0 and (tmp_path / "report" / "summary.json").is_file(), report.stderr


def test_a_sqlite_file_is_refused_without_fetching_an_extension(tmp_path: Path) -> None:
    """DuckDB reads a SQLite file through an extension it would fetch from the
    network (and wait for); --db is refused at once as no DuckDB file."""
    import sqlite3

    db = tmp_path / "theirs.db"
    with sqlite3.connect(db) as con:
        con.execute("create table games (x int)")
    before = db.read_bytes()
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    for command in (["load", str(source), "--db", str(db)], ["sql", "select 1", "--db", str(db)]):
        stderr = one_line_error(run_cli(*command))
        assert "not a valid DuckDB database file" in stderr and str(db) in stderr
    assert db.read_bytes() == before
