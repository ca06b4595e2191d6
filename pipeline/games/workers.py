"""Every installed game's ``worker_modules`` (its compiled kernels and what they
need), imported: the fork server imports this module (``pipeline.forkserver.PRELOAD``),
so that the command starting it need not look the games up first (a fifth of a
second of its start).  A module missing is skipped.  Importing this module is
what imports them, so pytest does not collect it for docstrings (``conftest.py``).
"""

from __future__ import annotations

import contextlib
from importlib import import_module

from pipeline.games import installed


def import_worker_modules() -> None:
    for game in installed():
        for module in game.worker_modules:
            with contextlib.suppress(ImportError):
                import_module(module)


import_worker_modules()
