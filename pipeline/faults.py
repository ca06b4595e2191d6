"""Planting known faults in simulated games: what every game's fault planter shares.

A game gives its faults (small functions that break a copy of a clean record
the way a buggy exporter or a careless player would, each aiming at one
violation code), its replay and how to recompute the claimed figures of a
broken record; this module does the rest:

- the two faults of the line rather than of the game: ``malformed_json`` (the
  line is truncated or loses a quote) and ``duplicate_game`` (the game comes
  with the id of an earlier one);
- generate and verify: a candidate is kept only when the replay reports
  exactly the intended code;
- :class:`CorruptionPlanner`, which deals the codes out in turn so that every
  code appears once enough games are hit;
- :class:`Corruption`, the record of a planted fault as ``simulate --corrupt``
  writes it in ``<stem>.corruptions.json``.

A fault says where it struck (a :class:`Site`: the hand, the trick and the seat
at fault), or ``True`` to let the replay's first violation say.

>>> planter = FaultPlanter((), ("malformed_json", "duplicate_game"), violations_of=lambda r: [],
...                        reclaim=lambda r: None, attempts=1)
>>> c = planter.corrupt_game({"game_id": "g2"}, "duplicate_game", random.Random(0), line=2, previous_id="g1")
>>> c.to_json()
{'game_id': 'g1', 'code': 'duplicate_game', 'fault': 'game_id_reused', 'line': 2, 'hand': None, 'trick': None, 'seat': None}
>>> c.text
b'{"game_id":"g1"}'
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from pipeline.sources import parse_line
from pipeline.violations import Violation

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Site:
    """Where a planted fault is: its hand, its trick (0-based) and the seat at
    fault, as the replay's violation will name them (None where they do not apply)."""

    hand: int | None = None
    trick: int | None = None
    seat: int | None = None


#: A fault of the whole game (its format, players, final score), or of the line.
GAME = Site()
#: A fault breaks a copy of a record in place and says where it struck (a
#: :class:`Site`, or True: where the replay's first violation is); None or
#: False when it does not apply to this game.
FaultFn = Callable[[Record, random.Random], Site | bool | None]
#: The codes of the line, planted here for every game.
LINE_CODES = ("malformed_json", "duplicate_game")


@dataclass(frozen=True, slots=True)
class Fault:
    name: str
    code: str
    apply: FaultFn
    #: Recompute the claimed figures afterwards.
    reclaim: bool = False


@dataclass(frozen=True, slots=True)
class Corruption:
    """A corrupted game as written: which code it must raise, where, and the line itself."""

    game_id: str
    code: str
    fault: str
    #: The 1-based line of the games file.
    line: int
    text: bytes
    #: Where the fault is (all None for a fault of the line or of the whole game).
    site: Site = GAME

    @property
    def hand(self) -> int | None:
        return self.site.hand

    @property
    def trick(self) -> int | None:
        return self.site.trick

    @property
    def seat(self) -> int | None:
        return self.site.seat

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "code": self.code,
            "fault": self.fault,
            "line": self.line,
            "hand": self.site.hand,
            "trick": self.site.trick,
            "seat": self.site.seat,
        }


@dataclass(frozen=True, slots=True)
class Planted:
    """A record broken so that its replay reports exactly one code."""

    fault: Fault
    record: Record
    site: Site
    #: What the replay of ``record`` reports (all of that one code).
    violations: list[Violation]


def copy_record(record: Record) -> Record:
    return orjson.loads(orjson.dumps(record))  # type: ignore[no-any-return]


def malformed_line(record: Record, rng: random.Random) -> tuple[str, bytes]:
    """A line that is no JSON object: cut short, or missing a quote."""
    text = orjson.dumps(record)
    if rng.random() < 0.5:
        return "truncated_line", text[: rng.randrange(1, len(text) - 1)]
    quotes = [i for i, byte in enumerate(text) if byte == ord('"')]
    cut = rng.choice(quotes)
    return "missing_quote", text[:cut] + text[cut + 1 :]


def played_hands(record: Record) -> list[dict[str, Any]]:
    """The hands of a record that have tricks."""
    return [h for h in record["hands"] if h.get("tricks")]


def pick_played(record: Record, rng: random.Random) -> dict[str, Any] | None:
    """One hand with tricks, drawn by ``rng`` (None when there is none)."""
    hands = played_hands(record)
    return rng.choice(hands) if hands else None


class FaultPlanter:
    """One game's faults, planted and verified against its replay."""

    def __init__(
        self,
        faults: Sequence[Fault],
        codes: Sequence[str],
        *,
        violations_of: Callable[[Record], list[Violation]],
        reclaim: Callable[[Record], None],
        attempts: int,
    ) -> None:
        #: Every code a fault can produce, the line's included, in the order they are dealt.
        self.codes = tuple(codes)
        self.faults = tuple(faults)
        self.by_code: dict[str, tuple[Fault, ...]] = {
            code: tuple(f for f in self.faults if f.code == code) for code in self.codes
        }
        self.violations_of = violations_of
        self.reclaim = reclaim
        #: How many candidates are tried for one code on one game before giving up.
        self.attempts = attempts

    def plant(self, record: Record, code: str, rng: random.Random) -> Planted | None:
        """A copy of ``record`` broken so that the replay reports exactly ``code``, or None."""
        faults = self.by_code.get(code, ())
        if not faults:
            return None
        for _ in range(self.attempts):
            fault = rng.choice(faults)
            candidate = copy_record(record)
            struck = fault.apply(candidate, rng)
            if not struck:
                continue
            if fault.reclaim:
                self.reclaim(candidate)
            found = self.violations_of(candidate)
            if found and {v.code for v in found} == {code}:
                if not isinstance(struck, Site):
                    struck = Site(found[0].hand, found[0].trick, found[0].seat)
                return Planted(fault, candidate, struck, found)
        return None

    def corrupt_game(
        self, record: Record, code: str, rng: random.Random, *, line: int, previous_id: str | None = None
    ) -> Corruption | None:
        """Game ``record`` written with a fault raising ``code`` (None when none fits this game).

        ``duplicate_game`` gives the game the id of an earlier one, ``previous_id``.
        """
        game_id = record["game_id"]
        if code == "malformed_json":
            fault_name, text = malformed_line(record, rng)
            if parse_line("", line, text).record is not None:
                return None
            return Corruption(game_id, code, fault_name, line, text)
        if code == "duplicate_game":
            if previous_id is None or previous_id == game_id:
                return None
            copy = copy_record(record)
            copy["game_id"] = previous_id
            return Corruption(previous_id, code, "game_id_reused", line, orjson.dumps(copy))
        planted = self.plant(record, code, rng)
        if planted is None:
            return None
        return Corruption(game_id, code, planted.fault.name, line, orjson.dumps(planted.record), planted.site)


class CorruptionPlanner:
    """Deals a game's codes out in turn, so that every code appears once enough games are hit.

    A code that does not fit a game (no lone hand for Euchre's ``sitting_out``)
    waits for the next game.
    """

    def __init__(self, planter: FaultPlanter, rng: random.Random) -> None:
        self.planter = planter
        self.rng = rng
        self.queue: deque[str] = deque()
        self.previous_id: str | None = None

    def saw_clean(self, game_id: str) -> None:
        """Remember a game written unchanged: ``duplicate_game`` reuses its id."""
        self.previous_id = game_id

    def corrupt(self, record: Record, *, line: int) -> Corruption | None:
        if not self.queue:
            codes = list(self.planter.codes)
            self.rng.shuffle(codes)
            self.queue.extend(codes)
        for code in list(self.queue):
            corruption = self.planter.corrupt_game(
                record, code, self.rng, line=line, previous_id=self.previous_id
            )
            if corruption is not None:
                self.queue.remove(code)
                return corruption
        return None
