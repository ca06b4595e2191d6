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

import contextlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import orjson

from pipeline.atomic import STDOUT, atomic_file, atomic_path, write_error
from pipeline.violations import TricklogError, failure
from pipeline.warehouse.ddl import WarehouseError
from pipeline.warehouse.guard import ALLOWED, QueryFailed, QueryRefused, check_statements, one_line
from pipeline.warehouse.json_rows import json_default, write_json

if TYPE_CHECKING:
    import duckdb
    import polars as pl
    import pyarrow as pa
    from duckdb.sqltypes import DuckDBPyType

FORMATS = ("table", "csv", "json", "parquet")
TABLE_ROWS = 1000
#: Rows of a result fetched and written at a time: a result of any size is
#: written in bounded memory (7.4 million rows of plays to CSV held 0.98 GB whole).
BATCH_ROWS = 100_000


__all__ = [
    "ALLOWED",
    "FORMATS",
    "QueryFailed",
    "QueryRefused",
    "check_read_only",
    "query_batches",
    "run_query",
    "write_batches",
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
    check_read_only(query)
    with _failures(con):
        frame: pl.DataFrame = _as_duckdb_text(con.sql(query, params=params)).pl()
    return frame


def query_batches(
    con: duckdb.DuckDBPyConnection, query: str, params: list[Any] | None = None, rows: int = BATCH_ROWS
) -> Iterator[pl.DataFrame]:
    """A checked read-only query's result streamed from DuckDB, ``rows`` at a time
    (never whole); one empty frame of its columns when it has no row."""
    import polars as pl

    check_read_only(query)
    with _failures(con):
        reader = _as_duckdb_text(con.sql(query, params=params)).to_arrow_reader(rows)
    with contextlib.closing(reader):  # a result left part way would block the connection
        empty = True
        try:
            for batch in read_batches(reader):
                empty = False
                yield cast("pl.DataFrame", pl.from_arrow(batch))
        except UnreadableRows as e:
            raise _failed(con, e.__cause__ or e) from e
        if empty:
            yield cast("pl.DataFrame", pl.from_arrow(reader.schema.empty_table()))


@contextlib.contextmanager
def _failures(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """A query that fails as it is run or handed over as :class:`QueryFailed`:
    DuckDB's error (:func:`_failed`), or a result Arrow cannot take (a value
    nested deeper than its 64 levels)."""
    import duckdb
    import pyarrow as pa

    try:
        yield
    except duckdb.Error as e:
        raise _failed(con, e) from e
    except pa.ArrowException as e:
        raise QueryFailed(f"the result cannot be read through Arrow: {one_line(str(e))}") from e


#: DuckDB types polars has no type for, or reads as something else (a BIT or a
#: BIGNUM as its bytes, a TIME WITH TIME ZONE without its offset).
TEXT_TYPES = ("interval", "union", "bit", "bignum", "time with time zone")


def _as_duckdb_text(result: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """The result with each column that holds a value of :data:`TEXT_TYPES` as
    DuckDB's text of it (``3 days 01:30:00``, ``101``): a query as plain as the
    span of the games' dates (an INTERVAL) failed to be written in any format."""
    kinds = result.types
    if not any(_holds_text_type(kind) for kind in kinds):
        return result
    columns = []
    for name, kind in zip(result.columns, kinds, strict=True):
        quoted = '"' + name.replace('"', '""') + '"'
        columns.append(f"cast({quoted} as varchar) as {quoted}" if _holds_text_type(kind) else quoted)
    return result.project(", ".join(columns))


def _holds_text_type(kind: DuckDBPyType) -> bool:
    if kind.id in TEXT_TYPES:
        return True
    nested = kind.id in ("list", "array", "struct", "map")
    return nested and any(
        _holds_text_type(child) for _, child in kind.children if not isinstance(child, int | list)
    )


class UnreadableRows(Exception):
    """A result's rows could not be read as they were fetched (a damaged file or part)."""


def read_batches(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """The reader's batches, an error in reading them raised as :class:`UnreadableRows`:
    DuckDB's reaches its reader as Arrow's ``OSError``, which a writer would take
    for its own (a full disk)."""
    import duckdb
    import pyarrow as pa

    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except (OSError, duckdb.Error, pa.ArrowException) as e:
            raise UnreadableRows(str(e)) from e
        yield batch


def _failed(con: duckdb.DuckDBPyConnection, error: BaseException) -> TricklogError:
    """A query that failed: the data set's part it could not read, else DuckDB's message."""
    from pipeline.warehouse.parts import damaged_part

    return damaged_part(con, error) or QueryFailed(one_line(str(error)), detail=str(error).strip())


def write_result(frame: pl.DataFrame, fmt: str, out: Path | None) -> None:
    """Write a result to ``out`` (stdout when None) as table, csv, json or parquet."""
    write_batches(iter([frame]), fmt, out)


def write_batches(frames: Iterator[pl.DataFrame], fmt: str, out: Path | None) -> None:
    """Write a result that comes a frame at a time (:func:`query_batches`) to ``out``
    (stdout when None) as table, csv, json or parquet, a frame at a time: a file is
    put in place once whole, and the table shows the first ``TABLE_ROWS``."""
    import polars as pl

    if fmt not in FORMATS:
        raise WarehouseError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    try:
        if out is not None and str(out) == STDOUT:
            out = None
        if fmt == "parquet":
            if out is None:
                raise WarehouseError("--format parquet needs an output file: -o FILE.parquet")
            with atomic_path(out) as temp:
                _parquet(frames, temp)
        elif out is None:
            _to_stdout(frames, fmt)
        else:
            with atomic_file(out) as stream:  # written aside, renamed into place when whole
                _write_text(frames, fmt, stream)
    except pl.exceptions.PolarsError as e:
        raise WarehouseError(f"cannot write this result as {fmt}: {one_line(str(e))}") from e
    # a BaseException: polars failed inside itself (on an 'infinity'::timestamp, say)
    except pl.exceptions.PanicException as e:
        raise WarehouseError(
            f"cannot write this result as {fmt}: polars failed on one of its values ({one_line(str(e))}); "
            "a date or timestamp out of its range, such as 'infinity', is one: cast it to text in the query"
        ) from e


def _to_stdout(frames: Iterator[pl.DataFrame], fmt: str) -> None:
    try:
        _write_text(frames, fmt, sys.stdout.buffer)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise write_error("stdout", e) from e


def _parquet(frames: Iterator[pl.DataFrame], path: Path) -> None:
    """Write Parquet as polars does (zstd), a frame at a time; a failed write (a full
    disk) is the OSError it is, not a format error."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer: pq.ParquetWriter | None = None
    try:
        for frame in frames:
            table = frame.to_arrow()
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table.cast(writer.schema))
    except pa.ArrowException as e:
        raise OSError(one_line(str(e))) from e
    finally:
        if writer is not None:
            writer.close()


def _write_text(frames: Iterator[pl.DataFrame], fmt: str, stream: IO[bytes]) -> None:
    if fmt == "csv":
        for number, frame in enumerate(frames):
            stream.write(_flat(frame).write_csv(include_header=number == 0).encode())
    elif fmt == "json":
        write_json(frames, stream)
    else:
        stream.write(_table_text(frames).encode())


def _table_text(frames: Iterator[pl.DataFrame]) -> str:
    """The first ``TABLE_ROWS`` rows as a table, and how many there are in all."""
    import polars as pl

    shown: list[pl.DataFrame] = []
    kept = total = 0
    for frame in frames:
        total += frame.height
        if kept < TABLE_ROWS or not shown:
            shown.append(frame.head(TABLE_ROWS - kept))
            kept += shown[-1].height
    return render_table(pl.concat(shown), total=total)


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Nested columns (lists, structs) as JSON text, for CSV."""
    import polars as pl

    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    return _blobs_as_text(
        frame.with_columns(
            pl.Series(
                name,
                [
                    None if v is None else orjson.dumps(v, default=json_default).decode()
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


def render_table(frame: pl.DataFrame, limit: int = TABLE_ROWS, total: int | None = None) -> str:
    """A result as a rich text table (at most ``limit`` rows, then a note of its
    ``total`` rows, by default the frame's).  Names and values are shown as they
    are: as rich markup, ``[bot] Ann`` lost its ``[bot]`` and a ``[/x]`` stopped the
    command with a traceback; a character that is not printable (ESC, which the
    terminal would obey, a line break) is shown as its escape."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from pipeline.streams import terminal_text

    table = Table(show_lines=False)
    for name in frame.columns:
        table.add_column(Text(terminal_text(name)))
    for row in frame.head(limit).iter_rows():
        table.add_row(*(Text("" if v is None else terminal_text(str(v))) for v in row))
    console = Console(record=True, width=max(80, min(250, 12 * len(frame.columns))), file=io.StringIO())
    console.print(table)
    total = frame.height if total is None else total
    shown = min(limit, frame.height)
    note = f"{total} row(s)" + (f", first {shown} shown (use --format csv)" if shown < total else "")
    console.print(note)
    return console.export_text()
