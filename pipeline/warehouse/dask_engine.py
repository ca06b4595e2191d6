"""``tricklog load --engine dask``: the load as a partitioned Parquet data set, on Dask.

The unit of work is one pure function, :func:`prepare_split`: a byte range of a
JSON Lines input -> Arrow tables (the warehouse's own tables, each row tagged
with the input line it came from, ``_line``) and the small per-line facts the
accounting needs, as columns (:class:`~pipeline.warehouse.routing.Facts`).  Any
engine that can call a function on a split can run it (docs/scale-out.md shows
Spark's ``mapInArrow`` and Ray).

A load is three steps:

1. **Split** each input into byte ranges (``split_bytes``); a compressed input
   is one split.  The client sends each split as soon as it has counted the
   newlines before its start, so every line keeps its number in its file; one
   pass over the inputs hashes them and counts their newlines
   (:class:`InputReading`, :func:`numbered_as_read`).
2. **Prepare** (workers, in parallel): parse, hash and replay every line of a
   split, and build its rows, exactly as the single-machine load does
   (:func:`pipeline.warehouse.prepare.replay_for_load`).
3. **Route** (the client, over the small facts, in input order): the same rules
   as ``load`` into an empty warehouse -- the first line of a ``game_id`` is
   loaded; a later one is already present (same content) or quarantined as a
   ``duplicate_game``; lines that are no game are quarantined, once: the same
   line again at the same line number (a file given twice) is already present.  Then each
   worker drops the rows of the lines not loaded, gives the quarantined ones
   their file's hash, and writes its split's Parquet files, one per table.

The data set (``DIR/<table>/part-NNNNN.parquet``, a game's tables under
``DIR/<game>/<table>/``, with ``ingest_runs`` and ``load.json``) is written
into a fresh folder beside ``DIR`` (``.DIR.tmp-PID-*``) and moved into place at
the end: a load that fails leaves no half data set, and what a killed one left
there the next load into ``DIR`` removes.  ``tricklog sql``, ``report`` and
``export`` read it like a DuckDB file (:func:`open_dataset`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import threading
import uuid
import weakref
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import accumulate, count
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pipeline.atomic import fresh_beside, temp_beside
from pipeline.cores import usable_cores
from pipeline.forkserver import WORKER_ENV, start_fresh_server
from pipeline.parallel import (
    TRIM_EVERY,
    collector_paused,
    leave_interrupts_to_the_caller,
    release_freed_memory,
)
from pipeline.sources import COMPRESSED, MAX_LINE_BYTES, SourceItem, parse_line
from pipeline.violations import Violation, failure
from pipeline.warehouse.ddl import WarehouseError, ddl_text, game_tables, sql_literal, table_models
from pipeline.warehouse.guard import one_line
from pipeline.warehouse.load import (
    NEWLINE_BLOCK,
    VERSION,
    InputFile,
    LoadSummary,
    _violation,
    read_errors,
    read_through,
)
from pipeline.warehouse.parts import PARTS, DamagedDataset, check_parts, reads_dataset, write_parts
from pipeline.warehouse.prepare import (
    ClearedBatch,
    ClearedLineBatch,
    clear_in_bulk,
    clear_lines_in_bulk,
    cleared_game_rows,
    misfit_message,
    prepare,
    replay_for_load,
)
from pipeline.warehouse.routing import Facts, LineFact, Router, Routing
from pipeline.warehouse.tables import LINE, Batch, arrow_rows, arrow_schema

if TYPE_CHECKING:
    import duckdb
    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa

    from pipeline.games import Replay

    Ints = npt.NDArray[np.int64]

#: The file that marks a folder as a tricklog data set (and holds the load's accounting).
MARKER = "load.json"
#: Bytes of input per split, at most; a smaller input is cut in eight splits per
#: worker (at least ``MIN_SPLIT_BYTES`` each), so that every worker has work.
SPLIT_BYTES = 12 << 20
MIN_SPLIT_BYTES = 1 << 20
#: Bytes of a split's lines prepared at once (:func:`prepared_pieces`).  A worker's
#: memory rises by about 10 MB an MB prepared at once, and falls back after:
#: staging 12 MB splits whole, a process peaked at 407-417 MiB (555-564 at 24 MB)
#: against 293 MiB when splits were 3 MB, and a load's workers at 328-343 MiB
#: against 224-238 piece by piece.
PIECE_BYTES = 2 << 20
#: Rows of a table gathered from the pieces before they are written as one row
#: group of its part file (about DuckDB's own row groups, 122,880 rows).
ROW_GROUP_ROWS = 1 << 17
#: The SHA-256 of an input not hashed yet (:func:`sized_inputs`): the
#: quarantine rows of a split staged before its file's hash was known carry it
#: until :func:`finish_split` gives them the hash (64 hex digits, as the column's check asks).
UNHASHED = "0" * 64
#: The table whose rows name their file's hash.
QUARANTINE = "quarantine"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Split:
    """Lines of one input whose first byte lies in ``[start, end)`` (``end`` -1: to the end)."""

    index: int
    file: InputFile
    start: int
    end: int
    #: The number of the split's first physical line in its file.
    first_line: int = 1
    #: The longest line read whole (``--max-line-bytes``); a longer one is a ``line_too_long``.
    max_line_bytes: int = MAX_LINE_BYTES


@dataclass(slots=True)
class PreparedSplit:
    """A split made ready: each table's rows (with ``_line``) as Arrow, and the facts."""

    split: Split
    tables: dict[str, pa.Table]
    facts: Facts


# --------------------------------------------------------------------------
# Splitting and reading a split


def splits_of(
    files: Sequence[InputFile],
    split_bytes: int = SPLIT_BYTES,
    workers: int = 1,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> list[Split]:
    """Byte ranges of the inputs, each starting where a block of ``NEWLINE_BLOCK`` bytes
    does, of ``split_bytes`` at most (rounded up to whole blocks); line numbers not yet
    known: see :func:`numbered`.  Near the end they get smaller: a split is at most
    the input left from its start shared among the ``workers`` (guided scheduling,
    down to ``MIN_SPLIT_BYTES``), so that the workers run out of work about together,
    rather than one waiting for another's last full split.  Each reads lines of
    ``max_line_bytes`` at most whole (``--max-line-bytes``)."""
    split_bytes = _whole_blocks(split_bytes)
    left = sum(file.size for file in files)
    out: list[Split] = []
    for file in files:
        start = 0
        while True:  # one split at least, were the file empty
            size = min(split_bytes, max(_whole_blocks(left // workers), _whole_blocks(MIN_SPLIT_BYTES)))
            if file.path.endswith(COMPRESSED) or file.size - start <= size:
                out.append(Split(len(out), file, start, -1, max_line_bytes=max_line_bytes))
                left -= file.size - start
                break
            out.append(Split(len(out), file, start, start + size, max_line_bytes=max_line_bytes))
            start += size
            left -= size
    return out


def _whole_blocks(size: int) -> int:
    """``size`` rounded up to whole ``NEWLINE_BLOCK`` blocks (one at least)."""
    return max(1, -(-size // NEWLINE_BLOCK)) * NEWLINE_BLOCK


def hashed_inputs(paths: Sequence[str]) -> tuple[list[InputFile], dict[str, list[int]]]:
    """Each input hashed, and the newlines of each ``NEWLINE_BLOCK`` bytes of the
    uncompressed ones, counted in the same pass, by path (workers may run elsewhere,
    in another folder: paths are absolute, names stay as given)."""
    reading = InputReading(sized_inputs(paths))
    files = reading.read()
    return files, {file.path: list(reading.counts.get(file.path, [])) for file in files}


def sized_inputs(paths: Sequence[str]) -> list[InputFile]:
    """Each input with its size, checked as :func:`hashed_inputs` checks it, but
    neither read nor hashed yet (``UNHASHED``): :class:`InputReading` hashes it and
    counts its newlines while the splits are sent (:func:`numbered_as_read`)."""
    from pipeline.sources import open_binary

    refuse_streams(paths)
    files = []
    for name in paths:
        path = os.path.abspath(name)
        with read_errors(name):
            open_binary(path).close()  # the same checks and messages as validate
            size = os.stat(path).st_size
        files.append(InputFile(name, path, UNHASHED, size))
    return files


class InputReading:
    """The inputs read once, on a thread of their own (:meth:`read`): each hashed, and
    the newlines of each ``NEWLINE_BLOCK`` bytes of the uncompressed ones counted as
    the read goes on, so that :func:`numbered_as_read` numbers a split as soon as
    the count has passed its start.  One pass over the inputs, one read buffer:
    before, the client counted the newlines in a pass and a buffer of its own,
    while another thread hashed them (two reads of every input; on 2 GB, both
    buffers and the cluster's first tasks were in memory at once)."""

    def __init__(self, files: Sequence[InputFile]) -> None:
        self.files = list(files)
        self.progress = threading.Condition()
        #: The newlines of each block of each path, as read (a path given twice is counted once).
        self.counts: dict[str, list[int]] = {}
        #: Paths counted to their end.
        self.counted: set[str] = set()
        self.failed: BaseException | None = None
        self.ended = False

    def read(self) -> list[InputFile]:
        """Hash and count every input, in order: the files with their SHA-256."""
        try:
            out = []
            for file in self.files:
                digest = hashlib.sha256()
                counting = None
                if not file.path.endswith(COMPRESSED) and file.path not in self.counts:
                    with self.progress:
                        self.counts[file.path] = []
                    counting = partial(self._counted, self.counts[file.path])
                read_through(file.name, file.path, digest, counting, stop=file.size)
                with self.progress:
                    self.counted.add(file.path)
                    self.progress.notify_all()
                out.append(replace(file, sha256=digest.hexdigest()))
            return out
        except BaseException as e:
            self.failed = e
            raise
        finally:
            with self.progress:
                self.ended = True
                self.progress.notify_all()

    def _counted(self, counts: list[int], more: list[int]) -> None:
        """More of a file's counts, read: whoever waits for them is woken."""
        with self.progress:
            counts.extend(more)
            self.progress.notify_all()

    def newlines(self, path: str, first: int, last: int) -> int:
        """The newlines of ``path``'s blocks ``first`` to ``last`` (excluded; to its
        end, if it has fewer), once they are read; the reader's error, if it failed first."""
        with self.progress:
            self.progress.wait_for(lambda: self._has(path, last) or self.ended)
            if not self._has(path, last):
                raise self.failed or WarehouseError(f"{path}: not read")
            return sum(self.counts[path][first:last])

    def _has(self, path: str, blocks: int) -> bool:
        """Whether ``path``'s first ``blocks`` counts are read (or all it has)."""
        return path in self.counted or (path in self.counts and len(self.counts[path]) >= blocks)


def numbered_as_read(splits: Iterable[Split], reading: InputReading) -> Iterator[Split]:
    """The splits with the numbers of their first lines, as :func:`numbered` gives
    them, each as soon as ``reading`` has counted the newlines before its start:
    the first of a file at once, the next ones as the read goes on.  The workers
    start on the first splits while the rest is read."""
    path, done, before = "", 0, 0
    for split in splits:
        wanted = split.start // NEWLINE_BLOCK
        if split.file.path != path or wanted < done:  # another file, or the same given again
            path, done, before = split.file.path, 0, 0
        if wanted > done:
            before += reading.newlines(path, done, wanted)
            done = wanted
        yield replace(split, first_line=before + 1)


def refuse_streams(paths: Sequence[str]) -> None:
    """Files only: the workers open the inputs themselves, and a stream (standard
    input, a pipe, a FIFO) read once here would be gone for them."""
    from pipeline.sources import is_stream

    streams = [p for p in paths if is_stream(p)]
    if streams:
        raise WarehouseError(
            f"{streams[0]}: --engine dask reads files, not standard input, a pipe or a FIFO; save it to a file first"
        )


def refuse_other_formats(files: Sequence[InputFile], fmt: str) -> None:
    """Refuse (WarehouseError) inputs the engine cannot split: ``fmt`` an importer's
    format, or with ``auto`` an input whose name or first bytes say it is one (an
    EGN game read as JSON Lines would be a quarantined line for each of its own)."""
    from pipeline.games import importers
    from pipeline.sources import head_bytes
    from pipeline.validate import JSONL, check_format, sniff_format

    check_format(fmt)
    advice = "load it with --engine local, or convert it to JSON Lines first (tricklog convert)"
    if fmt in {importer.name for _, importer in importers()}:
        raise WarehouseError(f"--engine dask reads JSON Lines of records, not --from {fmt}: {advice}")
    for file in files if fmt == "auto" else ():
        found = sniff_format(file.path, head_bytes(file.path))
        if found != JSONL:
            raise WarehouseError(
                f"{file.name}: {found}, not JSON Lines of records, which --engine dask reads: {advice}"
            )


def numbered(splits: list[Split], newlines: dict[str, list[int]]) -> list[Split]:
    """The splits with the number of their first line, from the newlines of each
    ``NEWLINE_BLOCK`` bytes of their files (:func:`hashed_inputs`): a split's lines
    start after the first newline at or after its start (the start itself when a
    line begins there)."""
    before = {path: [0, *accumulate(counts)] for path, counts in newlines.items()}
    out = []
    for split in splits:
        assert split.start % NEWLINE_BLOCK == 0
        out.append(replace(split, first_line=before[split.file.path][split.start // NEWLINE_BLOCK] + 1))
    return out


def split_lines(split: Split) -> Iterator[tuple[int, bytes]]:
    """The non-empty lines of a split with their numbers in the file, as ``iter_lines``
    gives them: a line longer than the split's limit is a ``LongLine``, never held,
    and the end of a line begun in an earlier split is read past in chunks."""
    from pipeline.sources import iter_lines, numbered_lines, open_up_to, skip_to_line_start, still_written

    file = split.file
    if split.start == 0 and split.end == -1:
        yield from iter_lines(file.path, split.max_line_bytes, stop=file.size)
        return
    end = None if split.end == -1 else split.end
    with open_up_to(file.path, file.size, max(split.start - 1, 0)) as stream:
        number, offset = split.first_line - 1, split.start
        if split.start > 0 and stream.read(1) != b"\n":  # the end of a line begun in the split before
            offset += skip_to_line_start(stream, offset, end)
            number += 1
        growing = partial(still_written, file.path, file.size) if end is None else None
        yield from numbered_lines(
            stream, split.max_line_bytes, number=number, offset=offset, end=end, growing=growing
        )


# --------------------------------------------------------------------------
# The unit of work


class _TaggedRows:
    """Rows per table, each with the input line it came from: tuples, and Arrow
    tables built in bulk (their last column the line)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = {}
        self.lines: dict[str, list[int]] = {}
        self.arrow: dict[str, list[pa.Table]] = {}

    def add(self, rows: dict[str, list[tuple[Any, ...]]], line: int) -> None:
        for table, more in rows.items():
            if more:
                self.rows.setdefault(table, []).extend(more)
                self.lines.setdefault(table, []).extend([line] * len(more))

    def unchecked_tables(self, models: dict[str, Any]) -> dict[str, pa.Table]:
        """The tuple rows as Arrow tagged with their lines, built straight (``arrow_rows``:
        no frame, no check), for rows made of values checked already (the core rows
        of games a fast path cleared)."""
        import pyarrow as pa

        return {
            table: arrow_rows(rows, models[table]).append_column(
                LINE, pa.array(self.lines[table], pa.int64())
            )
            for table, rows in self.rows.items()
        }

    def add_arrow(self, table: str, data: pa.Table) -> None:
        """Rows built as Arrow, of the columns :meth:`tables` gives (``_line`` last)."""
        if data.num_rows:
            self.arrow.setdefault(table, []).append(data)

    def without_arrow_lines(self, lines: Collection[int]) -> dict[str, list[pa.Table]]:
        """The Arrow rows but those of ``lines``."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not lines:
            return self.arrow
        drop = pa.array(sorted(lines), pa.int64())
        return {
            table: [t.filter(pc.invert(pc.is_in(t[LINE], value_set=drop))) for t in parts]
            for table, parts in self.arrow.items()
        }

    @classmethod
    def of(cls, rows: dict[str, list[tuple[Any, ...]]], line: int) -> _TaggedRows:
        tagged = cls()
        tagged.add(rows, line)
        return tagged

    def by_line(self) -> dict[int, dict[str, list[tuple[Any, ...]]]]:
        """The tuple rows of each line, per table."""
        out: dict[int, dict[str, list[tuple[Any, ...]]]] = {}
        for table, rows in self.rows.items():
            for line, row in zip(self.lines[table], rows, strict=True):
                out.setdefault(line, {}).setdefault(table, []).append(row)
        return out

    def tables(self, models: dict[str, Any], *, check: bool = False) -> dict[str, pa.Table]:
        """Typed by the models; checked against them once routed (:func:`write_split`),
        when a repeated id's rows are gone.  ``check``: each tuple row also checked
        against its model's ranges here, where its line is known (a column that must
        be unique is checked once routing has dropped the repeats).  The Arrow rows are
        not checked here: a game's fast path builds them from the values its compiled
        checks cleared, in the models' types (``tests/test_fast_rows.py`` shows them
        identical to the checked rows of the reference replay)."""
        import pyarrow as pa

        frames = Batch(0, self.rows).frames(models)
        if check:
            for table, frame in frames.items():
                schema = models[table].to_schema()
                once = [name for name, column in schema.columns.items() if column.unique]
                models[table].validate(frame.unique(subset=once, keep="first") if once else frame)
        out = {
            table: frame.to_arrow().append_column(LINE, pa.array(self.lines[table], pa.int64()))
            for table, frame in frames.items()
        }
        for table, parts in self.arrow.items():
            out[table] = pa.concat_tables([out[table], *parts] if table in out else parts)
        return out


def prepare_split(split: Split, run_id: int = 1) -> PreparedSplit:
    """One split of an input -> its rows as Arrow tables (``_line`` on every row)
    and their facts (a :class:`LineFact` per line, as columns): pure, the same on any machine."""
    import pyarrow as pa

    facts: list[LineFact] = []
    parts: dict[str, list[pa.Table]] = {}
    for more, tables in prepared_pieces(split, run_id):
        facts.extend(more)
        for table, data in tables.items():
            parts.setdefault(table, []).append(data)
    tables = {table: pa.concat_tables(data) for table, data in parts.items()}
    return PreparedSplit(split, tables, Facts.of(facts))


def prepared_pieces(split: Split, run_id: int = 1) -> Iterator[tuple[list[LineFact], dict[str, pa.Table]]]:
    """The facts and rows of a split, ``PIECE_BYTES`` of its lines at a time, for
    memory's sake (a compressed input is one split).  Each line is prepared on its
    own, so the pieces together are the split prepared whole, in the same order."""
    from pipeline.parallel import fast_path_for

    fast_path = fast_path_for(split.file.path)
    for piece in _pieces(split_lines(split), PIECE_BYTES):
        yield prepare_lines(split.file, piece, run_id, fast_path=fast_path)


def prepare_lines(
    file: InputFile,
    lines: Iterable[tuple[int, bytes]],
    run_id: int,
    known: Container[str] = frozenset(),
    fast_path: bool = True,
) -> tuple[list[LineFact], dict[str, pa.Table]]:
    """Numbered lines of an input -> a fact per line and the rows of them all as
    Arrow tables tagged with ``_line``.  A line whose id is in ``known`` is only
    hashed: the router counts it already present, or quarantines it."""
    with collector_paused():  # what the chunk allocates is freed before the collector runs again
        return _prepare_lines(file, lines, run_id, known, fast_path)


def _prepare_lines(
    file: InputFile,
    lines: Iterable[tuple[int, bytes]],
    run_id: int,
    known: Container[str],
    fast_path: bool,
) -> tuple[list[LineFact], dict[str, pa.Table]]:
    tagged = _TaggedRows()
    facts: list[LineFact] = []
    core = _TaggedRows()  # the core rows of games cleared in bulk
    numbered = list(lines)
    from_bytes = clear_lines_in_bulk(numbered) if fast_path else ClearedLineBatch()
    prepared = [
        (number, raw, prepare(parse_line(file.name, number, raw), raw))
        for number, raw in numbered
        if number not in from_bytes.found
    ]
    games = [
        one.item
        for _, _, one in prepared
        if one.is_game and (one.game_id is None or one.game_id not in known)
    ]
    bulk = clear_in_bulk(games) if fast_path else ClearedBatch()
    done = _replayed(games, bulk, fast_path)
    cleared = {id(games[i]): found for i, found in bulk.facts.items()}
    for number, raw, one in prepared:
        if not one.is_game:
            located = [v.at(file=file.name, line=number) for v in one.item.violations]
            reason = located[0] if located else _violation("malformed_json", "not a game", None, file, number)
            _quarantine_rows(tagged, file, number, None, reason, raw, located or [reason], run_id)
            bytes_hash = hashlib.sha256(raw).hexdigest()  # what tells this line's copies
            facts.append(LineFact(number, False, None, bytes_hash, False, len(located or [reason])))
            continue
        assert one.digest is not None
        if one.game_id is not None and one.game_id in known:
            facts.append(LineFact(number, True, one.game_id, one.digest, False, 0))
            continue
        if id(one.item) in cleared:  # its own rows are in the bulk's tables
            core.add(cleared_game_rows(one.item, one.digest, run_id, *cleared[id(one.item)]), number)
            facts.append(LineFact(number, True, one.game_id, one.digest, True, 0))
            continue
        replayed = replay_for_load(one.item, number, one.digest, run_id, done[id(one.item)])
        violations = replayed.violations
        if replayed.blocking or replayed.game_id is None:
            blocking = replayed.blocking
            reason = _violation(
                "schema",
                "; ".join(v.message for v in blocking),
                replayed.game_id,
                file,
                number,
                path=blocking[0].path,
            )
            _quarantine_rows(tagged, file, number, replayed.game_id, reason, raw, violations, run_id)
            loadable = False
        elif replayed.rows is None:
            reason = _violation("unsupported", replayed.unsupported or "", replayed.game_id, file, number)
            _quarantine_rows(tagged, file, number, replayed.game_id, reason, raw, violations, run_id)
            loadable = False
        else:
            tagged.add(replayed.rows, number)
            loadable = True
        facts.append(LineFact(number, True, one.game_id, one.digest, loadable, len(violations)))
    repeated = _add_cleared_lines(from_bytes, file, run_id, known, core, facts)
    for table, data in [*bulk.tables, *from_bytes.tables]:
        tagged.add_arrow(table, data)
    if repeated:
        tagged.arrow = tagged.without_arrow_lines(repeated)
    facts.sort(key=lambda fact: fact.line)
    models = table_models()
    for table, data in core.unchecked_tables(models).items():
        tagged.add_arrow(table, data)
    try:
        return facts, tagged.tables(models, check=True)
    except Exception:  # a hostile record's rows do not fit the columns: find it, quarantine it
        return _without_misfits(tagged, facts, file, dict(numbered), run_id, models)


def _replayed(
    games: list[SourceItem], bulk: ClearedBatch, fast_path: bool
) -> dict[int, tuple[Replay, list[Violation]]]:
    """The replay of each game not cleared in bulk, by the id of its item: those a
    fast path was offered (and did not clear) by their reference replay, the rest
    as :func:`replay_items` does."""
    from pipeline.games import replay_item, replay_items

    rest = [g for i, g in enumerate(games) if i not in bulk.offered]
    done = dict(zip(map(id, rest), replay_items(rest, fast_path, full=True), strict=True))
    for i in bulk.offered - bulk.facts.keys():
        done[id(games[i])] = replay_item(games[i])
    return done


def _add_cleared_lines(
    cleared: ClearedLineBatch,
    file: InputFile,
    run_id: int,
    known: Container[str],
    core: _TaggedRows,
    facts: list[LineFact],
) -> list[int]:
    """The facts and core rows of the lines cleared straight from their bytes; returns
    the lines whose id is known already (their rows are to be dropped)."""
    repeated = []
    for number, (record, digest, game_facts, hands) in cleared.found.items():
        game_id = record["game_id"]
        if game_id in known:
            facts.append(LineFact(number, True, game_id, digest, False, 0))
            repeated.append(number)
            continue
        item = SourceItem(file.name, number, None, record)
        core.add(cleared_game_rows(item, digest, run_id, game_facts, hands), number)
        facts.append(LineFact(number, True, game_id, digest, True, 0))
    return repeated


def _without_misfits(
    tagged: _TaggedRows,
    facts: list[LineFact],
    file: InputFile,
    raws: dict[int, bytes],
    run_id: int,
    models: dict[str, Any],
) -> tuple[list[LineFact], dict[str, pa.Table]]:
    """The chunk again, each loaded game whose rows do not fit the warehouse's columns
    quarantined with its reason instead (as the loader does with its own batches)."""
    kept = _TaggedRows()
    by_line = tagged.by_line()
    out = []
    misfits = []
    for fact in facts:
        rows = by_line.get(fact.line, {})
        if fact.loadable:
            try:
                _TaggedRows.of(rows, fact.line).tables(models, check=True)
            except Exception as e:
                # quarantined with its reason, keeping the game's own violations (as the loader does)
                reason = _violation("schema", misfit_message(e), fact.game_id, file, fact.line)
                _quarantine_rows(
                    kept, file, fact.line, fact.game_id, reason, raws[fact.line], [reason], run_id
                )
                found = rows.get("violations", [])
                kept.add({"violations": found}, fact.line)
                misfits.append(fact.line)
                out.append(LineFact(fact.line, True, fact.game_id, fact.digest, False, 1 + len(found)))
                continue
        kept.add(rows, fact.line)
        out.append(fact)
    kept.arrow = tagged.without_arrow_lines(misfits)
    return out, kept.tables(models, check=True)


def _quarantine_rows(
    tagged: _TaggedRows,
    file: InputFile,
    line: int,
    game_id: str | None,
    reason: Violation,
    raw: bytes,
    violations: list[Violation],
    run_id: int,
) -> None:
    batch = Batch(run_id)
    batch.add_quarantine((file.name, file.sha256, line), game_id, reason, raw)
    batch.add_violations(violations)
    tagged.add(batch.rows, line)


# --------------------------------------------------------------------------
# Routing and writing


def table_folder(table: str) -> str:
    """``games`` -> ``games``, ``euchre.hands`` -> ``euchre/hands``."""
    return table.replace(".", "/")


def write_split(prepared: PreparedSplit, routing: Routing, directory: str, run_id: int = 1) -> dict[str, int]:
    """Drop the rows of lines not loaded, add the duplicate quarantines, write one
    Parquet file per table in ``directory`` (made if missing); returns the rows
    written per table."""
    import pyarrow as pa
    import pyarrow.compute as pc

    Path(directory).mkdir(parents=True, exist_ok=True)

    dropped = pa.array(sorted(routing.dropped), pa.int64())
    tables: dict[str, pa.Table] = {}
    for table, data in prepared.tables.items():
        if len(dropped):
            data = data.filter(pc.invert(pc.is_in(data[LINE], value_set=dropped)))
        tables[table] = data.drop_columns([LINE])
    for table, extra in _duplicate_rows(prepared.split, routing, run_id).items():
        tables[table] = pa.concat_tables([tables[table], extra]) if table in tables else extra
    for table, data in tables.items():
        _write_part(data, directory, table, prepared.split.index)
    return {table: data.num_rows for table, data in tables.items()}


@dataclass(frozen=True, slots=True)
class StagedSplit:
    """A split prepared and written where it was prepared, as if no line were
    dropped: its facts and, per table, the lines its rows came from, in
    row order, run-length encoded (line, rows).  Small: the rows are on disk."""

    split: Split
    facts: Facts
    runs: dict[str, tuple[Ints, Ints]]


def stage_split(split: Split, directory: str, run_id: int = 1) -> StagedSplit:
    """:func:`prepare_split`, each piece's rows written to the split's part files as
    they come (a worker keeps no rows while the others work); :func:`finish_split`
    then rewrites the few parts routing drops lines from.  ``directory`` is the
    load's staging folder, which must exist (see :func:`_new_part`)."""
    facts: list[LineFact] = []
    with _PartWriters(directory, split.index) as parts:
        for more, tables in prepared_pieces(split, run_id):
            facts.extend(more)
            for table, data in tables.items():
                parts.add(table, data)
    if next(_STAGED_HERE) % TRIM_EVERY == 0:
        release_freed_memory()
    return StagedSplit(split, Facts.of(facts), parts.runs)


#: The splits this process has staged.  Every ``TRIM_EVERY``-th, the pages malloc
#: holds free go back to the system: what a split's pieces left free in the
#: heap otherwise stayed with the worker, split after split (over 2 GB, one of
#: two workers rose from 227 to 250 MiB and the other from 223 to 232; trimmed
#: after every split, both stayed within 223 to 227, at 4% of their CPU time,
#: the pages faulted in again).
_STAGED_HERE = count(1)


def _pieces(lines: Iterable[tuple[int, bytes]], size: int) -> Iterator[list[tuple[int, bytes]]]:
    """Numbered lines in lists of at least ``size`` bytes (the last may be smaller)."""
    piece: list[tuple[int, bytes]] = []
    held = 0
    for numbered in lines:
        piece.append(numbered)
        held += len(numbered[1])
        if held >= size:
            yield piece
            piece, held = [], 0
    if piece:
        yield piece


class _PartWriters:
    """The part files of one staged split, a table's rows written as they come, in
    row groups of ``ROW_GROUP_ROWS`` or more; and, per table, the lines its rows
    came from in row order, run-length encoded (``runs``)."""

    def __init__(self, directory: str, index: int) -> None:
        self.directory = directory
        self.index = index
        self.pending: dict[str, list[pa.Table]] = {}
        self.writers: dict[str, Any] = {}
        self.lines: dict[str, list[tuple[Ints, Ints]]] = {}

    def __enter__(self) -> _PartWriters:
        return self

    def __exit__(self, *failed: object) -> None:
        try:
            if failed[0] is None:
                for table in list(self.pending):
                    self._write(table)
        finally:
            for writer in self.writers.values():
                writer.close()

    def add(self, table: str, data: pa.Table) -> None:
        self.lines.setdefault(table, []).append(_runs(data[LINE]))
        pending = self.pending.setdefault(table, [])
        pending.append(data.drop_columns([LINE]))
        if sum(part.num_rows for part in pending) >= ROW_GROUP_ROWS:
            self._write(table)

    @property
    def runs(self) -> dict[str, tuple[Ints, Ints]]:
        import numpy as np

        return {
            table: (np.concatenate([at for at, _ in runs]), np.concatenate([n for _, n in runs]))
            for table, runs in self.lines.items()
        }

    def _write(self, table: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = pa.concat_tables(self.pending.pop(table))
        if table not in self.writers:
            self.writers[table] = pq.ParquetWriter(_new_part(self.directory, table, self.index), data.schema)
        self.writers[table].write_table(data)


def finish_writes(staged: StagedSplit, routing: Routing, file: InputFile | None) -> bool:
    """Whether :func:`finish_split` would write anything: a line of the split is
    dropped or quarantined as a duplicate, or its quarantine rows await their
    file's hash (``file``, None while it is not known).  On clean data it would
    not, and the client asks for no finish: a task costs some 5 ms of CPU
    between the client and a worker."""
    return bool(routing.dropped or routing.duplicates or _awaits_hash(staged, file))


def _awaits_hash(staged: StagedSplit, file: InputFile | None) -> bool:
    """Whether the split has quarantine rows written without ``file``'s hash."""
    return QUARANTINE in staged.runs and (file is None or staged.split.file.sha256 != file.sha256)


def finish_split(
    staged: StagedSplit, routing: Routing, directory: str, run_id: int = 1, file: InputFile | None = None
) -> dict[str, int]:
    """What :func:`write_split` does, on parts already written: those with rows of
    dropped lines are read back and written again without them, and the duplicate
    quarantines go to parts of their own; returns the rows written per table.
    ``file``: the split's file with its hash, when it was staged without it
    (``UNHASHED``): its quarantine rows get it."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    split = staged.split if file is None else replace(staged.split, file=file)
    written = {table: int(counts.sum()) for table, (_, counts) in staged.runs.items()}
    dropped = np.fromiter(routing.dropped, np.int64, len(routing.dropped))
    rehash = _awaits_hash(staged, split.file)
    for table, (lines, counts) in staged.runs.items():
        kept = ~np.isin(lines, dropped)
        unhashed = table == QUARANTINE and rehash
        if kept.all() and not unhashed:
            continue
        # not pq.read_table: its datasets import pandas
        with pq.ParquetFile(_part(directory, table, split.index)) as part:
            data = part.read().filter(pa.array(np.repeat(kept, counts)))
        if unhashed:
            data = _with_file_hash(data, split.file.sha256)
        _write_part(data, directory, table, split.index)
        written[table] = data.num_rows
    for table, extra in _duplicate_rows(split, routing, run_id).items():
        _write_part(extra, directory, table, split.index, suffix="-duplicates")
        written[table] = written.get(table, 0) + extra.num_rows
    return written


def _with_file_hash(data: pa.Table, sha256: str) -> pa.Table:
    """Quarantine rows with their file's hash."""
    import pyarrow as pa

    column = data.schema.get_field_index("file_sha256")
    kind = data.schema.field(column).type
    return data.set_column(column, "file_sha256", pa.array([sha256] * data.num_rows, kind))


def _runs(lines: pa.ChunkedArray) -> tuple[Ints, Ints]:
    """A column of line numbers, run-length encoded: (each run's line, its length),
    as numpy arrays.  As lists, a split's 40 thousand Python ints (1.6 MB) sat in
    the heap of the worker that keeps the staged split until the client lets it
    go, and passed through the client's."""
    import numpy as np
    import pyarrow.compute as pc

    encoded = pc.run_end_encode(lines.combine_chunks())
    return _int64s(encoded.values), np.diff(_int64s(encoded.run_ends), prepend=0)


def _int64s(array: pa.Array) -> Ints:
    """An Arrow array of integers without nulls, as int64s: a copy out of its buffer
    (Arrow's conversions to numpy import pandas, 0.35 s in every worker)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(array):
        return np.empty(0, np.int64)
    array = pc.cast(array, pa.int64())
    return np.frombuffer(array.buffers()[1], np.int64, len(array), array.offset * 8).copy()


def _duplicate_rows(split: Split, routing: Routing, run_id: int) -> dict[str, pa.Table]:
    """The quarantine and violation rows of the lines routed as a repeated id with
    other content."""
    if not routing.duplicates:
        return {}
    file = split.file
    raws = {n: raw for n, raw in split_lines(split) if n in routing.duplicates}
    tagged = _TaggedRows()
    for line, (game_id, message) in sorted(routing.duplicates.items()):
        reason = _violation("duplicate_game", message, game_id, file, line, path="game_id")
        _quarantine_rows(tagged, file, line, game_id, reason, raws[line], [reason], run_id)
    return {table: extra.drop_columns([LINE]) for table, extra in tagged.tables(table_models()).items()}


def _part(directory: str, table: str, index: int, suffix: str = "") -> Path:
    return Path(directory) / table_folder(table) / f"part-{index:05d}{suffix}.parquet"


def _new_part(directory: str, table: str, index: int, suffix: str = "") -> Path:
    """:func:`_part`, its folder made inside ``directory``, which must exist: a task
    still running once its load has failed and removed its staging folder (a
    scheduler's workers are not stopped with the load) writes nothing, rather than
    make that folder again.  Raises :class:`FileNotFoundError` then."""
    path = _part(directory, table, index, suffix)
    folder = Path(directory)
    for name in path.parent.relative_to(folder).parts:
        folder = folder / name
        with suppress(FileExistsError):
            folder.mkdir()
    return path


def _write_part(data: pa.Table, directory: str, table: str, index: int, suffix: str = "") -> None:
    """One Parquet part of a table, routed (game ids unique now): the core rows are
    checked against their models once more (a game's own rows were checked where
    they were built, and staged parts as they were prepared)."""
    import pyarrow.parquet as pq

    if "." not in table:
        import polars as pl

        frame = pl.from_arrow(data)
        assert isinstance(frame, pl.DataFrame)
        table_models()[table].validate(frame)
    pq.write_table(data, _new_part(directory, table, index, suffix))


# --------------------------------------------------------------------------
# The load


def load_dask(
    paths: Sequence[str],
    directory: str | Path,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    split_bytes: int | None = None,
    client: Any = None,
    on_split: Callable[[int, int], None] | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    fmt: str = "auto",
) -> LoadSummary:
    """Load inputs into a Parquet data set at ``directory`` on a Dask cluster: the
    one at ``scheduler``, else a ``LocalCluster`` of ``workers`` processes (one per core).
    ``on_split`` is called with the lines and the bytes of each split as it is
    routed, in input order (for a progress bar).  A line longer than
    ``max_line_bytes`` is quarantined as ``line_too_long``, never held.  The inputs
    are JSON Lines of records (``fmt``: ``--from``); another format is refused."""
    from pipeline.sources import checked_line_limit, expand_inputs

    checked_line_limit(max_line_bytes)
    target = Path(directory).absolute()
    if target.exists() or target.is_symlink():
        refuse_replacing(target)
    files = sized_inputs(expand_inputs(paths, fmt))  # before a cluster starts: an input missing stops none
    refuse_other_formats(files, fmt)
    started = dt.datetime.now(dt.UTC)
    session = _client(client, scheduler, workers)
    opening = session.open_in_background()  # a local cluster starts while the inputs are read
    closing: threading.Thread | None = None
    staging: Path | None = None
    try:
        # read while the workers stage: the daemon thread of a load that fails is not waited for
        reading = InputReading(files)
        hashing = _in_background(lambda: session.after_import(reading.read), "tricklog-read", daemon=True)
        summary = LoadSummary(1, str(directory), files)
        staging = fresh_beside(target)  # what killed loads left there goes (a data set each)
        dask = opening.result()  # outside the writes: a cluster that cannot start is no full disk
        # a cluster not started here may run other code: its workers are asked now, and
        # each task checks the worker it runs on (one that joined later included)
        code = same_code_on_workers(dask) if session.cluster is None else None
        tasks = _Tasks(dask, code)
        try:
            with tasks.cancelled_on_failure():
                _load_on(
                    tasks,
                    (reading, hashing),
                    (split_bytes, max_line_bytes),
                    summary,
                    staging,
                    started,
                    on_split,
                )
        except OSError as e:  # a worker's, the data set's part it wrote named nowhere
            raise WarehouseError(
                f"{directory}: cannot write: {failure(e)}; nothing of this load is kept"
            ) from e
        finally:
            closing = session.close_in_background()  # while the data set is moved into place
        (staging / MARKER).write_text(json.dumps(summary.to_json(), indent=2) + "\n")
        move_into_place(staging, target)
    finally:
        if closing is None:
            closing = session.close_in_background()
        closing.join()  # first: a local cluster's workers write nothing in the staging folder once it is gone
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return summary


def move_into_place(staging: Path, target: Path) -> None:
    """Move a new data set from ``staging`` to ``target``.  The data set there before
    is renamed aside and removed once the new one is in: readers find one or the
    other, and ``target`` is missing only between two renames.  What was put at
    ``target`` during the load (a folder that is no data set, another load's data
    set moved in meanwhile) is left as it is, and the load fails saying so."""
    aside: Path | None = None
    if target.exists() or target.is_symlink():
        if not is_dataset(target):
            raise WarehouseError(
                f"{target}: became something other than a tricklog data set during the load; left as it is"
            )
        aside = temp_beside(target, ".old-")
        os.replace(target, aside / "data")
    try:
        os.replace(staging, target)
    except OSError as e:
        if target.exists():
            raise WarehouseError(
                f"{target}: another load moved its data set there at the same time; it is kept, not this one"
            ) from e
        if aside is not None:
            os.replace(aside / "data", target)
        raise WarehouseError(
            f"{target}: cannot move the new data set there ({failure(e)}); what was there is kept"
        ) from e
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)


#: Splits a load has on the cluster at once (sent, or staged and not yet routed),
#: for each worker: enough that a worker never waits for its next split, few
#: enough that what the client and the scheduler hold for the splits stays that
#: of a few, whatever the input's size.  Sent all at once, each split cost the
#: command some 8 KB until the end (6 MB more for 763 splits of 200 MB than
#: for 20: some 700 MB for the 85,000 splits of a terabyte).
AHEAD_PER_WORKER = 4
#: How often the cluster's workers are counted again (which sets how many splits
#: it is given at once): every so many times the count is asked for, about twice
#: a split.  A cluster that grows during a load is given more.
RECOUNT_EVERY = 16


def _load_on(
    tasks: _Tasks,
    inputs: tuple[InputReading, Future[list[InputFile]]],
    reads: tuple[int | None, int],
    summary: LoadSummary,
    staging: Path,
    started: dt.datetime,
    on_split: Callable[[int, int], None] | None,
) -> None:
    """Prepare, route and write the splits on the cluster, then complete the data set
    there.  ``inputs``: the reading of the files (:func:`sized_inputs`), and its
    result (the files with their hashes); ``reads``: the bytes of a split (None:
    sized to the input and the workers) and the longest line read whole."""
    reading, hashing = inputs
    split_bytes, max_line_bytes = reads
    files = reading.files
    workers = _WorkerCount(tasks.dask)
    if split_bytes is None:
        total = sum(f.size for f in files)
        split_bytes = min(SPLIT_BYTES, max(MIN_SPLIT_BYTES, total // (8 * workers.now) + 1))
    splits = numbered_as_read(splits_of(files, split_bytes, workers.now, max_line_bytes), reading)
    router = Router(summary)
    finishes = _Finishes(tasks, str(staging), hashing)
    stage = partial(tasks.submit, stage_split, directory=str(staging))
    for split, staged, done in _staged_in_order(stage, splits, workers.ahead):
        routing = router.route(done.facts)
        if on_split is not None:
            on_split(len(done.facts), _split_bytes(split))
        finishes.add(staged, done, routing)
        summary.batches += 1
    finishes.wait()
    summary.files = hashing.result()
    tasks.submit(complete_dataset, str(staging), summary, started).result()


def _split_bytes(split: Split) -> int:
    return (split.file.size if split.end < 0 else split.end) - split.start


class _WorkerCount:
    """How many splits a cluster is given at once (``AHEAD_PER_WORKER`` for each of
    its workers), counted again every ``RECOUNT_EVERY`` times it is asked."""

    def __init__(self, dask: Any) -> None:
        self.dask = dask
        self.asked = 0
        self.now = self._count()

    def _count(self) -> int:
        return max(1, len(self.dask.scheduler_info().get("workers", {})))

    def ahead(self) -> int:
        self.asked += 1
        if self.asked % RECOUNT_EVERY == 0:
            self.now = self._count()
        return AHEAD_PER_WORKER * self.now


def _staged_in_order(
    stage: Callable[[T], Any], splits: Iterable[T], ahead: Callable[[], int]
) -> Iterator[tuple[T, Any, Any]]:
    """Each split, the future of its staging (``stage(split)``) and the staged split
    (a copy: the worker keeps its own), in input order, as soon as it and the
    splits before it are staged: the client routes while the workers still stage.
    At most ``ahead()`` splits are on the cluster at a time, sent or staged ahead
    of their turn; the next goes as one is given."""
    from distributed import as_completed

    queue = as_completed(with_results=True)  # type: ignore[no-untyped-call]
    numbered = enumerate(splits)
    sent: dict[Any, tuple[int, T]] = {}
    early: dict[int, tuple[T, Any, Any]] = {}
    turn = 0

    def send_more() -> None:
        while len(sent) + len(early) < ahead():
            following = next(numbered, None)
            if following is None:
                return
            future = stage(following[1])
            sent[future] = following
            queue.add(future)  # type: ignore[no-untyped-call]

    send_more()
    for future, done in queue:
        i, split = sent.pop(future)
        early[i] = (split, future, done)
        while turn in early:
            yield early.pop(turn)
            turn += 1
        send_more()


class _Finishes:
    """The splits' finishes (:func:`finish_split`), sent once the inputs' hashes are
    known (a split's quarantine rows name its file's): the splits routed before
    then wait as their staging's future and routing (their workers keep the
    staged splits), while the workers stage on.  The client keeps the finishes
    that run, and lets each go once it has ended."""

    def __init__(self, tasks: _Tasks, directory: str, hashing: Future[list[InputFile]]) -> None:
        self.tasks = tasks
        self.directory = directory
        self.hashing = hashing
        self.files: dict[str, InputFile] = {}
        self.waiting: list[tuple[Any, str, Routing]] = []
        self.running: list[Any] = []

    def add(self, staged: Any, done: StagedSplit, routing: Routing) -> None:
        """The finish of a split just routed (none, if it would write nothing)."""
        hashed = self.hashing.done()
        if hashed:
            self._learn_hashes()
        if finish_writes(done, routing, self.files.get(done.split.file.path)):
            self.waiting.append((staged, done.split.file.path, routing))
        if hashed:
            self._send()
        self.running = [future for future in self.running if not _ended(future)]

    def _learn_hashes(self) -> None:
        """The inputs' files with their hashes (waits for them; the reader's error if it failed)."""
        if not self.files:
            self.files = {file.path: file for file in self.hashing.result()}

    def _send(self) -> None:
        self._learn_hashes()
        for staged, path, routing in self.waiting:
            file = self.files[path]
            self.running.append(self.tasks.submit(finish_split, staged, routing, self.directory, file=file))
        self.waiting.clear()

    def wait(self) -> None:
        """Until every finish has ended (the first that failed raises its error)."""
        self._send()  # the splits still waiting for the hashes (the reader's error, if it failed)
        for future in self.running:
            future.result()
        self.running.clear()


def _ended(future: Any) -> bool:
    """Whether a finish has ended, which raises its error if it failed."""
    if future.status in ("error", "cancelled"):
        future.result()
    return bool(future.status == "finished")


def complete_dataset(directory: str, summary: LoadSummary, started: dt.datetime) -> None:
    """The data set's ``ingest_runs`` (one complete run), an empty file with its
    schema for each table no split wrote (no quarantine, say), and the list of
    its parts (:func:`~pipeline.warehouse.parts.write_parts`).  Run on a worker,
    once every split is finished, where Arrow is imported already."""
    import pyarrow.parquet as pq

    staging = Path(directory)
    _write_run(staging, summary, started)
    models = table_models()
    for table, model in models.items():
        folder = staging / table_folder(table)
        if not any(folder.glob("*.parquet")):
            folder.mkdir(parents=True, exist_ok=True)
            pq.write_table(arrow_schema(model).empty_table(), folder / "part-00000.parquet")
    write_parts(staging)  # last: every part is written


class _client:
    """A Dask client: the one given, one connected to ``scheduler``, or a LocalCluster's."""

    def __init__(self, client: Any, scheduler: str | None, workers: int | None) -> None:
        self.given = client
        self.scheduler = scheduler
        self.workers = workers
        self.cluster: Any = None
        self.client: Any = None
        self.opening: Future[Any] | None = None
        self.imported = threading.Event()

    def open(self) -> Any:
        if self.given is not None:
            self.imported.set()
            return self.given
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:
            raise WarehouseError("--engine dask needs dask[distributed]: pip install 'tricklog[dask]'") from e
        finally:
            self.imported.set()
        import dask

        if self.scheduler is not None:
            try:
                with dask.config.set(LEAN_CLIENT):
                    self.client = Client(self.scheduler)  # type: ignore[no-untyped-call]
            except (OSError, ValueError, TypeError) as e:  # no scheduler there, or no address
                raise WarehouseError(f"cannot connect to a Dask scheduler at {self.scheduler!r}: {e}") from e
        else:
            n = self.workers or usable_cores()
            with (
                _forked_workers(),
                dask.config.set({**LEAN_CLUSTER, **ONE_SPLIT_A_WORKER, **CTRL_C_TO_CLIENT}),
            ):
                self.cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # the scheduler's HTTP endpoints (no dashboard) on a free port of the
                    # loopback: on its default, 8787, a second load at once warned that it was taken
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    env=WORKER_ENV,
                    # a worker whose heartbeat meets the stopping scheduler logs a
                    # traceback (dask/distributed#7105); a task's error reaches the client
                    silence_logs=logging.CRITICAL,
                )
                # in the block: the client, and the scheduler's stream to it, log as short
                self.client = Client(self.cluster)  # type: ignore[no-untyped-call]
        return self.client

    def open_in_background(self) -> Future[Any]:
        """:meth:`open` on a thread (a local cluster takes about a second to start).
        A local cluster's worker server starts first, here: its imports, the
        longest part of the start, then overlap this thread's import of
        distributed and the caller's counting of the inputs' lines."""
        if self.given is None and self.scheduler is None:
            start_fresh_server(["distributed"])
        self.opening = _in_background(self.open, "tricklog-dask-open")
        return self.opening

    def after_import(self, work: Callable[[], T]) -> T:
        """``work()`` once :meth:`open` has imported distributed.  Both are work
        of this process that overlaps the fork server's imports, which a local
        cluster waits for: done at once, they and the server were three busy
        threads on two cores, and the server's imports ended 0.1 s later."""
        self.imported.wait()
        return work()

    def close(self) -> None:
        if self.opening is not None:
            wait([self.opening])  # a cluster still starting is stopped once it is up
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def close_in_background(self) -> threading.Thread:
        """Close on a thread (a local cluster takes a moment to stop); join it."""
        closing = threading.Thread(target=self.close, name="tricklog-dask-close")
        closing.start()
        return closing


def same_code_on_workers(dask: Any) -> str:
    """Refuse a cluster not started here whose workers run other tricklog code than
    this process (:mod:`pipeline.fingerprint`), before sending them any work;
    returns the code's fingerprint.  A worker that joins the cluster later is
    checked by each task it is given (:func:`on_same_code`)."""
    from pipeline.fingerprint import code_fingerprint

    try:
        theirs = dask.run(code_fingerprint)
    except Exception as e:  # a worker without tricklog cannot even read the question
        raise WarehouseError(
            f"the Dask cluster's workers cannot run tricklog ({e}): install this tricklog on them"
        ) from e
    others = sorted(worker for worker, code in theirs.items() if code != code_fingerprint())
    if others:
        named = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise WarehouseError(
            f"the Dask cluster's workers ({named}) run other tricklog code than this command:"
            " install the same tricklog on them and here"
        )
    return code_fingerprint()


@dataclass(frozen=True, slots=True)
class _Tasks:
    """What sends a load's tasks to a Dask cluster: each runs on a worker whose
    code is the fingerprint ``code`` (any worker, when None: a cluster started here)."""

    dask: Any
    code: str | None
    #: The futures the load still holds (those it let go are gone from here).
    held: weakref.WeakSet[Any] = field(default_factory=weakref.WeakSet)

    def submit(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``work(*args, **kwargs)`` on a worker (checked: :func:`on_same_code`), as a Dask future."""
        key = f"{work.__name__}-{uuid.uuid4().hex}"  # named for the work, on the dashboard
        future = self.dask.submit(on_same_code, self.code, work, *args, key=key, pure=False, **kwargs)
        self.held.add(future)
        return future

    @contextmanager
    def cancelled_on_failure(self) -> Iterator[None]:
        """A load that fails cancels the tasks it still holds.  The error's
        traceback holds their futures, so a cluster the command did not start (a
        notebook's client, ``--scheduler``) would otherwise stage and finish the
        splits sent ahead, and keep those staged, for a data set that will never be."""
        try:
            yield
        except BaseException:
            held = list(self.held)
            if held and self.dask.status == "running":
                with suppress(Exception):  # the load's own error is the one to report
                    self.dask.cancel(held)
            raise


def on_same_code(code: str | None, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)``, run on a worker whose tricklog has the fingerprint
    ``code`` (:mod:`pipeline.fingerprint`; any, when None).  A worker that joined the
    cluster after the load asked every worker (:func:`same_code_on_workers`) is
    refused at its first task, with a one-line error naming it, rather than
    trusted with the load: a worker on other code had sent results the client
    could not read, and the client waited for them forever."""
    from pipeline import fingerprint

    if code is not None and fingerprint.code_fingerprint() != code:
        raise WarehouseError(
            f"the Dask cluster's worker {_this_worker()} runs other tricklog code than this command "
            "(it joined the cluster, or was changed, after the load began): install the same "
            "tricklog on it and here"
        )
    return work(*args, **kwargs)


def _this_worker() -> str:
    """The address of the Dask worker running the current task (``?`` outside one)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "?"


def _in_background(work: Callable[[], T], name: str, *, daemon: bool = False) -> Future[T]:
    """``work()`` on a thread of its own: its result, or its exception, in the future."""
    done: Future[T] = Future()

    def run() -> None:
        try:
            done.set_result(work())
        except BaseException as e:  # handed to the caller of done.result()
            done.set_exception(e)

    threading.Thread(target=run, name=name, daemon=daemon).start()
    return done


@contextmanager
def _forked_workers() -> Iterator[None]:
    """A local cluster's workers forked from one server process that imported what
    they need once (``pipeline.forkserver.PRELOAD``), rather than each started afresh
    and importing it all: a CPU second a worker.  A forked worker also exits at
    once, where a fresh one tore its interpreter down (half a second a worker)."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        yield
        return
    import dask
    import distributed.utils

    start_fresh_server(["distributed"])
    # else Dask would import every package it knows of here, to preload them all instead
    distributed.utils._forkserver_preload_set = True
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        yield


#: What the command's client keeps of the message batches it sent the scheduler,
#: and a local scheduler of those it sent the client (logs for debugging; a
#: client's batches carry the tasks it submitted): the last 100, not Dask's
#: 1,000.  Both are read as the client connects: a local cluster's client, made
#: once the cluster was up, kept 1,000 on both sides, and its process grew by a
#: batch or two a split (a load of 2 GB on one worker: 153 batches at 40 s, 93
#: submissions; 3,800 fewer Python blocks at 62 s with this).
LEAN_CLIENT = {"distributed.admin.low-level-log-length": 100}


#: What a local cluster keeps for a dashboard and for debugging, which ours does
#: not start or need, and which grows with a run: Dask's statistical profiler
#: samples every task's stack a hundred times a second and keeps a profile of
#: every second (with the source of every file it met: 60 MB a worker after 2 GB
#: of input); the scheduler and each worker log their last 1,000 transitions,
#: messages and events, and 7,200 system samples.  Nor does it poll as often
#: as Dask does by default: the scheduler, each nanny and each worker time their
#: event loop every 20 ms (a health check that warns past 3 s) and the nannies
#: and workers read their memory every 100 ms; every second is enough.  Idle,
#: the command's process (scheduler and nannies) used 6.9% of a core and each
#: worker 2.1-2.6%; 1.3% and 0.3-0.4% with these.  The scheduler reads these as
#: it starts, and the nannies pass them on to the workers.
LEAN_CLUSTER = {
    **LEAN_CLIENT,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.log-length": 100,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
}


#: A worker of a local cluster is given its next split when it is done with the
#: one it has, not while it still works on it (Dask's default, 1.1, gives a
#: worker of one thread two tasks at once): splits are few and take a third of
#: a second each, so a split queued behind another kept the other worker idle
#: at the end.  On 200 MB with 2 workers, one worker ended 0.1 s before the
#: other; now they end together.  The worker asks for its next split once done
#: (a few ms), which on one worker cost nothing measurable.
ONE_SPLIT_A_WORKER = {"distributed.scheduler.worker-saturation": 1.0}


#: A local cluster's workers run :func:`dask_setup` (this module) as they start.
CTRL_C_TO_CLIENT = {"distributed.worker.preload": [__name__]}


def dask_setup(worker: Any) -> None:
    """Run by each worker of a local cluster as it starts (``CTRL_C_TO_CLIENT``):
    Ctrl-C, which reaches every process of the command, is left to the command,
    which closes the cluster (each worker printed a traceback)."""
    leave_interrupts_to_the_caller()


def _write_run(staging: Path, summary: LoadSummary, started: dt.datetime) -> None:
    """The data set's ``ingest_runs``: one complete run.  Its Arrow types are given:
    pyarrow infers a column's type by importing pandas (0.2 s, at the end of the load)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    count, text, utc = pa.int64(), pa.string(), pa.timestamp("us", tz="UTC")
    counts = ["lines", "games_loaded", "already_present", "quarantined", "violations", "batches"]
    file = pa.struct([("path", text), ("sha256", text), ("bytes", count)])
    schema = pa.schema(
        [
            ("run_id", count),
            ("started_at", utc),
            ("ended_at", utc),
            ("status", text),
            ("files", pa.list_(file)),
            *((name, count) for name in counts),
            ("tricklog_version", text),
        ]
    )
    row = {
        "run_id": summary.run_id,
        "started_at": started,
        "ended_at": dt.datetime.now(dt.UTC),
        "status": "complete",
        "files": [f.to_json() for f in summary.files],
        **{name: getattr(summary, name) for name in counts},
        "tricklog_version": VERSION,
    }
    target = staging / "ingest_runs"
    target.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([row], schema), target / "part-00000.parquet")


def _schema_session(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """An in-memory session with every table of the warehouse, empty."""
    con.execute(ddl_text())
    for tables in game_tables():
        con.execute(tables.ddl)
    return con


# --------------------------------------------------------------------------
# Reading a data set


def is_dataset(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding a load's accounting (:data:`MARKER`, a
    JSON object with its counts): a file of that name alone does not make one."""
    try:
        accounts = json.loads((Path(path) / MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return Path(path).is_dir() and isinstance(accounts, dict) and accounts.keys() >= ACCOUNTS


#: What a data set's :data:`MARKER` holds, at least (``LoadSummary.to_json``).
ACCOUNTS = frozenset(("run_id", "files", "lines", "games_loaded", "already_present", "quarantined"))


def refuse_replacing(target: Path) -> None:
    """Refuse to load into ``target`` unless it is a data set holding nothing but its
    own files: a load replaces the whole folder, and would take anything else with it."""
    if not is_dataset(target):
        raise WarehouseError(f"{target}: exists and is not a tricklog data set; give a new folder")
    own = {MARKER, PARTS, *(table_folder(t).partition("/")[0] for t in [*table_models(), "ingest_runs"])}
    others = sorted(entry.name for entry in target.iterdir() if entry.name not in own)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise WarehouseError(
            f"{target}: a data set that also holds {shown}; a load replaces the whole folder, "
            "so move them out first (or give a new folder)"
        )


def open_dataset(path: str | Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB session whose tables are views over the data set's Parquet
    files, cast to the warehouse's column types (so queries and reports read it as a
    warehouse file).  The caller locks the session down (the folder stays readable)."""
    import duckdb

    folder = Path(path).resolve()
    tables = [*table_models(), "ingest_runs"]
    folders = [table_folder(table) for table in tables]
    check_parts(folder, folders)
    con = _schema_session(duckdb.connect())
    reads_dataset(con, folder, folders)
    for table in tables:
        try:
            _view_over_parts(con, folder, table)
        except duckdb.Error as e:  # no part, or one that is no Parquet file, in a data set with no list
            con.close()
            raise DamagedDataset(f"{folder}: cannot read its table {table}: {one_line(str(e))}") from e
    return con


def _view_over_parts(con: duckdb.DuckDBPyConnection, folder: Path, table: str) -> None:
    """``table`` made a view over its parts, cast to the warehouse's column types."""
    columns = con.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_schema = ? and table_name = ? order by ordinal_position",
        _schema_and_name(table),
    ).fetchall()
    files = sql_literal(str(folder / table_folder(table) / "*.parquet"))
    select = ", ".join(f'"{name}"::{kind} as "{name}"' for name, kind in columns)
    con.execute(f"drop table {table}")
    con.execute(f"create view {table} as select {select} from read_parquet({files})")


def _schema_and_name(table: str) -> list[str]:
    schema, _, name = table.rpartition(".")
    return [schema or "main", name]
