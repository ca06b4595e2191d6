"""Exporting the warehouse as Parquet, one folder per table.

``DIR/<table>/part-0.parquet`` for every core table and
``DIR/<game>/<table>/part-0.parquet`` for each game's; a game's big tables
(Euchre's ``hands`` and ``plays``) are partitioned by the game's source, Hive
style (``DIR/euchre/hands/source=<s>/...``, ``unknown`` when the record had none;
a source too long for a file name by its beginning and a hash: :data:`PARTITION_SOURCE`),
so DuckDB, polars and Spark read them alike.  JSON columns are written as text (Spark cannot read Parquet's JSON
type).  Results are streamed from DuckDB through Arrow record batches.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.atomic import replace_folder
from pipeline.violations import failure
from pipeline.warehouse.ddl import DEFAULT_DB, WarehouseError, connect, game_tables, scalar
from pipeline.warehouse.guard import one_line
from pipeline.warehouse.parts import damaged_part
from pipeline.warehouse.query import UnreadableRows, read_batches

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

#: The core tables' queries (text for JSON columns).
CORE_EXPORTS: dict[str, str] = {
    "games": "select * replace (rules::varchar as rules, extra::varchar as extra) from games",
    "violations": "select * from violations",
    "quarantine": "select * from quarantine",
    "ingest_runs": "select * from ingest_runs",
    "player_names": "select * from player_names",
}

#: Core tables a warehouse may not have (a Dask data set stores no players file).
OPTIONAL = frozenset({"player_names"})


#: A game's source as its partition's folder name: the source itself, or, when
#: its escaped name could pass the 255 bytes a file name may have (the source is
#: free text: a URL, a sentence), its first 16 characters, ``~`` and a hash of it.
#: ``games.source`` keeps it whole.
PARTITION_SOURCE = """case
    when g.source is null then 'unknown'
    when octet_length(encode(g.source)) * 3 > 180 then left(g.source, 16) || '~' || left(sha256(g.source), 16)
    else g.source
end"""


@dataclass(frozen=True, slots=True)
class Export:
    """One table as exported: its folder under the export, its query, partitioned by source or not."""

    folder: str
    table: str
    query: str
    partitioned: bool = False


def exports() -> list[Export]:
    """Every table of the warehouse: the core's in ``DIR/<table>``, each game's in ``DIR/<game>/<table>``."""
    out = [Export(table, table, query) for table, query in CORE_EXPORTS.items()]
    for tables in game_tables():
        for table in tables.models:
            name = tables.qualified(table)
            if table in tables.partitioned:
                query = f"select t.*, {PARTITION_SOURCE} as source from {name} t join main.games g using (game_id)"
                out.append(Export(f"{tables.schema}/{table}", name, query, partitioned=True))
            else:
                out.append(Export(f"{tables.schema}/{table}", name, f"select * from {name}"))
    return out


#: The file that marks a folder as an export (so the next export may replace it).
EXPORT_MARKER = ".tricklog-export"


def export_parquet(db: str | Path = DEFAULT_DB, directory: str | Path = "parquet") -> dict[str, int]:
    """Write every table under ``directory``; returns the rows written per table."""
    import duckdb

    out = Path(directory)
    con = connect(db, read_only=True)
    counts: dict[str, int] = {}
    table = ""
    try:
        # written aside, then put in place whole; only a folder an earlier export wrote is replaced
        with replace_folder(out, EXPORT_MARKER) as folder:
            for export in exports():
                table = export.table
                if table in OPTIONAL and not _has_table(con, table):
                    continue
                counts[table] = int(scalar(con, f"select count(*) from {table}"))
                _write_table(
                    con.sql(export.query).to_arrow_reader(), folder / export.folder, export.partitioned
                )
    except OSError as e:
        raise WarehouseError(f"{out}: cannot write: {failure(e)}") from e
    except (duckdb.Error, UnreadableRows) as e:  # a damaged file or part, found as its rows are read
        damaged = damaged_part(con, e.__cause__ if isinstance(e, UnreadableRows) and e.__cause__ else e)
        what = str(damaged) if damaged else f"{db}: cannot read {table}: {one_line(str(e))}"
        raise WarehouseError(f"{what}; {out} is left as it was") from e
    finally:
        con.close()
    return counts


def _has_table(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return bool(
        scalar(con, "select count(*) from duckdb_tables() where table_name = ? and not temporary", [table])
        or scalar(con, "select count(*) from duckdb_views() where view_name = ? and not temporary", [table])
    )


def _write_table(reader: pa.RecordBatchReader, target: Path, partitioned: bool) -> None:
    """One table's rows as a Parquet dataset; an empty table still gets a file (its schema)."""
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    _clear(target)
    ds.write_dataset(
        pa.RecordBatchReader.from_batches(reader.schema, read_batches(reader)),
        target,
        format="parquet",
        basename_template="part-{i}.parquet",
        partitioning=["source"] if partitioned else None,
        partitioning_flavor="hive" if partitioned else None,
        existing_data_behavior="overwrite_or_ignore",
    )
    if not target.is_dir() or not any(target.rglob("*.parquet")):
        target.mkdir(parents=True, exist_ok=True)
        schema = reader.schema
        if partitioned:
            schema = schema.remove(schema.get_field_index("source"))
        pq.write_table(schema.empty_table(), target / "part-0.parquet")


def _clear(target: Path) -> None:
    """Remove a previous export of one table (only that table's folder)."""
    if target.is_dir():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
