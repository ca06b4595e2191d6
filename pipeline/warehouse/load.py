"""Loading inputs into the warehouse: replay, account, write in batches.

Every non-empty input line lands in exactly one place:

* a ``games`` row (with its hands, bids, tricks, plays and violations);
* a ``quarantine`` row: the line could not become a game (not JSON, not an
  object, required fields missing, a known ``game_id`` with other content);
* the run's ``already_present`` count: the same game (same id, same content)
  or the same quarantined line (same file content, same line) is loaded.

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
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pipeline.sources import STDIN, SourceItem, expand_inputs, iter_lines, open_binary, parse_line, read_jsonl
from pipeline.validate import check_format, reader_for
from pipeline.violations import Violation
from pipeline.warehouse.ddl import WarehouseError, connect, scalar, table_models
from pipeline.warehouse.prepare import Prepared, Replayed, prepare, replay_for_load
from pipeline.warehouse.tables import Batch

if TYPE_CHECKING:
    import pyarrow as pa

    from pipeline.warehouse.dask_engine import LineFact

if TYPE_CHECKING:
    import duckdb
    import pandera.polars as pa
    import polars as pl

BATCH_GAMES = 5000
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
        news = " (nothing new: every line was already loaded)" if self.lines == self.already_present else ""
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
    with tempfile.TemporaryDirectory(prefix="tricklog-load-") as spool:
        files = [_input_file(p, Path(spool)) for p in expand_inputs(paths)]
        con = connect(db, read_only=False)
        try:
            loader = _Loader(con, str(db), files, batch_size, on_line, jobs, on_batch)
            return loader.run(fmt)
        finally:
            con.close()


def _input_file(name: str, spool: Path) -> InputFile:
    """Hash an input (stdin is first copied to a spool file, to be hashed and read)."""
    path = name
    if name == STDIN:
        path = str(spool / "stdin")
        with open(path, "wb") as out:
            shutil.copyfileobj(sys.stdin.buffer, out)
    digest = hashlib.sha256()
    size = 0
    try:
        open_binary(path).close()  # the same checks and messages as validate
        with open(path, "rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
    except OSError as e:
        raise WarehouseError(f"{name}: cannot read: {e.strerror or e}") from e
    return InputFile(name, path, digest.hexdigest(), size)


def items_with_raw(file: InputFile, fmt: str) -> Iterator[tuple[SourceItem, bytes]]:
    """Each item of an input with the raw text it came from (kept for quarantine)."""
    reader = reader_for(file.path, fmt)
    if reader is read_jsonl:
        for number, line in iter_lines(file.path):
            yield parse_line(file.name, number, line), line
        return
    for item in reader(file.path):
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
        jobs: int = 1,
        on_batch: Callable[[LoadSummary], None] | None = None,
    ) -> None:
        self.con = con
        self.files = files
        self.batch_size = batch_size
        self.on_line = on_line
        self.on_batch = on_batch
        self.jobs = jobs
        self.summary = LoadSummary(_start_run(con, files), db, files)
        self.batch = Batch(self.summary.run_id)
        self.models = table_models()
        #: game_id -> content hash of every game loaded, and quarantined (sha, line) keys.
        self.known: dict[str, str] = dict(con.execute("select game_id, content_hash from games").fetchall())
        self.quarantined = _quarantined_keys(con, files)

    def run(self, fmt: str) -> LoadSummary:
        try:
            with _fewer_collections():
                for file in self.files:
                    self._read(file, fmt)
                self.flush()
        except BaseException:
            with contextlib.suppress(Exception):
                _end_run(self.con, self.summary.run_id, "aborted")
            raise
        _end_run(self.con, self.summary.run_id, "complete")
        return self.summary

    def _read(self, file: InputFile, fmt: str) -> None:
        if reader_for(file.path, fmt) is read_jsonl:
            self._read_in_workers(file)
            return
        items = (prepare(item, raw) for item, raw in items_with_raw(file, fmt))
        for ordinal, prepared in enumerate(items, start=1):
            self.summary.lines += 1
            line = prepared.item.line if prepared.item.line is not None else ordinal
            self._classify(file, line, prepared)
            if self.on_line is not None:
                self.on_line()
            if len(self.batch) >= self.batch_size:
                self.flush()

    def _read_in_workers(self, file: InputFile) -> None:
        """Workers (this process, with one job) prepare chunks of lines (facts, and
        rows as Arrow tagged with their line); each line is routed here, in order,
        as :meth:`_classify` routes it, and the rows of the lines that stay go into
        the batch."""
        from pipeline.warehouse.parallel_load import prepare_here, prepare_in_workers

        run_id = self.summary.run_id
        if self.jobs > 1:
            chunks = prepare_in_workers(file, run_id, self.jobs, set(self.known))
        else:
            chunks = prepare_here(file, run_id, self.known.keys())
        for chunk, facts, tables in chunks:
            raws = dict(chunk)
            kept: list[int] = []
            for fact in facts:
                self.summary.lines += 1
                if self._route(file, fact, raws[fact.line]):
                    kept.append(fact.line)
                if self.on_line is not None:
                    self.on_line()
                if len(self.batch) + len(kept) >= self.batch_size:
                    self._take(tables, kept)
                    self.flush()
            self._take(tables, kept)

    def _take(self, tables: dict[str, pa.Table], kept: list[int]) -> None:
        """Into the batch: the rows of the ``kept`` lines (then forgotten)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from pipeline.warehouse.dask_engine import LINE

        if kept:
            lines = pa.array(kept, pa.int64())
            for table, data in tables.items():
                rows = data.filter(pc.is_in(data[LINE], value_set=lines)).drop_columns([LINE])
                self.batch.add_arrow(table, rows)
            kept.clear()

    def _route(self, file: InputFile, fact: LineFact, raw: bytes) -> bool:
        """One prepared line routed; True when the rows the worker built for it stay
        (a game loaded, or a line quarantined by the worker)."""
        line = fact.line
        key = (file.sha256, line)
        s = self.summary
        if key in self.quarantined:
            s.already_present += 1
            return False
        game_id = fact.game_id
        if fact.is_game and game_id is not None and game_id in self.known:
            assert fact.digest is not None
            self._known_id(file, line, game_id, fact.digest, raw)
            return False
        s.violations += fact.violations
        if fact.loadable:
            assert game_id is not None and fact.digest is not None
            self.known[game_id] = fact.digest
            s.games_loaded += 1
        else:
            self.quarantined.add(key)
            s.quarantined += 1
        return True

    def _classify(self, file: InputFile, line: int, prepared: Prepared) -> None:
        """Route one item to games, quarantine or already present."""
        key = (file.sha256, line)
        if key in self.quarantined:
            self.summary.already_present += 1
            return
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
        if self.known[game_id] == digest:
            self.summary.already_present += 1
            return
        message = f"game_id {game_id!r} is already loaded with different content; this line is quarantined"
        reason = _violation("duplicate_game", message, game_id, file, line, path="game_id")
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
            self.batch.extend(replayed.rows)
            self.known[game_id] = digest
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
        self.batch.add_quarantine((file.name, file.sha256, line), game_id, reason, raw)
        self.batch.add_violations(violations)
        self.quarantined.add((file.sha256, line))
        self.summary.quarantined += 1
        self.summary.violations += len(violations)

    def flush(self) -> None:
        """Write the batch in one transaction, with the run's counts so far."""
        frames = _checked_frames(self.batch, self.models)
        con, s = self.con, self.summary
        con.begin()
        try:
            for table, frame in frames.items():
                _insert(con, table, frame)
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
        except BaseException:
            con.rollback()
            raise
        self.batch = Batch(s.run_id)
        if self.on_batch is not None:
            self.on_batch(s)


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


def _violation(
    code: str, message: str, game_id: str | None, file: InputFile, line: int, path: str = ""
) -> Violation:
    return Violation(code, message, game_id, None, path, file.name, line)


def _checked_frames(batch: Batch, models: dict[str, type[pa.DataFrameModel]]) -> dict[str, pl.DataFrame]:
    """The batch's non-empty frames, each validated by its pandera model (materialised, not lazy)."""
    frames = batch.frames(models)
    for table, frame in frames.items():
        models[table].validate(frame)
    return frames


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    """Bulk insert a frame through Arrow (``table`` is one of the fixed table names)."""
    con.register("_tricklog_batch", frame.to_arrow())
    try:
        con.execute(f"insert into {table} by name select * from _tricklog_batch")
    finally:
        con.unregister("_tricklog_batch")


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


def _quarantined_keys(con: duckdb.DuckDBPyConnection, files: list[InputFile]) -> set[tuple[str, int]]:
    """The (file_sha256, line) of lines of these inputs already quarantined."""
    shas = sorted({f.sha256 for f in files})
    rows = con.execute(
        "select file_sha256, line from quarantine where list_contains(?, file_sha256)", [shas]
    ).fetchall()
    return {(sha, int(line)) for sha, line in rows}
