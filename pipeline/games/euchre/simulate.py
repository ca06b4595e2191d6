"""Simulated Euchre games, written as euchre/1 JSON Lines.

``tricklog simulate`` plays games with the heuristic bots of :mod:`bots`, so
that reports on simulated data look like reports on real play (about one
contract in six euchred, most trumps made in round one).  Game ``n`` of a seed
is played with its own random generator, so the same seed always gives the
same file, and any game can be replayed alone.

>>> games = list(simulate_games(2, seed=3, preset="mixed"))
>>> [g["game_id"] for g in games], [g["rules"]["preset"] for g in games]
(['sim-3-0', 'sim-3-1'], ['cards4net', 'pagat'])
>>> games == list(simulate_games(2, seed=3, preset="mixed"))
True
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from pipeline.games.euchre.corrupt import Corruption, CorruptionPlanner
from pipeline.games.euchre.play import play_game
from pipeline.games.euchre.rules import PRESETS
from pipeline.violations import TricklogError

SOURCE = "tricklog-simulate"
#: ``--preset mixed`` deals the presets in turn, game by game.
MIXED = "mixed"
MIXED_ORDER = ("cards4net", "pagat", "french")
#: A small pool of players, so that per-player statistics mean something.
PLAYERS = ("ana", "ben", "cleo", "dev", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lea")
_FIRST_START = datetime(2024, 1, 6, 18, 0, tzinfo=UTC)
#: From this many games on, ``write_simulation`` plays them in worker processes.
PARALLEL_FROM = 2000
#: Games per task handed to a worker.
CHUNK = 100


@dataclass(slots=True)
class SimulationResult:
    """What ``write_simulation`` wrote."""

    path: Path
    games: int = 0
    hands: int = 0
    #: One entry per corrupted game, in file order.
    corruptions: list[Corruption] = field(default_factory=list)
    #: The ``<stem>.corruptions.json`` written beside the games (None without ``--corrupt``).
    corruptions_path: Path | None = None

    @property
    def corrupted(self) -> int:
        return len(self.corruptions)


def preset_names() -> tuple[str, ...]:
    """The presets ``simulate`` accepts: every rule preset and ``mixed``."""
    return (*PRESETS, MIXED)


def _preset_of(preset: str, n: int) -> str:
    if preset == MIXED:
        return MIXED_ORDER[n % len(MIXED_ORDER)]
    if preset not in PRESETS:
        raise TricklogError(f"unknown preset {preset!r} (known: {', '.join(preset_names())})")
    return preset


def game_rng(seed: int, n: int) -> random.Random:
    """The generator of game ``n`` of a seed (string seeds hash the same in every process)."""
    return random.Random(f"tricklog-simulate/{seed}/{n}")


def simulate_game(n: int, *, seed: int = 0, preset: str = "cards4net") -> dict[str, Any]:
    """Game ``n`` of a simulation: the same record whenever it is asked for."""
    rules = PRESETS[_preset_of(preset, n)]
    rng = game_rng(seed, n)
    players = rng.sample(PLAYERS, 4)
    start = _FIRST_START + timedelta(minutes=40 * n + rng.randrange(30))
    started_at = start.isoformat().replace("+00:00", "Z")
    return play_game(rules, game_id_of(seed, n), players, rng, started_at=started_at, source=SOURCE)


def game_id_of(seed: int, n: int) -> str:
    return f"sim-{seed}-{n}"


def simulate_games(n: int, *, seed: int = 0, preset: str = "cards4net") -> Iterator[dict[str, Any]]:
    """``n`` simulated games of a preset (or ``mixed``), deterministic for a seed."""
    _preset_of(preset, 0)  # fail before the first game on an unknown preset
    for index in range(n):
        yield simulate_game(index, seed=seed, preset=preset)


def corruptions_path_for(path: Path) -> Path:
    """Where the corruption map of a games file goes: ``<stem>.corruptions.json`` beside it."""
    return path.with_name(f"{path.stem}.corruptions.json")


def write_simulation(
    path: Path,
    n: int,
    *,
    seed: int,
    preset: str,
    corrupt_rate: float = 0.0,
    workers: int | None = None,
) -> SimulationResult:
    """Write ``n`` simulated games to ``path`` as JSON Lines, a share of them corrupted.

    With ``corrupt_rate`` > 0, each game is corrupted with that probability, one
    known fault per game and the spec's codes in turn, and the list of
    ``{"game_id", "code", "fault", "line", "hand", "trick", "seat"}`` (where the
    fault is: null where that does not apply) is written beside the games.
    ``workers`` processes play the games (default: one per CPU from
    ``PARALLEL_FROM`` games on); the file is the same whatever their number.
    """
    if not 0.0 <= corrupt_rate <= 1.0:
        raise TricklogError(f"--corrupt must be a rate between 0 and 1, not {corrupt_rate}")
    _preset_of(preset, 0)
    result = SimulationResult(path)
    planner = CorruptionPlanner(random.Random(f"tricklog-corrupt/{seed}")) if corrupt_rate > 0 else None
    try:
        with path.open("wb") as out:
            for index, (line, hands) in enumerate(_game_lines(n, seed, preset, workers)):
                result.games += 1
                result.hands += hands
                out.write(
                    _maybe_corrupt(line, game_id_of(seed, index), planner, corrupt_rate, result) + b"\n"
                )
    except OSError as e:
        raise TricklogError(f"{path}: cannot write: {e.strerror or e}") from e
    if planner is not None:
        result.corruptions_path = corruptions_path_for(path)
        entries = [c.to_json() for c in result.corruptions]
        result.corruptions_path.write_bytes(orjson.dumps(entries, option=orjson.OPT_INDENT_2) + b"\n")
    return result


def _maybe_corrupt(
    line: bytes, game_id: str, planner: CorruptionPlanner | None, rate: float, result: SimulationResult
) -> bytes:
    """One game as written: as simulated, or with a fault when its turn came."""
    if planner is None:
        return line
    if planner.rng.random() < rate:
        corruption = planner.corrupt(orjson.loads(line), line=result.games)
        if corruption is not None:
            result.corruptions.append(corruption)
            return corruption.text
    planner.saw_clean(game_id)
    return line


def _game_lines(n: int, seed: int, preset: str, workers: int | None) -> Iterator[tuple[bytes, int]]:
    """Each game as a JSON line with its number of hands, in order, from one or more processes.

    Workers are forked (where the platform can fork; elsewhere one process
    plays every game), so that a caller needs no ``__main__`` guard.
    """
    if workers is None:
        workers = _cpu_count() if n >= PARALLEL_FROM else 1
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from _simulate_chunk((0, n, seed, preset))
        return
    chunks = [(start, min(start + CHUNK, n), seed, preset) for start in range(0, n, CHUNK)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for lines in pool.map(_simulate_chunk, chunks):
            yield from lines


def _simulate_chunk(chunk: tuple[int, int, int, str]) -> list[tuple[bytes, int]]:
    start, stop, seed, preset = chunk
    out = []
    for index in range(start, stop):
        record = simulate_game(index, seed=seed, preset=preset)
        out.append((orjson.dumps(record), len(record["hands"])))
    return out


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1
