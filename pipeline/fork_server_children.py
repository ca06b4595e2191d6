"""The fork server's children ignore Ctrl-C from the moment they are forked.

Ctrl-C reaches every process of the command (its process group), and the
command stops its workers itself.  A worker left Ctrl-C to the command once it
had started (:func:`pipeline.parallel.leave_interrupts_to_the_caller`), but a
local Dask cluster's worker interrupted while it was still connecting to its
scheduler printed a traceback (a 2 GB load, interrupted as it began on a busy
machine).  multiprocessing's fork server gives each child the signal handlers
the server had once its preload was imported: this module, imported by the
server (:data:`pipeline.forkserver.PRELOAD`), makes that "ignore" for SIGINT.
Imported anywhere else, it does nothing.
"""

from __future__ import annotations

import signal

from pipeline.forkserver import imported_by_fork_server

if imported_by_fork_server():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
