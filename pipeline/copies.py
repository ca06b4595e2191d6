"""Recognising copies while validating: the same hands recorded in another game.

Each game gives its hands' fingerprints (``Game.fingerprints``: the recorded
play, so a copy in another file, format or game id has the same ones).  A game
whose fingerprinted hands are exactly another game's, in order, is a
``duplicate_game``; otherwise each hand seen before in another game (a fragment,
an annotated subset) is a ``duplicate_hand`` naming the first copy.  Hands with
no fingerprint (no card played) are never matched.  The tracker keeps one
entry per distinct hand seen.

>>> t = CopyTracker()
>>> t.check("a", "a.egn", None, ["x", "y"])
[]
>>> [v.code for v in t.check("b", "b.egn", None, ["x", "y"])]
['duplicate_game']
>>> [(v.code, v.hand) for v in t.check("c", "c.egn", None, ["x", None, "z"])]
[('duplicate_hand', 0)]
>>> [v.message[:33] for v in t.check(None, "d.egn", 3, ["w"]) + t.check(None, "e.egn", 3, ["w"])]
["a copy of game 'line 3' (d.egn): "]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.games import game_for_record
from pipeline.violations import Violation


def fingerprints_of(record: dict[str, Any] | None, replay: Any) -> list[str | None]:
    """The fingerprints of a replayed game's hands (given by a worker's digest, or
    computed by the record's game; empty when its game gives none)."""
    given = getattr(replay, "fingerprints", None)
    if given is not None:
        return list(given)
    game = game_for_record(record) if record is not None else None
    if game is None or game.fingerprints is None or not hasattr(replay, "hands"):
        return []
    return list(game.fingerprints(replay))


#: A game's identity: its id, or (``line N``, file) for a game without one.
Who = str | tuple[str, str | None]


@dataclass(frozen=True, slots=True)
class _Seen:
    game_id: str
    hand: int
    file: str | None
    #: Who the game is: its id, or where it is when it has none.
    who: Who


@dataclass(slots=True)
class CopyTracker:
    """The first game each hand (by fingerprint) was seen in, and each game's fingerprints."""

    hands: dict[str, _Seen] = field(default_factory=dict)
    #: The full fingerprint sequence of each game seen -> that game's name, file and identity.
    games: dict[tuple[str | None, ...], tuple[str, str | None, Who]] = field(default_factory=dict)

    def check(
        self, game_id: str | None, file: str | None, line: int | None, prints: Sequence[str | None]
    ) -> list[Violation]:
        """The copy violations of one game; remembers its hands for the games after it."""
        name = game_id or f"line {line}"
        who: Who = game_id if game_id is not None else (name, file)  # line 5 of a.egn is not line 5 of b.egn
        key = tuple(p for p in prints if p is not None)
        if not key:
            return []
        first = self.games.get(key)
        if first is not None and first[2] != who:
            message = (
                f"a copy of game {first[0]!r}{_in(first[1])}: its {len(key)} played hand(s) are the same play, "
                "in order; statistics count them once"
            )
            return [Violation("duplicate_game", message, game_id, None, "hands", file, line)]
        self.games.setdefault(key, (name, file, who))
        found = []
        for hand, fingerprint in enumerate(prints):
            if fingerprint is None:
                continue
            seen = self.hands.get(fingerprint)
            if seen is None:
                self.hands[fingerprint] = _Seen(name, hand, file, who)
            elif seen.who != who:
                message = (
                    f"hand {hand}: the same play as hand {seen.hand} of game {seen.game_id!r}{_in(seen.file)}; "
                    "statistics count it once"
                )
                found.append(
                    Violation("duplicate_hand", message, game_id, hand, f"hands[{hand}]", file, line)
                )
        return found


def _in(file: str | None) -> str:
    return f" ({file})" if file else ""
