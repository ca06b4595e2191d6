"""The games tricklog replays, side by side behind one small interface.

A game is a folder under ``pipeline/games/`` whose package exposes an
:class:`Engine`: the record format it reads (``"euchre/1"``) and a ``replay``
function from a record object to a :class:`Replay`.  Adding a game is adding a
folder and one line in :data:`ENGINES`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pipeline.violations import Violation


class HandOutcome(Protocol):
    """What every game's replay says of each hand, at least."""

    @property
    def deal_known(self) -> bool:
        """The deal was recorded in full; else holdings were inferred from the play."""
        ...


class Replay(Protocol):
    """What every game's replay returns."""

    @property
    def game_id(self) -> str | None: ...

    @property
    def violations(self) -> list[Violation]: ...

    @property
    def hands(self) -> Sequence[HandOutcome]: ...

    @property
    def unknown_fields(self) -> list[str]:
        """Top-level fields the record spec does not name (kept, and warned about)."""
        ...


@dataclass(frozen=True, slots=True)
class Engine:
    name: str
    format: str
    replay: Callable[[dict[str, Any]], Replay]


def _euchre_engine() -> Engine:
    from pipeline.games.euchre.replay import replay_game

    return Engine("euchre", "euchre/1", replay_game)


#: Record format -> engine.  The first one is the default for unknown formats.
ENGINES: dict[str, Engine] = {e.format: e for e in (_euchre_engine(),)}
DEFAULT_ENGINE = next(iter(ENGINES.values()))


def engine_for(record: dict[str, Any]) -> Engine:
    """The engine of a record's ``format`` (the default one reports a wrong format)."""
    fmt = record.get("format")
    return ENGINES.get(fmt, DEFAULT_ENGINE) if isinstance(fmt, str) else DEFAULT_ENGINE
