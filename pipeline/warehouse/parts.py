"""The part files of a Parquet data set, listed as its load completes and checked as it is opened.

A data set (``load --engine dask``) is a folder of Parquet parts that its
readers see through a glob a table.  Folders get copied part way (an
interrupted ``rsync``, a sync client still at work), files get cut short, and a
copy of a part left beside it is read twice by a glob: each would change every
count quietly.  The load therefore lists every part it wrote, with its size, in
``parts.parquet``; opening the data set compares the folder with that list and
refuses, naming the file, a part that is missing, of another size, or not the
load's.  A data set without the list (written before it, or by another engine)
is read as it is.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "games").mkdir()
>>> _ = (folder / "games" / "part-00000.parquet").write_bytes(b"PAR1...PAR1")
>>> write_parts(folder)
>>> check_parts(folder, ["games"])
>>> _ = (folder / "games" / "part-00000 (copy).parquet").write_bytes(b"PAR1...PAR1")
>>> check_parts(folder, ["games"])
Traceback (most recent call last):
...
pipeline.warehouse.parts.DamagedDataset: ...: games/part-00000 (copy).parquet is not one of the parts its load wrote; ...
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.warehouse.ddl import WarehouseError

if TYPE_CHECKING:
    import duckdb

#: The list of a data set's parts, at its root: a Parquet file of (``file``, ``bytes``).
PARTS = "parts.parquet"
#: Faults named at most in the error.
NAMED = 3


class DamagedDataset(WarehouseError):
    """A data set whose parts are not those its load wrote, or cannot be read."""


#: The sessions open on a data set (:func:`~pipeline.warehouse.dask_engine.open_dataset`):
#: its folder and the folders of its tables.
_OPEN: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, tuple[Path, list[str]]] = (
    weakref.WeakKeyDictionary()
)


def reads_dataset(con: duckdb.DuckDBPyConnection, folder: Path, tables: Iterable[str]) -> None:
    """Note that ``con`` reads the data set in ``folder`` (the ``tables``' folders under it)."""
    _OPEN[con] = (folder, sorted(tables))


def damaged_part(con: duckdb.DuckDBPyConnection, error: BaseException) -> DamagedDataset | None:
    """What a query on a data set that failed reading its rows (``error``) met: the
    part that cannot be read, named; None when ``con`` reads no data set, the error
    is the query's own (a name it does not know, a type), or it names its file.

    DuckDB names the file in some of its read errors but not all: a part whose
    footer was damaged at its size fails a query over the glob with
    ``TProtocolException: Invalid data`` alone.  The parts' footers are read first,
    then, only if they all read, their rows, a row group at a time.
    """
    import duckdb

    opened = _OPEN.get(con)
    if opened is None or ".parquet" in str(error):
        return None
    if isinstance(error, duckdb.Error) and type(error) not in (
        duckdb.Error,
        duckdb.IOException,
        duckdb.InvalidInputException,
    ):
        return None
    folder, tables = opened
    found = _unreadable(folder, tables)
    if found is None:
        return None
    name, why = found
    return DamagedDataset(
        f"{folder}: {name} cannot be read ({why}); copy the data set again whole, or load its inputs again"
    )


def _unreadable(folder: Path, tables: list[str]) -> tuple[str, str] | None:
    """The first part under ``tables`` whose footer, or else whose rows, cannot be read, and why."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = sorted(p for table in tables for p in (folder / table).glob("*.parquet"))
    for rows in (False, True):
        for path in parts:
            try:
                with pq.ParquetFile(path) as part:
                    for group in range(part.num_row_groups if rows else 0):
                        part.read_row_group(group)
            except (OSError, pa.ArrowException) as e:
                return path.relative_to(folder).as_posix(), str(e).strip()
    return None


def write_parts(folder: Path) -> None:
    """List every Parquet part under ``folder`` (the data set, complete but for this
    list) with its size, in ``folder / PARTS``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    found = sorted(_sizes(folder, folder.rglob("*.parquet")).items())
    schema = pa.schema([("file", pa.string()), ("bytes", pa.int64())])
    table = pa.table([[name for name, _ in found], [size for _, size in found]], schema=schema)
    pq.write_table(table, folder / PARTS)


def check_parts(folder: Path, tables: Iterable[str]) -> None:
    """Raise :class:`DamagedDataset` when the parts of the ``tables`` (folders under
    ``folder``) are not those :func:`write_parts` listed, at their sizes."""
    listed = _listed(folder)
    if listed is None:
        return
    folders = set(tables)
    wanted = {name: size for name, size in listed.items() if name.rpartition("/")[0] in folders}
    found = _sizes(folder, (p for table in folders for p in (folder / table).glob("*.parquet")))
    faults = [
        *(f"{name} is missing" for name in sorted(wanted.keys() - found.keys())),
        *(
            f"{name} is {found[name]:,} bytes where its load wrote {size:,}"
            for name, size in sorted(wanted.items())
            if name in found and found[name] != size
        ),
        *(f"{name} is not one of the parts its load wrote" for name in sorted(found.keys() - wanted.keys())),
    ]
    if faults:
        more = f" (and {len(faults) - NAMED} more)" if len(faults) > NAMED else ""
        raise DamagedDataset(
            f"{folder}: {'; '.join(faults[:NAMED])}{more}; copy the data set again whole, "
            "or load its inputs again (a part missing, cut short or added would change every count)"
        )


def _listed(folder: Path) -> dict[str, int] | None:
    """The parts ``folder / PARTS`` lists, with their sizes (None without a list)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / PARTS
    if not path.is_file():
        return None
    try:
        with pq.ParquetFile(path) as listing:  # not pq.read_table: its datasets import pandas
            table = listing.read()
    except (OSError, pa.ArrowException) as e:
        raise DamagedDataset(
            f"{folder}: its list of parts ({PARTS}) cannot be read ({e}); load it again"
        ) from e
    return dict(zip(table["file"].to_pylist(), table["bytes"].to_pylist(), strict=True))


def _sizes(folder: Path, paths: Iterable[Path]) -> dict[str, int]:
    """Each file's size, by its path under ``folder`` (``/``-separated)."""
    return {p.relative_to(folder).as_posix(): p.stat().st_size for p in paths if p.name != PARTS}
