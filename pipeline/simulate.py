"""``tricklog simulate``: any installed game's bots, by the game's name.

>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
>>> simulate("euchre", out, 2, seed=1).games
2
>>> simulate("chess", out, 2)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pipeline.violations.TricklogError: no game 'chess' can be simulated (installed: euchre, ...)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.games import Game, installed
from pipeline.violations import TricklogError


def simulators() -> list[Game]:
    """The installed games that have bots."""
    return [g for g in installed() if g.simulator is not None]


def simulate(
    game: str,
    output: Path,
    games: int,
    *,
    seed: int = 0,
    preset: str | None = None,
    corrupt_rate: float = 0.0,
) -> Any:
    """Write ``games`` games of ``game`` played by its bots (a preset of its, else its default)."""
    found = next((g for g in simulators() if g.name == game), None)
    if found is None or found.simulator is None:
        names = ", ".join(g.name for g in simulators())
        raise TricklogError(f"no game {game!r} can be simulated (installed: {names})")
    bots = found.simulator()
    if preset is not None and preset not in bots.presets:
        raise TricklogError(f"unknown preset {preset!r} for {game} (known: {', '.join(bots.presets)})")
    return bots.write(
        output, games, seed=seed, preset=preset or bots.default_preset, corrupt_rate=corrupt_rate
    )
