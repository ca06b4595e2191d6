"""Read-only SQL over the warehouse, and its output formats.

Three locks keep a query from changing anything: the database is opened with
``read_only=True``, the session is locked down (no file but the database, no
extensions: :func:`pipeline.warehouse.guard.lock_down`), and the statement is
parsed by DuckDB first and refused unless it is a query, the one inside an
``EXPLAIN`` too (a read-only connection still allows ``ATTACH``,
``COPY ... TO``, ``SET``, ``INSTALL``, ...).

>>> check_read_only("select 1")
>>> check_read_only("drop table games")
Traceback (most recent call last):
...
pipeline.warehouse.guard.QueryRefused: refused: DROP statement; the warehouse is read-only here (only SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from pipeline.atomic import atomic_file, atomic_path, write_error
from pipeline.violations import failure
from pipeline.warehouse.ddl import WarehouseError
from pipeline.warehouse.guard import ALLOWED, QueryFailed, QueryRefused, check_statements, one_line

if TYPE_CHECKING:
    import duckdb
    import polars as pl

FORMATS = ("table", "csv", "json", "parquet")
TABLE_ROWS = 1000


__all__ = [
    "ALLOWED",
    "FORMATS",
    "QueryFailed",
    "QueryRefused",
    "check_read_only",
    "run_query",
    "write_result",
]


def query_text(query: str) -> str:
    """The SQL to run: the argument itself, or the text of the ``.sql`` file it names.
    A name ending in ``.sql`` that is no file is an error, not SQL for DuckDB to fail
    to parse, unless it has spaces, as every statement does."""
    if not query.endswith(".sql") or "\n" in query:
        return query
    path = Path(query)
    if not path.exists():
        if any(c.isspace() for c in query):
            return query
        raise WarehouseError(f"{query}: no such file (give a .sql file, or one SQL statement)")
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise WarehouseError(f"{query}: cannot read: {failure(e)}") from e
    except UnicodeDecodeError as e:
        raise WarehouseError(f"{query}: cannot read: {e}") from e


def check_read_only(query: str) -> None:
    """Refuse anything but one read-only query, using DuckDB's own parser."""
    check_statements(query)


def run_query(con: duckdb.DuckDBPyConnection, query: str, params: list[Any] | None = None) -> pl.DataFrame:
    """A checked read-only query's whole result as a polars frame (fully fetched)."""
    import duckdb

    from pipeline.warehouse.parts import damaged_part

    check_read_only(query)
    try:
        frame: pl.DataFrame = con.sql(query, params=params).pl()
    except duckdb.Error as e:
        raise damaged_part(con, e) or QueryFailed(one_line(str(e)), detail=str(e).strip()) from e
    return frame


def write_result(frame: pl.DataFrame, fmt: str, out: Path | None) -> None:
    """Write a result to ``out`` (stdout when None) as table, csv, json or parquet."""
    import polars as pl

    try:
        _write_result(frame, fmt, out)
    except pl.exceptions.PolarsError as e:
        raise WarehouseError(f"cannot write this result as {fmt}: {one_line(str(e))}") from e


def _write_result(frame: pl.DataFrame, fmt: str, out: Path | None) -> None:
    if fmt not in FORMATS:
        raise WarehouseError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "parquet":
        if out is None:
            raise WarehouseError("--format parquet needs an output file: -o FILE.parquet")
        with atomic_path(out) as temp:
            _parquet(frame, temp)
        return
    if out is None:
        try:
            _write_text(frame, fmt, sys.stdout.buffer)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise write_error("stdout", e) from e
        return
    with atomic_file(out) as stream:  # written aside, renamed into place when whole
        _write_text(frame, fmt, stream)


def _parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write Parquet; a failed write (a full disk) is the OSError it is, not a format error."""
    import polars as pl

    try:
        frame.write_parquet(path)
    except pl.exceptions.PolarsError as e:
        raise OSError(f"{one_line(str(e))}") from e


def _write_text(frame: pl.DataFrame, fmt: str, stream: IO[bytes]) -> None:
    if fmt == "csv":
        stream.write(_flat(frame).write_csv().encode())
    elif fmt == "json":
        stream.write(
            orjson.dumps(frame.to_dicts(), default=_json_default, option=orjson.OPT_INDENT_2) + b"\n"
        )
    else:
        stream.write(render_table(frame).encode())


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Nested columns (lists, structs) as JSON text, for CSV."""
    import polars as pl

    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    return _blobs_as_text(
        frame.with_columns(
            pl.Series(
                name,
                [
                    None if v is None else orjson.dumps(v, default=_json_default).decode()
                    for v in frame[name].to_list()
                ],
            )
            for name in nested
        )
    )


def _blobs_as_text(frame: pl.DataFrame) -> pl.DataFrame:
    """Binary columns (blobs) as text, for CSV: UTF-8, other bytes as ``\\xNN`` escapes."""
    import polars as pl

    blobs = [name for name, dtype in frame.schema.items() if dtype == pl.Binary]
    return frame.with_columns(
        pl.Series(name, [_blob_text(v) for v in frame[name].to_list()], dtype=pl.String) for name in blobs
    )


def _blob_text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", errors="backslashreplace")


def _json_default(value: object) -> object:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def render_table(frame: pl.DataFrame, limit: int = TABLE_ROWS) -> str:
    """A result as a rich text table (at most ``limit`` rows, then a note).  Names and
    values are shown as they are: as rich markup, ``[bot] Ann`` lost its ``[bot]``
    and a ``[/x]`` stopped the command with a traceback."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False)
    for name in frame.columns:
        table.add_column(Text(name))
    for row in frame.head(limit).iter_rows():
        table.add_row(*(Text("" if v is None else str(v)) for v in row))
    console = Console(record=True, width=max(80, min(250, 12 * len(frame.columns))), file=io.StringIO())
    console.print(table)
    shown = min(limit, frame.height)
    note = f"{frame.height} row(s)" + (
        f", first {shown} shown (use --format csv)" if shown < frame.height else ""
    )
    console.print(note)
    return console.export_text()
