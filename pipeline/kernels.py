"""The fast path's compiled kernels, which never keep a run waiting for them.

numba compiles a game's kernels on their first call on a machine and caches
the machine code (``cache=True``): Euchre's take about 20 CPU seconds, and
each worker of a first run would compile them again.  So a run asks :func:`ready` before
it gives a chunk to the fast path.  When the kernels of an installed game are
not compiled yet, the run replays without the fast path and one process in the
background compiles them (``python -m pipeline.kernels``), calling each of the
game's fast hooks on a few of its simulated games; the chunks a run reads after
that process is done take the fast path.

That a game's kernels are compiled is a file beside numba's cache: its name
holds what numba's cache depends on (numba's and Python's versions, the
kernels' source files, ``NUMBA_CACHE_DIR``).  Should numba still miss its cache,
the kernel is compiled where it is called, as it would be without this module.
Should the compile fail, the reason is in a file beside it (``.failed``), and
runs go without the fast path until a new numba or tricklog tries again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import tempfile
import traceback
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path

from pipeline.games import Game, installed
from pipeline.sources import parse_line

_READY = False
_STARTED = False
_MARKERS: dict[str, Path | None] = {}


def compiled() -> bool:
    """Whether every installed game's kernels are compiled (or it has none, or
    there is no numba: then the fast path is off anyway)."""
    global _READY
    _READY = _READY or all(_compiled(game) for game in installed())
    return _READY


def ready() -> bool:
    """:func:`compiled`; when not, their compiling is started in the background
    (once a process), unless it failed before: then the fast path stays off, and
    the replay does it all."""
    global _STARTED
    if compiled():
        return True
    if not _STARTED and not any(_failed(game) for game in installed()):
        _STARTED = True
        compile_in_background()
    return False


def compile_in_background() -> subprocess.Popen[bytes] | None:
    """Start ``python -m pipeline.kernels`` on its own: it outlives this process if
    need be, and its output goes nowhere.  It runs in the folder this copy of
    the package is in, so that it compiles this copy's kernels: ``-m`` looks in
    the current folder first, and a source checkout there (where the README's
    quick start runs ``tricklog demo``, beside the installed copy) was compiled
    instead, leaving the installed copy's fast path off for good."""
    with contextlib.suppress(OSError):
        return subprocess.Popen(
            [sys.executable, "-m", "pipeline.kernels"],
            cwd=Path(__file__).resolve().parent.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    return None


def compile_all() -> None:
    """Compile the kernels of every installed game that are not yet (one process
    at a time: another waits for the first, then finds them compiled)."""
    import fcntl

    with open(_folder() / "tricklog-kernels.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for game in installed():
            if not _compiled(game) and not _failed(game):
                _compile_or_say_why(game)


def _compile_or_say_why(game: Game) -> None:
    """:func:`compile_game`; should it fail, what went wrong goes in a file beside
    its marker, and no run tries again until what the marker's name holds changes
    (numba, Python, the kernels' sources)."""
    try:
        compile_game(game)
    except Exception:
        marker = _marker(game)
        if marker is not None:
            marker.with_suffix(".failed").write_text(traceback.format_exc())


def compile_game(game: Game) -> None:
    """Compile a game's kernels now, by calling each of its fast hooks on a few of
    its simulated games (some corrupted), then mark them compiled."""
    if game.simulator is None:
        return
    simulator = game.simulator()
    with tempfile.TemporaryDirectory(prefix="tricklog-kernels-") as folder:
        path = Path(folder) / "games.jsonl"
        simulator.write(path, 64, seed=1, preset=simulator.default_preset, corrupt_rate=0.1)
        lines = path.read_bytes().splitlines()
    # a corrupted game may be a line that is no JSON object: the hooks take the others
    parsed = [parse_line(str(path), number, line) for number, line in enumerate(lines, 1)]
    records = [item.record for item in parsed if item.record is not None]
    for on_lines in (game.fast_lines, game.fast_line_rows):
        if on_lines is not None:
            on_lines(lines)
    for on_records in (game.fast_check, game.fast_replays, game.fast_rows):
        if on_records is not None:
            on_records(records)
    marker = _marker(game)
    if marker is not None:
        marker.touch()


def _compiled(game: Game) -> bool:
    marker = _marker(game)
    return marker is None or marker.exists()


def _failed(game: Game) -> bool:
    marker = _marker(game)
    return marker is not None and marker.with_suffix(".failed").exists()


def _marker(game: Game) -> Path | None:
    """The file that says a game's kernels are compiled, named after what numba's
    cache of them depends on (None: nothing to compile, or nowhere to say it)."""
    if game.name not in _MARKERS:
        _MARKERS[game.name] = _marker_path(game) if game.kernel_modules and game.simulator else None
    return _MARKERS[game.name]


def _marker_path(game: Game) -> Path | None:
    try:
        key = hashlib.sha256(f"{version('numba')} {sys.version} {os.environ.get('NUMBA_CACHE_DIR')}".encode())
        for module in game.kernel_modules:
            spec = find_spec(module)
            if spec is not None and spec.origin is not None:
                stat = os.stat(spec.origin)
                key.update(f"{spec.origin} {stat.st_mtime_ns} {stat.st_size}".encode())
        return _folder() / f"tricklog-{game.name}-kernels-{key.hexdigest()[:20]}.compiled"
    except (PackageNotFoundError, ImportError, OSError):
        return None


def _folder() -> Path:
    """Where the markers go: numba's cache folder when it is given, else this
    package's ``__pycache__`` when it can be written (numba's cache is there
    too), else the user's cache folder."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        folder = Path(given)
    else:
        folder = Path(__file__).parent / "__pycache__"
        if not _writable(folder):
            folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tricklog"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _writable(folder: Path) -> bool:
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        return os.access(folder, os.W_OK)
    return False


if __name__ == "__main__":
    os.nice(10)  # a run goes on beside it
    compile_all()
