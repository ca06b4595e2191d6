"""Preparing a load on several processes: workers parse JSON Lines, hash and
replay each game and build its rows as Arrow tables (one set per chunk, every
row tagged with its line); the loader routes the lines in input order (already
present, quarantine or games) exactly as it does on its own, and keeps the
rows of the lines it loads.  No per-row Python object crosses processes."""

from __future__ import annotations

from collections.abc import Container, Iterator
from functools import partial
from typing import TYPE_CHECKING

from pipeline.parallel import chunks_with_fast_path, worth_spreading

if TYPE_CHECKING:
    import pyarrow as pa

    from pipeline.warehouse.dask_engine import LineFact
    from pipeline.warehouse.known import KnownIdSet
    from pipeline.warehouse.load import InputFile

#: Game ids the warehouse held when the workers were started: their lines are
#: only hashed, not replayed (the loader counts them already present, or
#: quarantines them).  Each worker gets it once, when it starts.
_KNOWN: Container[str] = frozenset()

#: Chunks in flight per worker: 4,000 lines.  The loader stops taking results
#: while it commits a batch, and the workers go on until that many are waiting;
#: in chunks of 1,000 lines (``CHUNK_LINES``) two were too few to cover a commit
#: (a 200 MB load took 25 to 28 s against 18).  Each result is a chunk's rows
#: (about 10 MB of the benchmark's games, :func:`compact`); with four of 1,000 lines
#: rather than two of 2,000 a 200 MB load's processes peaked at 1,181-1,188 MB
#: together against 1,313-1,323, at the same speed.
LOAD_AHEAD = 4

Chunk = list[tuple[int, bytes]]


def _know(known: Container[str]) -> None:
    global _KNOWN
    _KNOWN = known


def prepared_chunks(
    file: InputFile, run_id: int, jobs: int, known: KnownIdSet
) -> Iterator[tuple[Chunk, list[LineFact], dict[str, pa.Table]]]:
    """Each chunk of lines of ``file`` with its facts and tagged Arrow rows, in order,
    prepared by ``jobs`` workers, or in this process (:func:`worth_spreading`).

    The workers are not forked from the loader, which holds an open DuckDB
    connection: they start from a fresh server process (``forkserver``, or
    ``spawn`` where there is none)."""

    def here(task: tuple[Chunk, bool]) -> tuple[list[LineFact], dict[str, pa.Table]]:
        from pipeline.warehouse.dask_engine import prepare_lines

        return prepare_lines(file, task[0], run_id, known, task[1])

    done = worth_spreading(
        chunks_with_fast_path(file.path),
        partial(_prepare_chunk, file, run_id),
        jobs,
        here=here,
        fresh=True,
        setup=(_know, (known,)),
        ahead=LOAD_AHEAD,
    )
    for (chunk, _), (facts, tables) in done:
        yield chunk, facts, tables


def _prepare_chunk(
    file: InputFile, run_id: int, task: tuple[Chunk, bool]
) -> tuple[list[LineFact], dict[str, pa.Table]]:
    from pipeline.warehouse.dask_engine import prepare_lines

    chunk, fast_path = task
    facts, tables = prepare_lines(file, chunk, run_id, _KNOWN, fast_path)
    return facts, {table: compact(data) for table, data in tables.items()}


def compact(data: pa.Table) -> pa.Table:
    """The same rows with their text columns dictionary-encoded, for the trip to the
    loader: a chunk's rows repeat their game's id and a few dozen card and call
    names, so they cross in some 40% fewer bytes (31 MB a chunk of the benchmark's
    games, 19 MB so), and DuckDB appends them with some 10% less work.  DuckDB
    stores the text as before."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = [
        pc.dictionary_encode(column)
        if pa.types.is_large_string(column.type) or pa.types.is_string(column.type)
        else column
        for column in data.columns
    ]
    return pa.table(columns, names=data.column_names)
