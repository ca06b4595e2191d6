"""Opening the warehouse database and creating its tables from ``warehouse.sql``.

The DDL is a reviewable SQL file shipped in the ``tricklog_schemas`` package;
every statement in it is idempotent, so it runs on each writing open.  Opening
errors become one-line :class:`WarehouseError` messages: the database is in
use by another process, does not exist, or is not a DuckDB file.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.atomic import is_pipe_or_device
from pipeline.games import installed, tables_of
from pipeline.violations import TricklogError

if TYPE_CHECKING:
    import duckdb
    import pandera.polars as pa

    from pipeline.warehouse.tables import GameTables

DEFAULT_DB = "tricklog.duckdb"


class WarehouseError(TricklogError):
    """The warehouse cannot be opened, written or queried as asked."""


class DatabaseInUse(WarehouseError):
    """Another process holds the database file's lock: ``in_use`` names the file and,
    when DuckDB told it, the process."""

    def __init__(self, db: str, holder: str) -> None:
        self.in_use = f"{db}: the database is in use by another process{holder}"
        super().__init__(f"{self.in_use}; wait for it to finish and retry")


@contextlib.contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, rows: Any) -> Iterator[None]:
    """``rows`` (an Arrow table) as the relation ``name`` of ``con`` within the block.
    When the block fails, a refused unregister (an aborted transaction refuses it)
    does not hide its error."""
    con.register(name, rows)
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            con.unregister(name)
        raise
    con.unregister(name)


def ddl_text() -> str:
    """The text of ``warehouse.sql``, the core tables every game shares."""
    return resources.files("tricklog_schemas").joinpath("warehouse.sql").read_text(encoding="utf-8")


def game_tables() -> list[GameTables]:
    """The warehouse part of every installed game that has one."""
    return [tables_of(g) for g in installed() if g.tables is not None]


def table_models() -> dict[str, type[pa.DataFrameModel]]:
    """Every table a load writes (games' own tables qualified by their schema) -> its model."""
    from tricklog_schemas.tables import MODELS

    models = dict(MODELS)
    for tables in game_tables():
        models.update({tables.qualified(t): m for t, m in tables.models.items()})
    return models


def table_names() -> list[str]:
    """The one list of the warehouse's tables: the core's, each game's, and ``ingest_runs``."""
    return [*table_models(), "ingest_runs"]


#: Table macros of ``reports/`` (``scoped_games()``, ``all_hands()``, ...) that every
#: read-only session gets, so a report file runs as it stands from ``tricklog sql``
#: and the Python API too; each game's report adds its own.  Temporary: they never
#: touch the file.
QUERY_MACROS = ("scoped_games", "scoped_violations")


#: Installed after ``all_hands()``, which they build on.
HAND_MACROS = ("counted_hands",)


def install_query_macros(con: duckdb.DuckDBPyConnection) -> None:
    from pipeline.warehouse.players import install_identity

    install_identity(con)
    for name in QUERY_MACROS:
        con.execute(resources.files("tricklog_reports").joinpath(f"{name}.sql").read_text(encoding="utf-8"))
    con.execute(_all_hands_macro(con))
    for name in HAND_MACROS:
        con.execute(resources.files("tricklog_reports").joinpath(f"{name}.sql").read_text(encoding="utf-8"))
    from pipeline.analyze import study_reports

    for game in installed():
        if game.report is not None and _has_schema(con, game.name):
            for text in game.report().macros():
                con.execute(text)
    for report in study_reports(con):  # those of the studies ``analyze`` has written
        for text in report.macros():
            con.execute(text)


def _has_schema(con: duckdb.DuckDBPyConnection, schema: str) -> bool:
    return bool(scalar(con, "select count(*) from duckdb_schemas() where schema_name = ?", [schema]))


def _all_hands_macro(con: duckdb.DuckDBPyConnection) -> str:
    """``all_hands()``: every hand of every game, whatever its game, with the columns the
    core counts by (``game``, ``game_id``, ``hand_no``, ``complete``, ``valid``, ``thrown_in``,
    ``fingerprint``: null for a game whose hands table keeps none)."""
    parts = [
        f"select '{t.schema}' as game, game_id, hand_no, complete, valid, thrown_in::varchar as thrown_in, "
        f"{_fingerprint_column(con, t)} as fingerprint "
        f"from {t.qualified(t.hands_table)}"
        for t in game_tables()
        if _has_schema(con, t.schema)
    ]
    parts.append(
        "select null::varchar, null::varchar, null::integer, null::boolean, null::boolean, null::varchar, "
        "null::varchar where false"
    )
    return "create or replace temp macro all_hands() as table " + " union all ".join(parts)


def _fingerprint_column(con: duckdb.DuckDBPyConnection, t: GameTables) -> str:
    """A game's hands table's ``fingerprint`` (its copies' key), or null when it keeps none."""
    has = scalar(
        con,
        "select count(*) from duckdb_columns() where schema_name = ? and table_name = ? "
        "and column_name = 'fingerprint'",
        [t.schema, t.hands_table],
    )
    return "fingerprint::varchar" if has else "null::varchar"


def connect(path: str | Path, *, read_only: bool, create: bool = True) -> duckdb.DuckDBPyConnection:
    """Open a warehouse; a writer also creates any missing table, a reader gets the query macros.
    A writer that does not ``create`` (``analyze``) refuses an empty database, as a reader does.

    Only one process may write a DuckDB file at a time: a second writer (or a
    reader while a writer works) gets a WarehouseError naming the holder.
    """
    import duckdb

    db = str(path)
    if is_pipe_or_device(db):
        # a FIFO: DuckDB would wait for a writer to open it, for good
        raise WarehouseError(f"{db}: not a file but a pipe, a device or a socket; --db names a DuckDB file")
    if Path(db).is_dir():
        if read_only:
            return _open_dataset(db)
        _refuse_to_write_a_dataset(db)
    if read_only and not Path(db).is_file():
        raise WarehouseError(f"{db}: no such database (create it with `tricklog load ... --db {db}`)")
    try:
        con = _attach(db, read_only)
    except duckdb.Error as e:
        if isinstance(e, duckdb.IOException) and _in_use(str(e)):
            raise DatabaseInUse(db, _holder(str(e))) from e
        raise WarehouseError(f"{db}: cannot open: {_first_line(str(e))}") from e
    try:
        _prepare(con, db, read_only, create)
    except BaseException:
        con.close()
        raise
    return con


#: The catalog a warehouse file is opened as.  DuckDB names a file's catalog
#: after the file, so that in ``euchre.duckdb`` the name ``euchre.hands`` was
#: ambiguous between that catalog and the game's schema, and the file could not be
#: loaded.  No game may be called this (``pipeline.games.RESERVED_NAMES``).
CATALOG = "tricklog"


def _attach(db: str, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A session on the DuckDB file ``db`` as the catalog :data:`CATALOG`.  Only a
    DuckDB file is opened (DuckDB would take a SQLite file for one to read with an
    extension, fetched from the network), and what a query spills goes beside it
    (``db.tmp``), as when DuckDB opens the file itself."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute(f"set temp_directory = {sql_literal(db + '.tmp')}")
        mode = ", read_only" if read_only else ""
        con.execute(f"attach {sql_literal(db)} as {CATALOG} (type duckdb{mode})")
        con.execute(f"use {CATALOG}")
    except BaseException:
        con.close()
        raise
    return con


def sql_literal(text: str) -> str:
    """``text`` as an SQL string literal (a path, where DuckDB takes no parameter).

    >>> sql_literal("it's.duckdb")
    "'it''s.duckdb'"
    """
    return "'" + text.replace("'", "''") + "'"


def _prepare(con: duckdb.DuckDBPyConnection, db: str, read_only: bool, create: bool = True) -> None:
    """Check the file is a warehouse of this version (before anything is written),
    then give a reader its macros and lock, a writer its tables."""
    import duckdb

    from pipeline.warehouse.meta import NotAWarehouse, check_warehouse, mark_warehouse

    try:
        new = check_warehouse(con, db)
    except duckdb.Error as e:
        raise NotAWarehouse(f"{db}: not a tricklog warehouse ({_first_line(str(e))})") from e
    if new and (read_only or not create):
        raise NotAWarehouse(
            f"{db}: an empty database (create the warehouse with `tricklog load ... --db {db}`)"
        )
    if read_only:
        install_query_macros(con)
        _lock_down(con)
    else:
        con.begin()
        con.execute(ddl_text())
        for tables in game_tables():
            con.execute(tables.ddl)
        mark_warehouse(con)
        con.commit()


def _refuse_to_write_a_dataset(folder: str) -> None:
    """A data set is written whole by ``load --engine dask`` alone: a command that
    writes into a warehouse (``load``, ``analyze``) is told so, not that DuckDB
    cannot read a folder."""
    from pipeline.warehouse.dask_engine import is_dataset

    if is_dataset(folder):
        raise WarehouseError(
            f"{folder}: a Parquet data set (load --engine dask), which is read-only here: "
            "this command writes into a DuckDB warehouse (`--db FILE`)"
        )


def _open_dataset(folder: str) -> duckdb.DuckDBPyConnection:
    """A Parquet data set written by ``load --engine dask``, read as a warehouse:
    an in-memory session of views, locked down with only that folder readable."""
    from pipeline.warehouse.dask_engine import MARKER, is_dataset, open_dataset
    from pipeline.warehouse.guard import lock_down

    if not is_dataset(folder):
        raise WarehouseError(
            f"{folder}: a folder, but not a tricklog data set (no {MARKER} holding a load's accounts)"
        )
    con = open_dataset(folder)
    install_query_macros(con)
    lock_down(con, [str(Path(folder).resolve()) + "/"])
    return con


def _lock_down(con: duckdb.DuckDBPyConnection) -> None:
    """A read-only session opens no file but the database, and loads no extension."""
    from pipeline.warehouse.guard import lock_down

    lock_down(con)


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: list[Any] | None = None) -> Any:
    """The single value of a one-row query, fetched to the end (a partly fetched
    result would block the connection in DuckDB 2)."""
    rows = con.execute(query, params).fetchall()
    return rows[0][0] if rows else None


def _in_use(message: str) -> bool:
    """Whether DuckDB refused to open a file because another process holds its lock."""
    return "lock" in message.lower()


def _holder(message: str) -> str:
    """`` (PID n)``, the process DuckDB says holds the lock, or nothing if it does not say."""
    pid = re.search(r"PID (\d+)", message)
    return f" (PID {pid.group(1)})" if pid else ""


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "unknown error"
