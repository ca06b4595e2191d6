"""The warehouse from Python: what notebooks use, and what the CLI calls.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "g.jsonl").write_text('[1, 2]\\n')
>>> summary = load([str(folder / "g.jsonl")], folder / "w.duckdb")
>>> summary.quarantined, summary.accounted
(1, True)
>>> with Warehouse.open(folder / "w.duckdb") as wh:
...     wh.table("quarantine")["code"].to_list(), wh.sql("select count(*) as n from games")["n"][0]
(['malformed_json'], 0)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pipeline.warehouse.ddl import DEFAULT_DB, WarehouseError, connect
from pipeline.warehouse.export import export_parquet
from pipeline.warehouse.load import LoadSummary, load
from pipeline.warehouse.meta import META_TABLE
from pipeline.warehouse.query import query_batches, run_query

if TYPE_CHECKING:
    import duckdb
    import polars as pl

__all__ = ["DEFAULT_DB", "LoadSummary", "Warehouse", "export_parquet", "load"]


class Warehouse:
    """A read-only view of a warehouse file: tables and queries as polars frames."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path) -> None:
        self.con = con
        self.path = path

    @classmethod
    def open(cls, path: str | Path = DEFAULT_DB) -> Warehouse:
        """Open an existing warehouse read-only (load with :func:`load`)."""
        return cls(connect(path, read_only=True), Path(path))

    def tables(self) -> list[str]:
        """The names of the tables and views in the warehouse: the core's (``games``, ...), then
        each game's qualified by its schema (``euchre.hands``, ...); not tricklog's own
        bookkeeping (``tricklog_meta``)."""
        rows = self.con.execute(
            "select if(table_schema = 'main', table_name, table_schema || '.' || table_name) "
            "from information_schema.tables where table_catalog = current_database() and table_name <> ? "
            "order by table_schema != 'main', table_schema, table_name",
            [META_TABLE],
        ).fetchall()
        return [str(r[0]) for r in rows]

    def table(self, name: str) -> pl.DataFrame:
        """A whole table (or view) as a polars frame."""
        if name not in self.tables():
            raise WarehouseError(f"no table {name!r} (tables: {', '.join(self.tables())})")
        frame: pl.DataFrame = self.con.table(name).pl()
        return frame

    def sql(self, query: str, params: list[Any] | None = None) -> pl.DataFrame:
        """A read-only query's result; values go in as ``?`` parameters."""
        return run_query(self.con, query, params)

    def sql_batches(self, query: str, params: list[Any] | None = None) -> Iterator[pl.DataFrame]:
        """A read-only query's result a frame of rows at a time, for results larger
        than memory (``tricklog sql`` writes them so); read it to its end, or close it."""
        return query_batches(self.con, query, params)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
