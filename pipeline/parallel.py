"""Replaying JSON Lines on several cores (``validate --jobs``, ``load --jobs``).

The calling process reads lines and hands them, raw, in chunks to worker
processes (:func:`in_workers`), which parse and replay them and send back what
the caller needs: for ``validate`` a small digest of each game, for ``load``
its rows (``pipeline.warehouse.parallel_load``).  Results come back in input
order; the accounting of lines and the check for repeated ids stay with the
caller.  At most a few chunks are in flight, so memory stays bounded however
large the input.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from itertools import chain, count, islice
from typing import Any, TypeVar

from pipeline import kernels
from pipeline.copies import fingerprints_of
from pipeline.cores import usable_cores
from pipeline.forkserver import worker_context
from pipeline.games import ClearedReplay, clear_lines, replay_items
from pipeline.sources import SourceItem, bounded_chunks, is_stream, iter_lines, line_bytes, parse_line
from pipeline.violations import TricklogError, Violation

T = TypeVar("T")
R = TypeVar("R")

#: Lines per task sent to a worker: enough to amortise the hand-over and to
#: give the fast path (``Game.fast_check``) a batch worth a compiled call.  A
#: worker's memory is mostly the chunk it is on (its parsed records, its rows):
#: on the benchmark's 200 MB, ``validate``'s processes peaked at 537 MB together
#: with 1,000 lines against 640 with 2,000, and took 5 % less CPU.
CHUNK_LINES = 1000
#: Tasks in flight per worker: the one it is on and the next, sent.  The calling
#: process holds the lines of each until its result is in: with three a worker,
#: ``validate``'s processes peaked at 522-528 MB on the benchmark's 200 MB, with
#: two at 515-519, in the same time (2.49-2.86 s against 2.50-2.86, six runs in turn).
AHEAD = 2
#: How far below the calling process's the workers' priority is (``os.nice``; 10,
#: as the ``nice`` command's default).  The caller takes every result, in order,
#: and then does its own part: ``load``'s appends each batch to DuckDB (on its
#: thread and one of DuckDB's) and is the bottleneck, its workers chunks ahead and
#: waiting; ``validate``'s tracks copies.  On two cores, the workers and the
#: caller's threads shared them alike; now the caller runs whenever it can and
#: the workers take the rest.  On the benchmark's 200 MB, a load took 7.30 s and
#: 8.14 s before, 6.67 and 7.44 after (medians of 6 and of 8 interleaved runs);
#: ``validate``, where the workers are most of the work, 3.11, 3.84 and 2.58 s
#: before, 2.99, 3.71 and 2.56 after (8, 12 and 8 runs).  Where a system groups a
#: session's processes (Linux's autogroup), this orders the command's own
#: processes, not the command against other programs.
WORKER_NICENESS = 10
#: Inputs smaller than this are replayed without the fast path: loading its
#: compiled kernel (about half a CPU second) would cost more than it saves.
FAST_PATH_MIN_BYTES = int(os.environ.get("TRICKLOG_FAST_PATH_MIN_BYTES", 4 << 20))


def fast_path_for(path: str) -> bool:
    """Whether a file is large enough for the fast path and its kernels are compiled
    (:func:`pipeline.kernels.ready`).  A stream, whose size is not known ahead, is
    taken chunk by chunk (:func:`chunks_with_fast_path`)."""
    return large_file(path) and kernels.ready()


def large_file(path: str) -> bool:
    """Whether ``path`` is a file (not a stream) of ``FAST_PATH_MIN_BYTES`` or more."""
    try:
        return not is_stream(path) and os.stat(path).st_size >= FAST_PATH_MIN_BYTES
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class HandDigest:
    deal_known: bool


KNOWN_DEAL, INFERRED_DEAL = HandDigest(True), HandDigest(False)


@dataclass(slots=True)
class ReplayDigest:
    """What ``validate`` needs of a replay, small enough to send between processes."""

    game_id: str | None
    violations: list[Violation]
    hands: list[HandDigest]
    unknown_fields: list[str]
    #: The hands' fingerprints (copies are recognised in the calling process).
    fingerprints: list[str | None] | None = None


#: (line number, raw text when the line is no game, the game's digest, located violations)
LineResult = tuple[int, bytes | None, ReplayDigest | None, list[Violation]]


def jobs_for(requested: int) -> int:
    """The number of worker processes: ``requested``, or for 0 one per core this
    process may use (:func:`pipeline.cores.usable_cores`)."""
    return requested if requested > 0 else usable_cores()


def worth_spreading(
    tasks: Iterator[T],
    work: Callable[[T], R],
    jobs: int,
    *,
    here: Callable[[T], R] | None = None,
    fresh: bool = False,
    setup: tuple[Callable[..., None], tuple[Any, ...]] | None = None,
    ahead: int = AHEAD,
) -> Iterator[tuple[T, R]]:
    """Each task with ``work(task)``, in order: done by :func:`in_workers` (``jobs``,
    ``fresh``, ``setup``, ``ahead``), or in this process with ``here`` (``work``, unless
    given) when there is one job or a single task.  Workers cost more to start than
    one chunk's work: ``load`` of a 70-line file took 1.8 s on two processes, 1.4 s on one."""
    first = list(islice(tasks, 2))
    tasks = chain(first, tasks)
    if jobs > 1 and len(first) > 1:
        return in_workers(tasks, work, jobs, fresh=fresh, setup=setup, ahead=ahead)
    run = here or work
    return ((task, run(task)) for task in tasks)


def in_workers(
    chunks: Iterator[T],
    work: Callable[[T], R],
    jobs: int,
    *,
    fresh: bool = False,
    setup: tuple[Callable[..., None], tuple[Any, ...]] | None = None,
    ahead: int = AHEAD,
    for_jobs: bool = True,
) -> Iterator[tuple[T, R]]:
    """Each chunk with ``work(chunk)``, done by ``jobs`` processes, in order; at most
    ``ahead`` chunks per process are in flight (sent, being done, or done and waiting).
    ``for_jobs``: the command has a ``--jobs`` (a worker the system killed says fewer would do).

    Workers are forked from this process (cheap: they share what it has
    loaded), unless ``fresh``: then they start from a clean server process, as
    a caller holding an open database connection needs (a forked child would
    share its file handles and locks).  ``setup`` is ``(function, args)`` run
    once in each worker as it starts.  The workers run at a lower priority than
    this process, which takes their results (``WORKER_NICENESS``).

    A worker that ends before its chunk is done (killed: by the system when
    memory runs out, or by hand) is a :class:`WorkerLost`, not a wait for good:
    a ``multiprocessing.Pool`` started another worker and waited for the lost
    chunk for ever (and, had the worker died sending a result, its queue's lock
    held, the pool could not even be closed)."""
    pending: deque[tuple[T, Future[R]]] = deque()
    pool = ProcessPoolExecutor(
        jobs, worker_context(fresh), initializer=_start_worker, initargs=(os.getpid(), setup)
    )
    try:
        with lost_worker_reported(jobs=for_jobs, pool=pool):
            for done in count(1):
                while len(pending) < jobs * ahead and (chunk := next(chunks, None)) is not None:
                    pending.append((chunk, pool.submit(work, chunk)))
                if not pending:
                    return
                chunk, result = pending.popleft()
                yield chunk, result.result()
                if done % TRIM_EVERY == 0:
                    release_freed_memory()
    finally:  # the chunks not started are dropped; those in the workers end first
        pool.shutdown(wait=True, cancel_futures=True)


class WorkerLost(TricklogError):
    """A worker process ended before its chunk was done: ``ended`` is its exit code
    (minus a signal's number when it was killed: by the system when memory runs
    out, most often), or None when it is not known."""

    def __init__(self, kept: str = "", *, jobs: bool = True, ended: int | None = None) -> None:
        self.ended = ended
        cause, advice = _how(ended, jobs)
        super().__init__(f"a worker process ended before its work was done ({cause}){advice}{kept}")


def _how(ended: int | None, jobs: bool) -> tuple[str, str]:
    """How a worker ended, and what to do about it.

    >>> _how(1, True)
    ('it failed, exit code 1: its error is above', '')
    >>> _how(-11, False)
    ('killed by SIGSEGV', '; run the command again')
    >>> _how(-9, False)
    ('most often the system killed it, out of memory', '; run the command again with more memory')
    """
    if ended is not None and ended >= 0:  # 0: a worker whose start failed, which printed why and returned
        return f"it failed, exit code {ended}: its error is above", ""
    if ended is not None and -ended != signal.SIGKILL:
        with suppress(ValueError):
            return f"killed by {signal.Signals(-ended).name}", "; run the command again"
    fewer = ", or fewer --jobs" if jobs else ""
    return (
        "most often the system killed it, out of memory",
        f"; run the command again with more memory{fewer}",
    )


def how_a_worker_ended(pool: ProcessPoolExecutor | None) -> int | None:
    """The exit code of a broken ``pool``'s worker that ended on its own, once the
    pool is shut down (None if unknown): a failure's first (0 or more), else a
    signal's other than the SIGTERM the pool stopped the others with, else that one.

    The codes are read after the pool's own thread has joined its workers: read
    while it does, a fork server's child gives its code to one reader only."""
    if pool is None:
        return None
    try:  # the pool's private table of its workers: none, in a Python without one
        processes = list((getattr(pool, "_processes", None) or {}).values())
    except RuntimeError:  # changed while read
        processes = []
    pool.shutdown(wait=True, cancel_futures=True)
    codes = []
    for process in processes:
        with suppress(Exception):
            codes.append(process.exitcode)
    known = [code for code in codes if code is not None]
    return min(known, key=lambda code: (code < 0, code == -signal.SIGTERM), default=None)


@contextmanager
def lost_worker_reported(
    kept: str = "", *, jobs: bool = True, pool: ProcessPoolExecutor | None = None
) -> Iterator[None]:
    """A ``pool``'s worker gone (``BrokenProcessPool``) as a :class:`WorkerLost`, which
    says how it ended (the pool is then shut down), what was ``kept``, and for a
    command with ``jobs`` killed by the system, that fewer would do."""
    try:
        yield
    except BrokenProcessPool:
        raise WorkerLost(kept, jobs=jobs, ended=how_a_worker_ended(pool)) from None


def leave_interrupts_to_the_caller(command: int | None = None) -> None:
    """A worker's start: Ctrl-C, which reaches every process of the command, is left
    to the caller, which stops the pool (each worker printed a traceback); ``kill``
    ends it as it ends any process (a worker forked from the command had the
    command's handler); and it ends with the process that started it
    (:func:`end_with_parent`) and with the process ``command`` (:func:`end_with`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    end_with_parent()
    if command is not None:
        end_with(command)


#: Linux's ``prctl`` option that names the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1


def end_with_parent() -> None:
    """Have this process killed when its parent ends, however the parent ended (Linux;
    elsewhere nothing).  A worker's parent is the command (forked workers) or the
    fork server.  Left alone, the forked workers of a command killed with ``kill``
    or ``kill -9`` lived on: those of ``simulate`` blocked for ever sending a
    result nobody would read, holding their memory."""
    libc = _libc()
    if not libc or not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


def end_with(command: int) -> None:
    """Have this process end when the process ``command`` does, from a thread that
    waits for it (Linux 5.3 and later; elsewhere nothing).  A worker from the fork
    server is the server's child, and the server lives as long as any of its
    workers: after ``kill -9`` of a ``load`` (or the system killing it, out of
    memory), its workers blocked for ever sending results nobody would read,
    and the server and they held their memory."""
    if command == os.getppid():  # a forked worker: end_with_parent does it
        return
    try:
        ended = os.pidfd_open(command)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):
        return

    def wait() -> None:
        select.select([ended], [], [])
        os._exit(1)

    threading.Thread(target=wait, name="tricklog-end-with-command", daemon=True).start()


def _start_worker(command: int, setup: tuple[Callable[..., None], tuple[Any, ...]] | None) -> None:
    """A worker's start: Ctrl-C left to the caller (the process ``command``), a
    priority below its caller's (``WORKER_NICENESS``; left as it is where there is
    no ``os.nice``), then the caller's ``setup``, if any."""
    leave_interrupts_to_the_caller(command)
    with suppress(AttributeError, OSError):
        os.nice(WORKER_NICENESS)
    if setup is not None:
        function, args = setup
        function(*args)


#: Chunks received between two :func:`release_freed_memory`.
TRIM_EVERY = 8


def release_freed_memory() -> None:
    """Give the pages malloc holds free back to the system (glibc only; else nothing).

    The workers' results arrive as large buffers, freed a chunk later; glibc
    keeps what they leave free in its heaps, and the main process's memory
    grew with the input while what it held stayed flat (``validate``'s: 140
    to 200 MB over 2 GB; with this, 140 to about 180, the growth of its key
    tables).  A fixed mmap threshold (:func:`map_large_blocks`) flattened it too,
    at 7% of ``validate``'s run time."""
    libc = _libc()
    if libc:
        libc.malloc_trim(0)


#: glibc's ``mallopt`` parameter number of the mmap threshold.
M_MMAP_THRESHOLD = -3


def map_large_blocks(threshold: int) -> bool:
    """Have malloc map every block of ``threshold`` bytes or more on its own pages,
    unmapped as soon as it is freed, for the rest of the process's life (glibc
    only: elsewhere nothing, and False).

    glibc otherwise raises its threshold to the size of the largest mapped
    block freed so far (up to 32 MB) and from then on carves such blocks out of
    its heaps, which keep what they leave free.  A command that allocates and
    frees blocks of megabytes all along (a load's main process: each chunk's
    rows from the workers, DuckDB's blocks of 256 KB) holds less that way."""
    libc = _libc()
    return bool(libc) and libc.mallopt(M_MMAP_THRESHOLD, threshold) == 1


def arrow_on_malloc() -> None:
    """Have Arrow take its buffers from malloc (its "system" pool) rather than the
    mimalloc it bundles, for the rest of the process's life (the workers get
    it through ``WORKER_ENV``).

    mimalloc keeps the segments a chunk's buffers freed for the next one, and
    its peaks varied more: a Dask worker staging 12 MB splits peaked at 460 to
    493 MB a split on mimalloc, 444 to 456 on malloc, at the same speed; a
    200 MB load's processes, 1,270 MB against 1,225 together."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def _libc() -> Any:
    """The C library, when it is glibc (it has ``malloc_trim`` and ``mallopt``); else False."""
    global _LIBC
    if _LIBC is None:
        import ctypes
        import ctypes.util

        try:
            _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _LIBC.malloc_trim.argtypes = [ctypes.c_size_t]
            _LIBC.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        except (OSError, AttributeError):
            _LIBC = False
    return _LIBC


_LIBC: Any = None


def line_chunks(path: str, stop: int | None = None) -> Iterator[list[tuple[int, bytes]]]:
    """The non-empty lines of an input, numbered, in chunks of ``CHUNK_LINES`` or
    ``CHUNK_BYTES`` (up to byte ``stop``: see :func:`~pipeline.sources.iter_lines`)."""
    return bounded_chunks(iter_lines(path, stop=stop), CHUNK_LINES, line_bytes)


def chunks_with_fast_path(
    path: str, stop: int | None = None
) -> Iterator[tuple[list[tuple[int, bytes]], bool]]:
    """The chunks of :func:`line_chunks`, each with whether the fast path takes it.
    A file's do when it is large enough, a stream's (standard input, a pipe) from
    the chunk that takes it past ``FAST_PATH_MIN_BYTES``: a few games piped in
    never wait for the compiled kernels.  Either way, only once the kernels are
    compiled: on a fresh install, some 20 CPU seconds after the first such chunk,
    in the background (:mod:`pipeline.kernels`)."""
    large, seen = large_file(path), 0
    for chunk in line_chunks(path, stop):
        seen += sum(len(line) for _, line in chunk)
        yield chunk, (large or seen >= FAST_PATH_MIN_BYTES) and kernels.ready()


def replay_jsonl(
    path: str, jobs: int = 1
) -> Iterator[tuple[SourceItem, ReplayDigest | None, list[Violation]]]:
    """Each line of a JSON Lines input as an item, the digest of its replay (None when
    it is no game) and its violations, in order, replayed a chunk at a time (so that
    clean games are cleared in bulk, and each chunk's records are freed before the
    collector runs again) by ``jobs`` processes, or this one (:func:`worth_spreading`)."""
    for _, results in worth_spreading(chunks_with_fast_path(path), partial(_replay_task, path), jobs):
        for number, raw, digest, violations in results:
            yield SourceItem(path, number, raw, None), digest, violations


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a chunk is parsed and replayed.

    A chunk is hundreds of parsed records alive at once (acyclic: reference
    counting frees them); with the collector on, each young collection that
    promotes them makes the older ones costlier, and parsing a chunk of 500
    games took three times as long as replaying it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def replay_lines(path: str, chunk: list[tuple[int, bytes]], fast_path: bool = True) -> list[LineResult]:
    """Each line of a chunk parsed and replayed (clean games cleared in bulk by
    their game's fast path), as what ``validate`` needs of it."""
    with collector_paused():
        return _replay_chunk(path, chunk, fast_path)


def _replay_chunk(path: str, chunk: list[tuple[int, bytes]], fast_path: bool) -> list[LineResult]:
    fast = cleared_from_bytes(chunk) if fast_path else [None] * len(chunk)
    items = [
        parse_line(path, number, line)
        for (number, line), done in zip(chunk, fast, strict=True)
        if done is None
    ]
    games = [item for item in items if item.record is not None]
    # a cleared game's replay gives its hands' fingerprints: copies are recognised by them
    replays = iter(replay_items(games, fast_path))
    parsed = iter(items)
    out: list[LineResult] = []
    for (number, _), cleared in zip(chunk, fast, strict=True):
        if cleared is not None:
            prints = cleared.fingerprints
            hands = [KNOWN_DEAL] * len(cleared.hands)
            digest = ReplayDigest(cleared.game_id, [], hands, [], None if prints is None else list(prints))
            out.append((number, None, digest, []))
            continue
        item = next(parsed)
        if item.record is None:
            out.append((number, item.raw, None, [v.at(file=path, line=number) for v in item.violations]))
            continue
        replay, located = next(replays)
        hands = [KNOWN_DEAL if h.deal_known else INFERRED_DEAL for h in replay.hands]
        digest = ReplayDigest(
            replay.game_id,
            replay.violations,
            hands,
            replay.unknown_fields,
            fingerprints_of(item.record, replay),
        )
        out.append((number, None, digest, located))
    return out


def _replay_task(path: str, task: tuple[list[tuple[int, bytes]], bool]) -> list[LineResult]:
    """:func:`replay_lines` of a chunk and whether the fast path takes it, in a worker."""
    chunk, fast_path = task
    return replay_lines(path, chunk, fast_path)


def cleared_from_bytes(chunk: list[tuple[int, bytes]]) -> list[ClearedReplay | None]:
    """The games of a chunk its games' ``fast_lines`` clear straight from their
    bytes (a line cut short at the length limit is never one)."""
    plain = [i for i, (_, line) in enumerate(chunk) if type(line) is bytes]
    out: list[ClearedReplay | None] = [None] * len(chunk)
    for i, cleared in zip(plain, clear_lines([chunk[i][1] for i in plain]), strict=True):
        out[i] = cleared
    return out
