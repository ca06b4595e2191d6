"""The server fresh worker processes are forked from, and what it imports.

Workers that must not share the caller's state (a load's, whose process holds
an open DuckDB connection; a local Dask cluster's) are forked from one server
process (multiprocessing's ``forkserver``) that imported what they need once,
rather than each started afresh and importing it all: over a CPU second a
worker.  The server's imports take about two seconds, so a command starts it
as early as it can, and its own work overlaps them.  This module imports
nothing heavy for that reason, and the server looks up the installed games
itself (:mod:`pipeline.games.workers`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Sequence

#: What a fresh worker needs, imported once in the fork server (which holds no
#: database) rather than by every worker.  First, pandera and pyarrow set up
#: without pandas (:mod:`pipeline.without_pandas`); then the installed games'
#: ``worker_modules`` (their kernels: half a CPU second a worker); then Ctrl-C
#: ignored by the children from their fork (:mod:`pipeline.fork_server_children`);
#: last, the server's own quick exit (:mod:`pipeline.fork_server_exit`: its exit
#: handler must be the last registered, to run first).
PRELOAD = [
    "pipeline.without_pandas",
    "pipeline.warehouse.dask_engine",
    "polars",
    "pyarrow",
    "numba",
    "pipeline.games.workers",
    "pipeline.fork_server_children",
    "pipeline.fork_server_exit",
]

#: One core a worker, as Dask sets for OpenMP and BLAS: polars would start a
#: thread per core in every worker.  Arrow's buffers from malloc (its "system"
#: pool; see :func:`pipeline.parallel.arrow_on_malloc`).  One malloc arena (glibc):
#: a Dask worker runs its tasks on a thread of its own, which glibc gives arenas
#: of their own, whose free memory the worker's other threads cannot reuse and
#: which keep more of it: staging 12 MB splits on a thread, a process peaked at
#: 515-522 MB against 429-436 with one arena, in the same CPU time, and a
#: worker's rise over a split was 34-47 MB against 23-26, split after split.
#: And malloc's two thresholds fixed (glibc): left to itself, it raises the size
#: from which it maps a block on pages of its own to that of the largest such
#: block freed (up to 32 MB), and the free memory it lets its heap keep at the
#: top to twice that.  A Dask worker staging a split frees blocks of many MB, and
#: its heap then kept what they left free: its memory rose by up to 12 MB over
#: eight splits, until the next trim (``TRIM_EVERY``), a different height each
#: time, so that a longer input peaked higher.  With blocks of 16 MB and more
#: mapped apart and the top given back past 4 MB, a worker peaked at 218 to 225
#: MiB on both inputs, against 223 to 241, in the same CPU time
#: (``validate`` and ``load`` measured the same).
WORKER_ENV = {
    "POLARS_MAX_THREADS": "1",
    "ARROW_DEFAULT_MEMORY_POOL": "system",
    "MALLOC_ARENA_MAX": "1",
    "MALLOC_MMAP_THRESHOLD_": str(16 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(4 << 20),
}


def start_fresh_server(also: Sequence[str] = ()) -> None:
    """Start the server that fresh workers (``in_workers(fresh=True)``, a local
    Dask cluster's with ``also=["distributed"]``) are forked from, now: its
    imports, about two seconds, then overlap what the caller does before it
    needs workers (its own imports, hashing the inputs, opening the warehouse)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        start_fork_server([*also, *PRELOAD], WORKER_ENV)


def worker_context(fresh: bool) -> multiprocessing.context.BaseContext:
    """Where worker processes come from: forked from this process, or when ``fresh``
    from the fork server (``spawn`` where there is none).  Every pool of fresh
    workers goes through here, so that whichever starts the server, it imports
    ``PRELOAD`` (a module that is not installed is skipped) and has
    ``WORKER_ENV`` (a running server is kept as it was started)."""
    methods = multiprocessing.get_all_start_methods()
    wanted = ("forkserver", "spawn") if fresh else ("fork", "spawn")
    method = next(m for m in wanted if m in methods)
    if method == "forkserver":
        start_fresh_server()
    return multiprocessing.get_context(method)


def imported_by_fork_server() -> bool:
    """Whether this runs in multiprocessing's fork server, as it imports its preload
    (:data:`PRELOAD`): the modules that act there alone ask."""
    from multiprocessing import forkserver
    from types import FrameType

    frame: FrameType | None = sys._getframe()
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return True
        frame = frame.f_back
    return False


def start_fork_server(preload: list[str], env: dict[str, str]) -> None:
    """Start the fork server now, importing ``preload``, with the variables of
    ``env`` that are not set already in its environment and so in its children's:
    a library reads some of them when it is imported (``POLARS_MAX_THREADS``),
    before a child could set them; and this process's import path
    (:func:`same_import_path`).  A server that runs already is kept as it is."""
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(preload)
    wanted = {**{name: value for name, value in env.items() if name not in os.environ}, **same_import_path()}
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        _socket_folder_short_enough()
        forkserver.ensure_running()
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def same_import_path() -> dict[str, str]:
    """The variables that give the fork server this process's import path, and
    nothing else.  multiprocessing starts it as ``python -c``, which puts the
    current folder first on its path (the path it is handed goes unused in
    Python 3.11): a command run in a folder holding a ``pipeline`` package, or
    a ``polars.py``, had its workers import those (a load's workers failed to
    start, blamed on their memory).  ``PYTHONSAFEPATH`` keeps the current
    folder off, and ``PYTHONPATH`` gives this process's own path: with the
    current folder merely kept off, ``pytest`` run from a checkout (which it
    imports) had its workers import the installed copy.  A folder whose name
    holds the separator cannot be given, and is left out."""
    folders = [folder for folder in sys.path if os.pathsep not in folder]
    return {"PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(folders)}


#: The longest temporary folder the fork server's socket fits in: a socket's
#: path is at most 107 bytes, and multiprocessing puts it 32 deeper
#: (``/pymp-XXXXXXXX/listener-XXXXXXXX``).
SOCKET_FOLDER_MAX = 75
#: Where the socket's folder goes when ``TMPDIR`` is longer than that.
SHORT_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")


def _socket_folder_short_enough() -> None:
    """Have multiprocessing make its folder (the server's socket goes there) in a
    short folder when the temporary one (``TMPDIR``) is too long for a socket: the
    server would not start ("AF_UNIX path too long").  Only that folder moves."""
    import tempfile
    from multiprocessing import util

    if len(tempfile.gettempdir()) <= SOCKET_FOLDER_MAX:
        return
    short = next((d for d in SHORT_FOLDERS if os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK)), None)
    if short is None:
        return
    saved, tempfile.tempdir = tempfile.tempdir, short
    try:
        util.get_temp_dir()  # made now, and kept for this process's life
    finally:
        tempfile.tempdir = saved


def stop_fork_server() -> None:
    """End the fork server this process started, now; nothing when it started none.

    A command that started the server before parsing its arguments, for a local
    Dask cluster, does this as it ends (:func:`pipeline.cli.main`), once the
    cluster is closed.  The server would end by itself once the command had,
    but only after its imports (:data:`PRELOAD`), and the command's standard
    error is the server's too: a command that stopped while the server imported
    (a usage error) kept whatever read its output to the end waiting a second
    more.  Not for a process whose pools of workers may still be closing: a
    pool replaces a worker that ended from the server, and the pool of a load
    that failed is closed when the interpreter exits (its generator, held by the
    error's traceback, is closed then); with its server gone, it waited forever."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is not None:
        with contextlib.suppress(OSError):  # ended already
            os.kill(pid, signal.SIGTERM)
