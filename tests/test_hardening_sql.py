"""Hardening of ``tricklog sql``: no write or fetch through EXPLAIN or anything else,
no output onto the warehouse itself, one-line errors."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from warehouse_helpers import assert_refused, counts, run_cli, small_warehouse

from pipeline.warehouse.api import Warehouse
from pipeline.warehouse.guard import QueryFailed


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_warehouse(tmp_path_factory.mktemp("wh"))


@pytest.mark.parametrize(
    "statement",
    [
        "EXPLAIN ANALYZE COPY (select 'x') TO '{target}' (FORMAT csv)",
        "explain analyze copy games to '{target}'",
        "/* hidden */ EXPLAIN (FORMAT json) ANALYZE COPY (select 1) TO '{target}'",
        "explain copy (select 1) to '{target}'",
        "EXPLAIN ANALYZE INSTALL httpfs",
        "EXPLAIN ANALYZE EXPLAIN ANALYZE COPY (select 1) TO '{target}'",
    ],
)
def test_explain_cannot_write_or_install(db: Path, tmp_path: Path, statement: str) -> None:
    target = tmp_path / "other.duckdb"
    target.write_bytes(b"precious")
    before = counts(db)
    proc = run_cli("sql", statement.format(target=target), "--db", str(db), cwd=tmp_path)
    assert_refused(proc)
    assert target.read_bytes() == b"precious"
    assert counts(db) == before


@pytest.mark.parametrize(
    "query",
    [
        "select * from read_csv('{secret}')",
        "select * from read_text('{secret}')",
        "select * from read_parquet('https://example.invalid/x.parquet')",
        "select * from glob('{folder}/*')",
    ],
)
def test_a_query_opens_no_other_file(db: Path, tmp_path: Path, query: str) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("a,b\n1,2\n")
    proc = run_cli("sql", query.format(secret=secret, folder=tmp_path), "--db", str(db))
    assert_refused(proc)
    assert "Permission Error" in proc.stderr


def test_the_session_is_locked_even_if_the_check_misses(db: Path, tmp_path: Path) -> None:
    """The second wall alone: the checked connection itself refuses writes, installs
    and any change of its configuration."""
    target = tmp_path / "x.csv"
    with Warehouse.open(db) as wh:
        for statement in (
            f"copy (select 1) to '{target}'",
            "install httpfs",
            "load httpfs",
            "set enable_external_access = true",
            "reset enable_external_access",
            "set lock_configuration = false",
            f"attach '{tmp_path / 'new.duckdb'}' as other",
        ):
            with pytest.raises(duckdb.Error):
                wh.con.execute(statement)
    assert not target.exists() and not (tmp_path / "new.duckdb").exists()


def test_plain_explain_and_explain_analyze_of_a_query_still_work(db: Path) -> None:
    for statement in ("explain select count(*) from games", "explain analyze select count(*) from games"):
        proc = run_cli("sql", statement, "--db", str(db), "-f", "csv")
        assert proc.returncode == 0, proc.stderr


def test_sql_error_is_one_line_and_whole_with_verbose(db: Path) -> None:
    proc = run_cli("sql", "select nope from games", "--db", str(db))
    assert_refused(proc)
    assert "Binder Error" in proc.stderr and "Candidate bindings" in proc.stderr
    parse = run_cli("sql", "select * from games where", "--db", str(db))
    assert_refused(parse)
    assert "Parser Error" in parse.stderr and "LINE 1" not in parse.stderr
    verbose = run_cli("sql", "select * from games where", "--db", str(db), "--verbose")
    assert verbose.returncode == 2 and "LINE 1" in verbose.stderr and "^" in verbose.stderr
    assert "Traceback" not in verbose.stderr


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_a_value_nested_deeper_than_arrow_takes_is_one_line(db: Path, fmt: str) -> None:
    """Arrow takes 64 levels of nesting; a deeper list stopped `sql` with a traceback."""
    deep = "select " + "[" * 64 + "1" + "]" * 64 + " as deep"
    proc = run_cli("sql", deep, "--db", str(db), "-f", fmt)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "tricklog: the result cannot be read through Arrow: Recursion level in ArrowSchema struct exceeded"
    ]
    with Warehouse.open(db) as warehouse, pytest.raises(QueryFailed, match="cannot be read through Arrow"):
        warehouse.sql(deep)
    shallow = "select " + "[" * 60 + "1" + "]" * 60 + " as deep"
    assert run_cli("sql", shallow, "--db", str(db), "-f", fmt).returncode == 0


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_a_timestamp_polars_cannot_hold_is_one_line_not_a_traceback(db: Path, fmt: str) -> None:
    """DuckDB's 'infinity' timestamp is past what polars converts: polars panics (a
    BaseException), which stopped `sql` with a traceback.  polars' own panic note
    still precedes the line; the command's last word is what to do."""
    proc = run_cli("sql", "select 'infinity'::timestamp as t", "--db", str(db), "-f", fmt)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"tricklog: cannot write this result as {fmt}: ")
    assert "cast it to text in the query" in proc.stderr
