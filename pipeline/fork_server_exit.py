"""The fork server's exit: at once, without tearing its interpreter down.

The server that workers are forked from (:mod:`pipeline.forkserver`) imports
this module last, and ends when the command that started it does.  Tearing
down an interpreter that imported numba, polars, pyarrow and distributed took
it half a second, and the command's standard error is the server's too (a
worker's messages go there): whatever reads a command's output to its end (a
pipe, ``subprocess.run(capture_output=True)``, ``$(...)``) waited that long
after the command had exited.  The server has nothing to clean up: it writes
no files, and each worker it forks ends with an ``os._exit`` of its own.

Only the fork server exits this way: the exit is registered when
multiprocessing's fork server imports this module, and taken by that process
alone, not by a child forked from it.  Imported anywhere else, it does nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

from pipeline.forkserver import imported_by_fork_server


def _exit_at_once(server: int) -> None:
    """Run first of the server's exit handlers (registered last): the others,
    and the interpreter's teardown, are skipped."""
    if os.getpid() != server:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


if imported_by_fork_server():
    atexit.register(_exit_at_once, os.getpid())
