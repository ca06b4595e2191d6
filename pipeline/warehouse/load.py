"""Loading inputs into the warehouse: replay, account, write in batches.

Every non-empty input line lands in exactly one place:

* a ``games`` row (with its hands, bids, tricks, plays and violations);
* a ``quarantine`` row: the line could not become a game (not JSON, not an
  object, required fields missing, a known ``game_id`` with other content);
* the run's ``already_present`` count: the same game (same id, same content)
  or the same quarantined line (same bytes at the same line number, whatever
  the file: a log that grew keeps its old bad lines) is loaded.  Quarantined
  lines are looked up in the database at each batch, so memory does not grow
  with their number.

So ``lines == games_loaded + already_present + quarantined`` for every run,
and loading the same input twice adds nothing the second time.

Writes go in batches, each one transaction that also updates the run's row
in ``ingest_runs``: a load killed half way leaves the database as it was after
its last committed batch, and running it again completes it.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pipeline.atomic import refuse_overwriting, scratch_folder
from pipeline.sources import (
    ENDING,
    HEAD_MAGIC,
    STDIN,
    SourceItem,
    bounded_chunks,
    compression_of,
    expand_inputs,
    is_stream,
    iter_lines,
    misnamed,
    open_binary,
    parse_line,
    read_jsonl,
    shrank,
)
from pipeline.validate import check_format, reader_for
from pipeline.violations import TricklogError, Violation, failure
from pipeline.warehouse.ddl import DatabaseInUse, WarehouseError, connect, registered, scalar, table_models
from pipeline.warehouse.guard import one_line
from pipeline.warehouse.known import KnownIds
from pipeline.warehouse.prepare import Prepared, Replayed, misfit_message, prepare, replay_for_load
from pipeline.warehouse.tables import Batch

if TYPE_CHECKING:
    import pyarrow as pa

    from pipeline.warehouse.parallel_load import PreparedChunks
    from pipeline.warehouse.routing import LineFact

if TYPE_CHECKING:
    import duckdb
    import pandera.polars as pa
    import polars as pl
    import pyarrow

BATCH_GAMES = 5000
#: Bytes of input lines routed after which a batch is written, however few its
#: lines: a batch is held some ten times over on its way into the database, and
#: 160 lines of 1 MiB made one batch that peaked at 2.1 GB (32 MiB: 0.8 GB).
#: Games of the usual size (4 to 5 KB) fill ``BATCH_GAMES`` first.
BATCH_BYTES = 32 << 20
#: Items of a file in another format prepared, then routed, at a time.
CHUNK_ITEMS = 2000
#: What DuckDB's cache is brought down to after each committed batch.  At 32 MB,
#: what it kept grew to that over a connection's first batches, and each batch's
#: commit peaked higher, by up to 30 MB over ten; at 8 MB a load's processes
#: peaked 21 MiB lower together (200 MB: 926-945 MiB against 947-969, six runs
#: in turn; 2 GB: 946-952 against 965-975), in the same time.
EVICT_TO = "8MB"
#: Committed batches after which a load closes the database and opens it again.
#: DuckDB keeps in memory what describes every row group it wrote (their columns'
#: segments and statistics): 0.2 MB a batch, which a new connection reads only as
#: it needs.  Over a 2 GB input (90 batches) the ``load`` process's heap in use
#: grew by 15 MB, and its peak by 23 MB past the tenth batch; reopening every ten
#: batches held the heap flat and the peak to 13 MB (the rest, pages malloc
#: keeps), at no cost measurable even reopening after every batch.
REOPEN_EVERY = 10
#: Seconds a load waits for a process that opened the database while it reopened it.
REOPEN_WAIT = 60.0
#: Blocks from this size on get pages of their own in the ``load`` command's
#: process (:func:`~pipeline.parallel.map_large_blocks`): DuckDB's 256 KB blocks
#: and the workers' rows.  With two chunks of 2,000 lines in flight a worker,
#: its peak on a 2 GB input went from 735 to 650 MB (before the workers' rows
#: were dictionary-encoded, which took it to 529 MB).  A Dask client's too: the
#: buffer its inputs are read into, freed, would have glibc carve every later
#: block up to 8 MB out of its heaps (over 2 GB: 81 MB at the 10th split, up to 91
#: by the 150th; with this, 71 and 77).
LARGE_BLOCK = 256 << 10
VERSION = "0.1.0"


@dataclass(frozen=True, slots=True)
class InputFile:
    """An input as given (``name``), where it is read from, and its SHA-256."""

    name: str
    path: str
    sha256: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"path": self.name, "sha256": self.sha256, "bytes": self.size}


@dataclass(slots=True)
class LoadSummary:
    """What one load did; ``lines == games_loaded + already_present + quarantined``."""

    run_id: int
    db: str
    files: list[InputFile] = field(default_factory=list)
    lines: int = 0
    games_loaded: int = 0
    already_present: int = 0
    quarantined: int = 0
    violations: int = 0
    batches: int = 0

    def describe(self) -> str:
        """One line saying where every input line went."""
        news = ""
        if not self.lines:
            news = " (the inputs hold no line: nothing to load)"
        elif self.lines == self.already_present:
            news = " (nothing new: every line was already loaded)"
        return (
            f"{self.db}: run {self.run_id}: {self.lines} lines = {self.games_loaded} games loaded"
            f" + {self.already_present} already present + {self.quarantined} quarantined;"
            f" {self.violations} violations recorded{news}"
        )

    @property
    def accounted(self) -> bool:
        return self.lines == self.games_loaded + self.already_present + self.quarantined

    @property
    def found_problems(self) -> bool:
        return bool(self.violations or self.quarantined)

    def to_json(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "run_id": self.run_id,
            "files": [f.to_json() for f in self.files],
            "lines": self.lines,
            "games_loaded": self.games_loaded,
            "already_present": self.already_present,
            "quarantined": self.quarantined,
            "violations": self.violations,
            "batches": self.batches,
        }


def load(
    paths: Sequence[str],
    db: str | Path,
    fmt: str = "auto",
    *,
    batch_size: int = BATCH_GAMES,
    on_line: Callable[[], None] | None = None,
    jobs: int = 1,
    on_batch: Callable[[LoadSummary], None] | None = None,
) -> LoadSummary:
    """Load inputs into the warehouse at ``db`` (created if missing); JSON Lines
    inputs are parsed and replayed on ``jobs`` processes.  ``on_line`` is called
    for each input line read, ``on_batch`` with the run's counts after each
    committed batch."""
    check_format(fmt)
    inputs = expand_inputs(paths, fmt)
    for target in (Path(db), Path(f"{db}.wal")):
        refuse_overwriting(target, inputs, "the warehouse a load writes cannot be one of its inputs")
    if jobs > 1 and _large_jsonl(inputs, fmt):
        from pipeline.forkserver import start_fresh_server

        start_fresh_server()  # the workers' imports overlap the hashing and the warehouse's opening
    with scratch_folder("load") as spool:
        files = [_input_file(p, Path(spool)) for p in inputs]
        with database_errors(db):
            con = connect(db, read_only=False)
            loader: _Loader | None = None
            try:
                _append_only(con)
                loader = _Loader(con, str(db), files, batch_size, on_line, jobs, on_batch, Path(spool))
                return loader.run(fmt)
            finally:
                con.close()
                if loader is not None:  # it may have reopened the database (REOPEN_EVERY)
                    loader.con.close()


def _large_jsonl(inputs: Sequence[str], fmt: str) -> bool:
    """Whether some input is a JSON Lines file large enough to be read by workers
    (:func:`pipeline.parallel.large_file`): a small one is read in this process,
    and the server's imports (some 2.5 CPU seconds) would be wasted.  A stream's
    size is not known: it does not count (its workers, if it brings more than a
    chunk, start the server when needed); nor does one that cannot be read
    (reading it fails later, with its message)."""
    from pipeline.parallel import large_file

    for path in inputs:
        with contextlib.suppress(TricklogError, OSError):
            if large_file(path) and reader_for(path, fmt) is read_jsonl:
                return True
    return False


@contextlib.contextmanager
def database_errors(db: str | Path, command: str = "load") -> Iterator[None]:
    """A database that cannot be written (disk full, a folder without write access,
    a file DuckDB refuses, a damaged block) is one line, saying what was kept."""
    import duckdb

    try:
        yield
    except duckdb.Error as e:
        raise WarehouseError(
            f"{db}: cannot write: {one_line(str(e))}; what was committed before is kept, "
            f"and running the same {command} again (once it can write) completes it"
        ) from e


#: The bytes of input whose newlines :func:`read_through` counts as one (a divisor of its reads).
NEWLINE_BLOCK = 1 << 16
#: Blocks read at a time (8 MB): each read lets go of the interpreter's lock, and
#: another busy thread (a Dask client starting its cluster) then holds it for up
#: to 5 ms: counting the newlines of 2 GB took 3.8 s read a MB at a time, 2.2 s 8 MB.
READ_BLOCKS = 128
#: Blocks hashed then counted at a time: 1 MB, read once from memory for both.
SLICE_BLOCKS = 16


def _input_file(name: str, spool: Path | None) -> InputFile:
    """Hash an input (stdin is first copied to a ``spool`` file, to be hashed and read;
    without a spool folder the caller has refused streams)."""
    path = name
    if is_stream(name):  # stdin, a pipe, a FIFO: read once, into a spool file, to be hashed and read
        assert spool is not None, "streams are refused before hashing without a spool"
        path = _spool(name, spool)
    digest = hashlib.sha256()
    try:  # what is hashed and read: lines appended meanwhile are the next load's
        stood: int | None = os.stat(path).st_size
    except OSError:
        stood = None  # read_through says why it cannot be read, as validate does
    size = read_through(name, path, digest, stop=stood)
    return InputFile(name, path, digest.hexdigest(), size)


def read_through(
    name: str,
    path: str,
    digest: Any = None,
    on_newlines: Callable[[list[int]], None] | None = None,
    stop: int | None = None,
) -> int:
    """Read the file at ``path`` (the input ``name``) once, feeding ``digest`` (a
    ``hashlib`` object) and giving ``on_newlines`` the newlines of each
    ``NEWLINE_BLOCK`` bytes as they are read; returns its size.  With ``stop``, its
    first ``stop`` bytes, as the load read them (a file that ends sooner shrank:
    :class:`~pipeline.sources.InputChanged`)."""
    size = 0
    # one buffer: a new bytes a read, freed, left malloc's heaps holding its pages
    chunk = bytearray(READ_BLOCKS * NEWLINE_BLOCK)
    view = memoryview(chunk)
    count = None if on_newlines is None else _block_newlines(chunk, on_newlines)
    with read_errors(name):
        open_binary(path).close()  # the same checks and messages as validate
        with open(path, "rb") as stream:
            while read := stream.readinto(chunk if stop is None else view[: min(len(chunk), stop - size)]):
                size += read
                for at in range(0, read, SLICE_BLOCKS * NEWLINE_BLOCK):  # hashed and counted in the cache
                    end = min(at + SLICE_BLOCKS * NEWLINE_BLOCK, read)
                    if digest is not None:
                        digest.update(view[at:end])
                    if count is not None:
                        count(at, end)
    if stop is not None and size < stop:
        raise shrank(name, stop)
    return size


def _block_newlines(chunk: bytearray, on_newlines: Callable[[list[int]], None]) -> Callable[[int, int], None]:
    """What gives ``on_newlines`` the newlines of each ``NEWLINE_BLOCK`` bytes of
    ``chunk[at:end]`` (``at`` at a block's start), compared in numpy into an array
    kept for the next slice: 17 GB/s here, against 3.6 for ``bytearray.count``,
    which holds the interpreter's lock."""
    import numpy as np

    found = np.empty(SLICE_BLOCKS * NEWLINE_BLOCK, np.bool_)

    def count(at: int, end: int) -> None:
        size = end - at
        np.equal(np.frombuffer(chunk, np.uint8, size, at), ord("\n"), out=found[:size])
        # a block at a time: 6x the speed of counting along an axis
        on_newlines(
            [
                int(np.count_nonzero(found[a : min(a + NEWLINE_BLOCK, size)]))
                for a in range(0, size, NEWLINE_BLOCK)
            ]
        )

    return count


@contextlib.contextmanager
def read_errors(name: str) -> Iterator[None]:
    """An input that cannot be read (``OSError``), as one line naming it."""
    try:
        yield
    except OSError as e:
        raise WarehouseError(f"{name}: cannot read: {failure(e)}") from e


def _spool(name: str, spool: Path) -> str:
    """Copy a stream, as it comes (compressed or not), to a new file of the spool folder."""
    path = spool / f"{len(list(spool.iterdir()))}-{'stdin' if name == STDIN else Path(name).name}"
    with read_errors(name):
        source = sys.stdin.buffer if name == STDIN else open(name, "rb")  # noqa: SIM115
        try:
            with open(path, "wb") as out:
                shutil.copyfileobj(source, out)
        finally:
            if source is not sys.stdin.buffer:
                source.close()
    with open(path, "rb") as copied:
        kind = compression_of(copied.read(HEAD_MAGIC))
    if kind is None:
        return str(path)
    if kind not in ENDING:
        raise TricklogError(misnamed(name, kind))
    if path.name.endswith(ENDING[kind]):
        return str(path)
    named = path.with_name(path.name + ENDING[kind])  # a stream has no name to tell: its first bytes do
    path.rename(named)
    return str(named)


def _raw_bytes(prepared: Prepared) -> int:
    return len(prepared.raw)


def items_with_raw(file: InputFile, fmt: str) -> Iterator[tuple[SourceItem, bytes]]:
    """Each item of an input with the raw text it came from (kept for quarantine)."""
    reader = reader_for(file.path, fmt)
    if reader is read_jsonl:
        for number, line in iter_lines(file.path, stop=file.size):
            yield parse_line(file.name, number, line), line
        return
    for item in reader(file.path, file.size):
        item.file = file.name
        raw = item.raw if item.raw is not None else orjson.dumps(item.record)
        yield item, raw


class _Loader:
    """One run: classifies each item, fills batches, commits them."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        db: str,
        files: list[InputFile],
        batch_size: int,
        on_line: Callable[[], None] | None,
        jobs: int,
        on_batch: Callable[[LoadSummary], None] | None,
        spool: Path,
    ) -> None:
        self.con = con
        #: Where workers leave the rows they built (:class:`~pipeline.warehouse.parallel_load.RowsFile`).
        self.spool = spool
        self.files = files
        self.batch_size = batch_size
        self.on_line = on_line
        self.on_batch = on_batch
        self.jobs = jobs
        self.summary = LoadSummary(_start_run(con, files), db, files)
        self.batch = Batch(self.summary.run_id)
        self.models = table_models()
        #: The games loaded, before this run and in it (their ids and content hashes).
        self.known = KnownIds.in_warehouse(con)
        #: Lines to quarantine in this batch, unless already quarantined (asked of the
        #: database at each flush: memory stays flat however many bad lines there are).
        self.pending = _PendingQuarantine()
        #: Games admitted in this batch: (file, line, digest, raw, replay); their rows go
        #: into the batch at flush, where a game whose rows do not fit is quarantined.
        self.admitted: list[tuple[InputFile, int, str, bytes, Replayed]] = []
        #: Bytes of the lines routed since the batch was last written (``BATCH_BYTES``).
        self.held = 0

    def run(self, fmt: str) -> LoadSummary:
        try:
            with _fewer_collections():
                for file in self.files:
                    self._read(file, fmt)
                self.flush()
        except BaseException as e:
            with contextlib.suppress(Exception):
                _end_run(self.con, self.summary.run_id, "aborted")
            from pipeline.parallel import WorkerLost  # loaded already, if one is lost

            if isinstance(e, WorkerLost):
                kept = " (what this load committed is kept: it goes on from there)"
                raise WorkerLost(kept, ended=e.ended) from None
            raise
        _end_run(self.con, self.summary.run_id, "complete")
        return self.summary

    def _read(self, file: InputFile, fmt: str) -> None:
        if reader_for(file.path, fmt) is read_jsonl:
            self._read_in_workers(file)
            return
        items = (prepare(item, raw) for item, raw in items_with_raw(file, fmt))
        ordinal = 0
        for chunk in bounded_chunks(items, CHUNK_ITEMS, _raw_bytes):
            self.known.ask(prepared.game_id for prepared in chunk)
            for prepared in chunk:
                ordinal += 1
                self.summary.lines += 1
                line = prepared.item.line if prepared.item.line is not None else ordinal
                self._classify(file, line, prepared)
                self.held += len(prepared.raw)
                if self.on_line is not None:
                    self.on_line()
                if self._full(len(self.admitted) + len(self.pending)):
                    self.flush()

    def _read_in_workers(self, file: InputFile) -> None:
        """Workers (this process, with one job or an input of one chunk) prepare
        chunks of lines (facts, and rows as Arrow tagged with their line); each line
        is routed here, in order, as :meth:`_classify` routes it, and the rows of the
        lines that stay go into the batch."""
        from pipeline.warehouse.parallel_load import prepared_chunks

        folder = self.spool / "rows"
        folder.mkdir(exist_ok=True)
        chunks = prepared_chunks(file, self.summary.run_id, self.jobs, self.known.ids(), folder)
        # closed before the spool folder is removed, the workers' files with it
        with contextlib.closing(chunks):
            self._route_chunks(file, chunks)

    def _route_chunks(self, file: InputFile, chunks: PreparedChunks) -> None:
        for chunk, facts, tables in chunks:
            raws = dict(chunk)
            self.known.ask(fact.game_id for fact in facts)
            kept: list[int] = []
            bad = [(f.line, raws[f.line]) for f in facts if not f.loadable and f.game_id not in self.known]
            present = {bad[i][0] for i in _already_quarantined(self.con, bad)}
            for fact in facts:
                self.summary.lines += 1
                if self._route(file, fact, raws[fact.line], fact.line in present):
                    kept.append(fact.line)
                self.held += len(raws[fact.line])
                if self.on_line is not None:
                    self.on_line()
                if self._full(len(kept)):
                    self._take(tables, kept)
                    self.flush()
            self._take(tables, kept, every=len(kept) == len(chunk))

    def _full(self, waiting: int) -> bool:
        """Whether the batch is to be written, with ``waiting`` more lines on their way into it."""
        return len(self.batch) + waiting >= self.batch_size or self.held >= BATCH_BYTES

    def _take(self, tables: dict[str, pa.Table], kept: list[int], *, every: bool = False) -> None:
        """Into the batch: the rows of the ``kept`` lines (then forgotten); ``every``:
        they are all the chunk's lines, so every row stays (no filtering)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from pipeline.warehouse.tables import LINE

        if kept:
            lines = pa.array(kept, pa.int64())
            for table, data in tables.items():
                rows = data if every else data.filter(pc.is_in(data[LINE], value_set=lines))
                self.batch.add_arrow(table, rows.drop_columns([LINE]))
            kept.clear()

    def _route(self, file: InputFile, fact: LineFact, raw: bytes, quarantined: bool) -> bool:
        """One prepared line routed; True when the rows the worker built for it stay
        (a game loaded, or a line quarantined by the worker).  ``quarantined``: the
        same bytes at the same line number are in quarantine already."""
        line = fact.line
        s = self.summary
        game_id = fact.game_id
        if fact.is_game and game_id is not None and game_id in self.known:
            assert fact.digest is not None
            self._known_id(file, line, game_id, fact.digest, raw)
            return False
        s.violations += fact.violations
        if fact.loadable:
            assert game_id is not None and fact.digest is not None
            self.known.add(game_id, fact.digest)
            s.games_loaded += 1
            return True
        if quarantined or not self.pending.add_key(line, raw):
            s.violations -= fact.violations
            s.already_present += 1  # loaded before, or the same line earlier in this batch
            return False
        s.quarantined += 1
        return True

    def _classify(self, file: InputFile, line: int, prepared: Prepared) -> None:
        """Route one item to games, quarantine or already present."""
        raw = prepared.raw
        if not prepared.is_game:
            located = [v.at(file=file.name, line=line) for v in prepared.item.violations]
            reason = located[0] if located else _violation("malformed_json", "not a game", None, file, line)
            self._quarantine(file, line, None, reason, raw, located or [reason])
            return
        assert prepared.digest is not None
        game_id = prepared.game_id
        if game_id is not None and game_id in self.known:
            self._known_id(file, line, game_id, prepared.digest, raw)
            return
        replayed = prepared.replayed or replay_for_load(
            prepared.item, line, prepared.digest, self.summary.run_id
        )
        self._admit(file, line, prepared.digest, raw, replayed)

    def _known_id(self, file: InputFile, line: int, game_id: str, digest: str, raw: bytes) -> None:
        if self.known.same_content(game_id, digest):
            self.summary.already_present += 1
            return
        reason = _violation("duplicate_game", other_content(game_id), game_id, file, line, path="game_id")
        self._quarantine(file, line, game_id, reason, raw, [reason])

    def _admit(self, file: InputFile, line: int, digest: str, raw: bytes, replayed: Replayed) -> None:
        """A replayed game into ``games``, or into quarantine when it cannot be loaded."""
        game_id, violations, blocking = replayed.game_id, replayed.violations, replayed.blocking
        if blocking or game_id is None:
            reason = _violation(
                "schema", "; ".join(v.message for v in blocking), game_id, file, line, path=blocking[0].path
            )
            self._quarantine(file, line, game_id, reason, raw, violations)
        elif replayed.rows is None:
            reason = _violation("unsupported", replayed.unsupported or "", game_id, file, line)
            self._quarantine(file, line, game_id, reason, raw, violations)
        else:
            self.admitted.append((file, line, digest, raw, replayed))
            self.known.add(game_id, digest)
            self.summary.games_loaded += 1
            self.summary.violations += len(violations)

    def _quarantine(
        self,
        file: InputFile,
        line: int,
        game_id: str | None,
        reason: Violation,
        raw: bytes,
        violations: list[Violation],
    ) -> None:
        if not self.pending.add(((file.name, file.sha256, line), game_id, reason, raw, violations)):
            self.summary.already_present += 1  # the same line earlier in this batch

    def _settle_quarantine(self) -> None:
        """Move the batch's pending lines into quarantine, but for those already there
        (the same content at the same line number: a file loaded again, or grown)."""
        pending, self.pending = self.pending, _PendingQuarantine()
        present = _already_quarantined(self.con, [(e[0][2], e[3]) for e in pending.entries])
        for i, (where, game_id, reason, raw, violations) in enumerate(pending.entries):
            if i in present:
                self.summary.already_present += 1
                continue
            self.batch.add_quarantine(where, game_id, reason, raw)
            self.batch.add_violations(violations)
            self.summary.quarantined += 1
            self.summary.violations += len(violations)

    def flush(self) -> None:
        """Write the batch in one transaction, with the run's counts so far."""
        self._settle_quarantine()
        frames = self._checked_batch()
        # Rows the workers built come as Arrow, checked where they were built (the
        # replay's rows against the models, the fast path's by its kernel): as they are.
        built = self.batch.arrow_tables()
        con, s = self.con, self.summary
        con.begin()
        try:
            for table in [*frames, *(t for t in built if t not in frames)]:
                if table in frames:
                    _insert(con, table, frames[table].to_arrow())
                if table in built:
                    _insert(con, table, built[table])
            s.batches += 1
            con.execute(
                "update ingest_runs set lines = ?, games_loaded = ?, already_present = ?, "
                "quarantined = ?, violations = ?, batches = ? where run_id = ?",
                [
                    s.lines,
                    s.games_loaded,
                    s.already_present,
                    s.quarantined,
                    s.violations,
                    s.batches,
                    s.run_id,
                ],
            )
            con.commit()
            self.known.committed()
        except BaseException:
            with contextlib.suppress(Exception):  # a failed commit has already ended it
                con.rollback()
            raise
        _drop_cached_blocks(con)
        if s.batches % REOPEN_EVERY == 0:
            con.close()
            self.con = reopened(s.db, s.run_id)
        self.batch = Batch(s.run_id)
        self.admitted = []
        self.held = 0
        if self.on_batch is not None:
            self.on_batch(s)

    def _checked_batch(self) -> dict[str, pl.DataFrame]:
        """The batch's frames, checked; a game whose rows do not fit the tables (a value
        out of a column's range, from a hostile record) is quarantined instead."""
        try:
            return _checked_frames(self._with_games(self.admitted), self.models)
        except Exception:
            pass
        fitting = []
        for game in self.admitted:
            try:
                _checked_frames(self._with_games([game], Batch(self.summary.run_id)), self.models)
                fitting.append(game)
            except Exception as e:
                self._misfit(game, e)
        self._settle_quarantine()
        self.admitted = fitting
        return _checked_frames(self._with_games(fitting), self.models)

    def _with_games(
        self, games: list[tuple[InputFile, int, str, bytes, Replayed]], base: Batch | None = None
    ) -> Batch:
        batch = Batch(self.summary.run_id)
        batch.extend((base or self.batch).rows)  # its Arrow tables are checked already
        for *_, replayed in games:
            assert replayed.rows is not None  # with the game's violations
            batch.extend(replayed.rows)
        return batch

    def _misfit(self, game: tuple[InputFile, int, str, bytes, Replayed], error: Exception) -> None:
        file, line, _, raw, replayed = game
        self.summary.games_loaded -= 1
        self.summary.violations -= len(replayed.violations)
        if replayed.game_id is not None:
            self.known.forget(replayed.game_id)
        reason = _violation("schema", misfit_message(error), replayed.game_id, file, line)
        self._quarantine(file, line, replayed.game_id, reason, raw, [reason, *replayed.violations])


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Freeze what exists (modules, the known ids) and collect young objects less often.

    A load allocates millions of short-lived acyclic objects (replays, rows);
    the default thresholds spend a sixth of the time collecting them.
    """
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def other_content(game_id: str) -> str:
    """The message of a line whose id is loaded already, with other content (the
    single-machine load's and the Dask path's routing say the same)."""
    return f"game_id {game_id!r} is already loaded with different content; this line is quarantined"


def _violation(
    code: str, message: str, game_id: str | None, file: InputFile, line: int, path: str = ""
) -> Violation:
    return Violation(code, message, game_id, None, path, file.name, line)


def _checked_frames(batch: Batch, models: dict[str, type[pa.DataFrameModel]]) -> dict[str, pl.DataFrame]:
    """The non-empty frames of the rows built here, each validated by its pandera
    model (materialised, not lazy)."""
    frames = batch.frames(models)
    for table, frame in frames.items():
        models[table].validate(frame)
    return frames


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: pyarrow.Table) -> None:
    """Bulk insert Arrow rows (``table`` is one of the fixed table names)."""
    with registered(con, "_tricklog_batch", rows):
        con.execute(f"insert into {table} by name select * from _tricklog_batch")


def _append_only(con: duckdb.DuckDBPyConnection) -> None:
    """Checkpoints without vacuum while loading.  A load deletes nothing, so there is
    nothing to reclaim, but vacuum also merges the tables' row groups, reading and
    rewriting them: its memory grows with the tables (hundreds of MB on a 2 GB input)."""
    con.execute("set max_vacuum_tasks = 0")


def reopened(db: str, run_id: int, wait: float = REOPEN_WAIT) -> duckdb.DuckDBPyConnection:
    """The database of run ``run_id``, closed between two of its batches, open again
    (``REOPEN_EVERY``).  Another process may have opened it meanwhile: a reader is
    waited for, up to ``wait`` seconds; if another load wrote to it, its games are
    not among those this run knows of, so this run stops there (its batches so far
    are committed, and running it again completes it)."""
    deadline = time.monotonic() + wait
    pause = 0.01
    while True:
        try:
            con = connect(db, read_only=False)
            break
        except DatabaseInUse as e:
            if time.monotonic() + pause > deadline:
                raise WarehouseError(
                    f"{e.in_use}, which opened it between two batches of this load and held it for over "
                    f"{wait:g} s; what was committed is kept, and running the same load again completes it"
                ) from e
            time.sleep(pause)
            pause = min(2 * pause, 0.5)
    try:
        _append_only(con)
        latest = scalar(con, "select max(run_id) from ingest_runs")
        status = scalar(con, "select status from ingest_runs where run_id = ?", [run_id])
        if (latest, status) != (run_id, "running"):
            raise WarehouseError(
                f"{db}: another load (run {latest}) wrote to the database between two batches of this one "
                f"(run {run_id}); what this run committed is kept, and running it again completes it"
            )
    except BaseException:
        con.close()
        raise
    return con


def _drop_cached_blocks(con: duckdb.DuckDBPyConnection) -> None:
    """Evict the blocks DuckDB keeps after a commit.  It caches every block it wrote
    until memory runs short, so a load's memory would grow with its input; a load
    never reads them back.  A short-lived lower memory limit evicts them."""
    import duckdb

    limit = scalar(con, "select current_setting('memory_limit')")
    try:
        con.execute(f"set memory_limit = '{EVICT_TO}'")
    except duckdb.Error:
        pass  # more is pinned than that: nothing is lost, the cache is only bigger
    finally:
        con.execute(f"set memory_limit = '{limit}'")


def _start_run(con: duckdb.DuckDBPyConnection, files: list[InputFile]) -> int:
    """Mark runs left 'running' by a killed load as aborted; open this run's row."""
    con.begin()
    con.execute("update ingest_runs set status = 'aborted' where status = 'running'")
    run_id = int(scalar(con, "select coalesce(max(run_id), 0) + 1 from ingest_runs"))
    con.execute(
        "insert into ingest_runs (run_id, started_at, status, files, tricklog_version) "
        "values (?, now(), 'running', ?, ?)",
        [run_id, [f.to_json() for f in files], VERSION],
    )
    con.commit()
    return run_id


def _end_run(con: duckdb.DuckDBPyConnection, run_id: int, status: str) -> None:
    con.execute("update ingest_runs set status = ?, ended_at = now() where run_id = ?", [status, run_id])


Pending = tuple[tuple[str, str, int], str | None, Violation, bytes, list[Violation]]


class _PendingQuarantine:
    """The lines a batch would quarantine, each (line, content) once."""

    def __init__(self) -> None:
        self.entries: list[Pending] = []
        self._keys: set[tuple[int, str]] = set()

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entry: Pending) -> bool:
        """Keep an entry; False when the same content at the same line is already kept."""
        if not self.add_key(entry[0][2], entry[3]):
            return False
        self.entries.append(entry)
        return True

    def add_key(self, line: int, raw: bytes) -> bool:
        """Note a line quarantined in this batch; False when the same content at the
        same line is noted already."""
        key = (line, hashlib.sha256(raw).hexdigest())
        if key in self._keys:
            return False
        self._keys.add(key)
        return True


def _already_quarantined(con: duckdb.DuckDBPyConnection, entries: list[tuple[int, bytes]]) -> set[int]:
    """The indexes of the (line number, raw bytes) entries already in quarantine."""
    import pyarrow as pa

    if not entries:
        return set()
    lines = [line for line, _ in entries]
    keys = pa.table(
        {
            "i": pa.array(range(len(entries)), pa.int64()),
            "line": pa.array(lines, pa.int64()),
            "raw": pa.array([raw for _, raw in entries], pa.binary()),
        }
    )
    with registered(con, "_tricklog_keys", keys):
        rows = con.execute(
            "select distinct k.i from _tricklog_keys k join quarantine q "
            "on q.line = k.line and q.raw = k.raw where q.line between ? and ?",
            [min(lines), max(lines)],
        ).fetchall()
    return {int(r[0]) for r in rows}
