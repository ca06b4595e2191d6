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

import random
from collections.abc import Iterator
from typing import Any

from pipeline import simulation
from pipeline.faults import FaultPlanter
from pipeline.games.euchre.play import play_game
from pipeline.games.euchre.rules import PRESETS
from pipeline.simulation import SOURCE, SimulationResult, corruptions_path_for, draw_players, start_of
from pipeline.violations import TricklogError

#: ``--preset mixed`` deals the presets in turn, game by game.
MIXED = "mixed"
MIXED_ORDER = ("cards4net", "pagat", "french")
#: Minutes between the starts of two games of a seed.
MINUTES_APART = 40


def preset_names() -> tuple[str, ...]:
    """The presets ``simulate`` accepts: every rule preset and ``mixed``."""
    return (*PRESETS, MIXED)


def _preset_of(preset: str, n: int) -> str:
    if preset == MIXED:
        return MIXED_ORDER[n % len(MIXED_ORDER)]
    if preset not in PRESETS:
        raise TricklogError(f"unknown preset {preset!r} (known: {', '.join(preset_names())})")
    return preset


def _check_preset(preset: str) -> str:
    return _preset_of(preset, 0)


def game_rng(seed: int, n: int) -> random.Random:
    """The generator of game ``n`` of a seed (string seeds hash the same in every process)."""
    return simulation.game_rng("tricklog-simulate", seed, n)


def simulate_game(n: int, *, seed: int = 0, preset: str = "cards4net") -> dict[str, Any]:
    """Game ``n`` of a simulation: the same record whenever it is asked for."""
    rules = PRESETS[_preset_of(preset, n)]
    rng = game_rng(seed, n)
    players = draw_players(rng)
    started_at = start_of(rng, n, minutes_apart=MINUTES_APART)
    return play_game(rules, game_id_of(seed, n), players, rng, started_at=started_at, source=SOURCE)


def game_id_of(seed: int, n: int) -> str:
    return f"sim-{seed}-{n}"


def simulate_games(n: int, *, seed: int = 0, preset: str = "cards4net") -> Iterator[dict[str, Any]]:
    """``n`` simulated games of a preset (or ``mixed``), deterministic for a seed."""
    _preset_of(preset, 0)  # fail before the first game on an unknown preset
    for index in range(n):
        yield simulate_game(index, seed=seed, preset=preset)


def _planter() -> FaultPlanter:
    from pipeline.games.euchre.corrupt import PLANTER

    return PLANTER


HARNESS = simulation.Harness(
    simulate_game, game_id_of, _check_preset, _planter, "tricklog-corrupt", "cards4net"
)
#: Write ``n`` simulated games to ``path`` as JSON Lines, a share of them corrupted
#: (:meth:`pipeline.simulation.Harness.write`).
write_simulation = HARNESS.write


__all__ = [
    "SimulationResult",
    "corruptions_path_for",
    "game_rng",
    "simulate_game",
    "simulate_games",
    "write_simulation",
]
