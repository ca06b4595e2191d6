"""Writing simulated games: what every game's simulator shares.

A game gives ``simulate_game(index, *, seed, preset) -> record`` (its bots and
its own record building), the id of game ``n`` of a seed and its fault planter
(:mod:`pipeline.faults`); :class:`Harness` writes the games as JSON Lines, in
order, from one or more processes, with a share of them corrupted and the
corruption map beside them.  Game ``n`` of a seed is played with its own
random generator (:func:`game_rng`), so the same seed always gives the same
file whatever the number of workers.

>>> rng = game_rng("tricklog-simulate", 3, 0)
>>> players = draw_players(rng)
>>> len(players), start_of(rng, 2, minutes_apart=40)[:11]
(4, '2024-01-06T')
>>> corruptions_path_for(Path("out/games.jsonl")).as_posix()
'out/games.corruptions.json'
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import orjson

from pipeline.atomic import STDOUT, atomic_file
from pipeline.cores import usable_cores
from pipeline.faults import Corruption, CorruptionPlanner, FaultPlanter
from pipeline.violations import TricklogError

#: The ``source`` of every simulated record.
SOURCE = "tricklog-simulate"
#: A small pool of players, so that per-player statistics mean something.
PLAYERS = ("ana", "ben", "cleo", "dev", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lea")
#: When game 0 of a seed starts; game ``n`` starts ``n`` game lengths later.
FIRST_START = datetime(2024, 1, 6, 18, 0, tzinfo=UTC)
#: From this many games on, :meth:`Harness.write` plays them in worker processes.
PARALLEL_FROM = 2000
#: Games per task handed to a worker.
CHUNK = 100


class SimulateGame(Protocol):
    """A game's ``simulate_game``: game ``n`` of a seed, the same record whenever it is asked for."""

    def __call__(self, n: int, *, seed: int, preset: str) -> dict[str, Any]: ...


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


def game_rng(stream: str, seed: int, n: int) -> random.Random:
    """The generator of game ``n`` of a seed in a game's ``stream`` (string seeds hash
    the same in every process)."""
    return random.Random(f"{stream}/{seed}/{n}")


def draw_players(rng: random.Random, seats: int = 4) -> list[str]:
    """The players of a game, drawn from :data:`PLAYERS`."""
    return rng.sample(PLAYERS, seats)


def start_of(rng: random.Random, n: int, *, minutes_apart: int) -> str:
    """When game ``n`` started (ISO 8601, UTC): ``minutes_apart`` per game, and a little more."""
    start = FIRST_START + timedelta(minutes=minutes_apart * n + rng.randrange(30))
    return start.isoformat().replace("+00:00", "Z")


def corruptions_path_for(path: Path) -> Path:
    """Where the corruption map of a games file goes: ``<stem>.corruptions.json`` beside it."""
    return path.with_name(f"{path.stem}.corruptions.json")


@dataclass(frozen=True, slots=True)
class Harness:
    """Writes one game's simulated games."""

    simulate_game: SimulateGame
    game_id_of: Callable[[int, int], str]
    #: Raises :class:`TricklogError` on a preset the game does not know.
    check_preset: Callable[[str], object]
    #: The game's fault planter (a function, so that its faults load only when asked for).
    planter: Callable[[], FaultPlanter]
    #: The stream of the corruption generator: ``<corrupt_stream>/<seed>``.
    corrupt_stream: str
    #: The preset played when none is named.
    default_preset: str

    def write(
        self,
        path: Path,
        n: int,
        *,
        seed: int,
        preset: str | None = None,
        corrupt_rate: float = 0.0,
        workers: int | None = None,
    ) -> SimulationResult:
        """Write ``n`` simulated games to ``path`` as JSON Lines, a share of them corrupted.

        With ``corrupt_rate`` > 0, each game is corrupted with that probability, one
        known fault per game and the game's codes in turn, and the list of
        ``{"game_id", "code", "fault", "line", "hand", "trick", "seat"}`` (where the
        fault is: null where that does not apply) is written beside the games.
        ``workers`` processes play the games (default: one per CPU from
        ``PARALLEL_FROM`` games on); the file is the same whatever their number.
        """
        if not 0.0 <= corrupt_rate <= 1.0:
            raise TricklogError(f"--corrupt must be a rate between 0 and 1, not {corrupt_rate}")
        if corrupt_rate > 0 and str(path) == STDOUT:
            raise TricklogError("--corrupt lists its faults in a file beside the games: give -o a file name")
        if preset is None:
            preset = self.default_preset
        self.check_preset(preset)
        result = SimulationResult(Path(path))
        planner = None
        if corrupt_rate > 0:
            planner = CorruptionPlanner(self.planter(), random.Random(f"{self.corrupt_stream}/{seed}"))
        with atomic_file(result.path) as out:  # whole or not written: an error keeps the file there was
            for index, (line, hands) in enumerate(self._game_lines(n, seed, preset, workers)):
                result.games += 1
                result.hands += hands
                game_id = self.game_id_of(seed, index)
                out.write(_maybe_corrupt(line, game_id, planner, corrupt_rate, result) + b"\n")
        if planner is not None:
            result.corruptions_path = corruptions_path_for(result.path)
            entries = [c.to_json() for c in result.corruptions]
            with atomic_file(result.corruptions_path) as out:
                out.write(orjson.dumps(entries, option=orjson.OPT_INDENT_2) + b"\n")
        return result

    def _game_lines(self, n: int, seed: int, preset: str, workers: int | None) -> Iterator[tuple[bytes, int]]:
        """Each game as a JSON line with its number of hands, in order, from one or more processes,
        ``CHUNK`` games at a time: a few chunks are in memory whatever ``n``.

        Workers are forked (where the platform can fork; elsewhere one process
        plays every game), so that a caller needs no ``__main__`` guard.
        """
        if workers is None:
            workers = usable_cores() if n >= PARALLEL_FROM else 1
        chunks = (
            (self.simulate_game, start, min(start + CHUNK, n), seed, preset) for start in range(0, n, CHUNK)
        )
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            for chunk in chunks:
                yield from _simulate_chunk(chunk)
            return
        from pipeline.parallel import in_workers

        for _, lines in in_workers(chunks, _simulate_chunk, workers, for_jobs=False):
            yield from lines


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


def _simulate_chunk(chunk: tuple[SimulateGame, int, int, int, str]) -> list[tuple[bytes, int]]:
    simulate_game, start, stop, seed, preset = chunk
    out = []
    for index in range(start, stop):
        record = simulate_game(index, seed=seed, preset=preset)
        out.append((orjson.dumps(record), len(record["hands"])))
    return out
