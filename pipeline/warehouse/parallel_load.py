"""Preparing a load on several processes: workers parse JSON Lines, hash and
replay each game and build its rows as Arrow tables (one set per chunk, every
row tagged with its line); the loader routes the lines in input order (already
present, quarantine or games) exactly as it does on its own, and keeps the
rows of the lines it loads.  No per-row Python object crosses processes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Container, Generator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from pipeline.atomic import scratch_error
from pipeline.parallel import chunks_with_fast_path, worth_spreading

if TYPE_CHECKING:
    import pyarrow as pa

    from pipeline.warehouse.known import KnownIdSet
    from pipeline.warehouse.load import InputFile
    from pipeline.warehouse.routing import LineFact

#: Game ids the warehouse held when the workers were started: their lines are
#: only hashed, not replayed (the loader counts them already present, or
#: quarantines them).  Each worker gets it once, when it starts.
_KNOWN: Container[str] = frozenset()

#: Chunks in flight per worker: 4,000 lines.  The loader stops taking results
#: while it commits a batch, and the workers go on until that many are waiting;
#: in chunks of 1,000 lines (``CHUNK_LINES``) two were too few to cover a commit
#: (a 200 MB load took 25 to 28 s against 18).  Each result is a chunk's rows
#: (about 7 MB of the benchmark's games, :func:`compact`), waiting in a file
#: (:class:`RowsFile`), not in the loader's memory.
LOAD_AHEAD = 4

Chunk = list[tuple[int, bytes]]
#: A chunk's rows: built here, or by a worker (in a file).
ChunkRows: TypeAlias = "dict[str, pa.Table] | RowsFile"
#: Chunks of lines, each with its facts and its rows.
PreparedChunks = Generator[tuple[Chunk, list["LineFact"], dict[str, "pa.Table"]], None, None]


def _know(known: Container[str]) -> None:
    global _KNOWN
    _KNOWN = known


def prepared_chunks(
    file: InputFile, run_id: int, jobs: int, known: KnownIdSet, spool: Path
) -> PreparedChunks:
    """Each chunk of lines of ``file`` with its facts and tagged Arrow rows, in order,
    prepared by ``jobs`` workers, or in this process (:func:`worth_spreading`).
    The workers' rows wait in files of the folder ``spool`` (:class:`RowsFile`).

    The workers are not forked from the loader, which holds an open DuckDB
    connection: they start from a fresh server process (``forkserver``, or
    ``spawn`` where there is none)."""

    def here(task: tuple[Chunk, bool]) -> tuple[list[LineFact], ChunkRows]:
        from pipeline.warehouse.dask_engine import prepare_lines

        return prepare_lines(file, task[0], run_id, known, task[1])

    done = worth_spreading(
        chunks_with_fast_path(file.path, file.size),
        partial(_prepare_chunk, file, run_id, str(spool)),
        jobs,
        here=here,
        fresh=True,
        setup=(_know, (known,)),
        ahead=LOAD_AHEAD,
    )
    for (chunk, _), (facts, tables) in done:
        yield chunk, facts, tables.read() if isinstance(tables, RowsFile) else tables


def _prepare_chunk(
    file: InputFile, run_id: int, spool: str, task: tuple[Chunk, bool]
) -> tuple[list[LineFact], ChunkRows]:
    from pipeline.warehouse.dask_engine import prepare_lines

    chunk, fast_path = task
    facts, tables = prepare_lines(file, chunk, run_id, _KNOWN, fast_path)
    return facts, RowsFile.write({table: compact(data) for table, data in tables.items()}, spool)


@dataclass(frozen=True, slots=True)
class RowsFile:
    """A chunk's rows, written by a worker to a file of the load's temporary folder:
    each table an Arrow IPC stream, at ``spans[table]`` (offset, length).

    Sent back through the pool, the rows of the chunks done while the loader
    commits a batch waited in its memory, as many as the workers had done: a
    200 MB load's process peaked at 436 to 476 MiB a batch, 100 MiB of it the
    waiting rows.  In a file, they wait on disk (or in the page cache, which
    the system takes back as it needs); the loader maps a file as it takes the
    chunk, and unlinks it at once (the mapping lives on until its rows are
    dropped)."""

    path: str
    spans: dict[str, tuple[int, int]]

    @classmethod
    def write(cls, tables: dict[str, pa.Table], folder: str) -> RowsFile:
        import pyarrow as pa

        spans: dict[str, tuple[int, int]] = {}
        path = None
        try:
            handle, path = tempfile.mkstemp(".arrows", "rows-", folder)
            os.close(handle)
            with pa.OSFile(path, "wb") as sink:
                for table, rows in tables.items():
                    start = sink.tell()
                    with pa.ipc.new_stream(sink, rows.schema) as writer:
                        writer.write_table(rows)
                    spans[table] = (start, sink.tell() - start)
        except BaseException as e:
            if path is not None:
                with contextlib.suppress(OSError):  # its folder gone: the load ended meanwhile
                    os.unlink(path)
            if isinstance(e, OSError):
                raise scratch_error("the rows the workers built", folder, e) from None
            raise
        return cls(path, spans)

    def read(self) -> dict[str, pa.Table]:
        """The tables, mapped from the file (not copied), which is unlinked."""
        import pyarrow as pa

        try:
            whole = pa.memory_map(self.path).read_buffer()
        finally:
            os.unlink(self.path)
        return {
            table: pa.ipc.open_stream(whole.slice(start, length)).read_all()
            for table, (start, length) in self.spans.items()
        }


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
