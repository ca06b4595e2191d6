"""Every installed game's ``worker_modules`` (its compiled kernels and what they
need), imported: the fork server imports this module (``pipeline.forkserver.PRELOAD``),
so that the command starting it need not look the games up first (a fifth of a
second of its start).  Importing this module is what imports them, so pytest
does not collect it for docstrings (``conftest.py``).

Nothing here may stop the server: a module missing is skipped, and a game that
fails to load (a plugin that is no ``Game``, a module that raises) is left to
fail again, with its message, where the command or a worker uses it.
"""

from __future__ import annotations

import contextlib
from importlib import import_module

from pipeline.games import installed


def import_worker_modules() -> None:
    try:
        games = installed()
    except Exception:  # reported by the command, which looks the games up too
        return
    for game in games:
        for module in game.worker_modules:
            with contextlib.suppress(Exception):
                import_module(module)


import_worker_modules()
