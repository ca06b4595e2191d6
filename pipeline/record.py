"""Reading a game record: what every game's replay shares.

A record is JSON, so anything may stand where a field should be.  A game's
replay collects its violations in a :class:`Context` (stamped with the game's
id), checks the fields every game object has with :func:`check_game_fields`
(``format``, ``game_id``, ``players``, ``hands``), lists the top-level fields
its spec does not name with :func:`unknown_fields`, marks its hands valid when
no violation names them (:func:`mark_valid`), and reads its ``rules``
object into a frozen dataclass of options with :func:`read_options`.

>>> record = {"format": "spades/1", "game_id": "", "players": ["a", "b"], "hands": [], "mood": 1}
>>> ctx = Context(record_game_id(record))
>>> check_game_fields(ctx, record, "spades/1")
>>> [(v.code, v.path, v.message) for v in ctx.violations]  # doctest: +NORMALIZE_WHITESPACE
[('schema', 'game_id', 'game_id is missing or not a non-empty string'),
 ('schema', 'players', 'players must be a list of 4 names, indexed by seat')]
>>> unknown_fields(record, frozenset(("format", "game_id", "players", "hands")))
['mood']
>>> ctx.add("lead", 2, "hands[2].tricks[1][0]", "seat 1 led", trick=1, seat=1)
>>> ctx.violations[-1].message
'hand 2, trick 1: seat 1 led'

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Opts:
...     preset: str = "std"
...     target: int = 10
>>> def check(key, raw, default):
...     if not isinstance(raw, type(default)):
...         raise ValueError(f"rules.{key} must be like {default!r}")
...     return raw
>>> read_options({"target": 5}, {"std": Opts()}, "std", check=check, error=ValueError,
...              unknown="unknown option %r")
Opts(preset='std', target=5)
>>> read_options({"preset": "x"}, {"std": Opts()}, "std", check=check, error=ValueError, unknown="")
Traceback (most recent call last):
...
ValueError: unknown preset 'x' (known: std)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar

from pipeline.violations import Violation

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A frozen dataclass of a game's rule options, one field of which is its ``preset``.
Options = TypeVar("Options", bound="DataclassInstance")


def record_game_id(record: Mapping[str, Any]) -> str | None:
    """The record's ``game_id`` when it is a non-empty string, else None."""
    game_id = record.get("game_id")
    return game_id if isinstance(game_id, str) and game_id else None


class Context:
    """Collects violations for one game, stamped with its id.

    A violation in a hand is told as ``hand H: ...``, or ``hand H, trick T: ...``
    when it names a trick (:meth:`locate`; a game may tell it its own way).
    """

    __slots__ = ("game_id", "violations")

    def __init__(self, game_id: str | None) -> None:
        self.game_id = game_id
        self.violations: list[Violation] = []

    def add(
        self,
        code: str,
        hand: int | None,
        path: str,
        message: str,
        rule: str | None = None,
        *,
        trick: int | None = None,
        seat: int | None = None,
    ) -> None:
        self.violations.append(
            Violation(
                code,
                self.locate(message, hand, trick),
                self.game_id,
                hand,
                path,
                rule=rule,
                trick=trick,
                seat=seat,
            )
        )

    def locate(self, message: str, hand: int | None, trick: int | None) -> str:
        """The message as reported, prefixed with where it is."""
        if hand is None:
            return message
        return f"hand {hand}, trick {trick}: {message}" if trick is not None else f"hand {hand}: {message}"


def is_seat(value: object) -> TypeGuard[int]:
    """A seat number 0-3 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3


def trick_winners_problem(value: object, tricks: int | None) -> str | None:
    """What is wrong with a hand's claimed ``trick_winners``, or None: they are
    seats, one a trick the record lists (``tricks``; None when it lists none
    that can be counted).

    >>> trick_winners_problem([2, 0, 1], 3) is None
    True
    >>> trick_winners_problem([2, 0], 3)
    'trick_winners names 2 winners for 3 tricks; it names one a trick'
    >>> trick_winners_problem([2, 9], None)
    'trick_winners must be a list of seats 0-3, not [2, 9]'
    """
    if not (isinstance(value, list) and all(is_seat(w) for w in value)):
        return f"trick_winners must be a list of seats 0-3, not {value!r}"
    if tricks is not None and len(value) != tricks:
        return f"trick_winners names {len(value)} winners for {tricks} tricks; it names one a trick"
    return None


def hand_dealer(ctx: Context, index: int, hand: object) -> int | None:
    """The dealer of hand ``index``: None, reported, when the hand is not an
    object or its dealer is not a seat (nothing more of it can be replayed)."""
    if not isinstance(hand, dict):
        ctx.add("schema", index, f"hands[{index}]", "a hand must be an object")
        return None
    dealer = hand.get("dealer")
    if not is_seat(dealer):
        ctx.add("schema", index, f"hands[{index}].dealer", f"dealer must be a seat 0-3, not {dealer!r}")
        return None
    return dealer


#: The optional top-level strings of every game object, and what each holds.
TEXT_FIELDS = {"source": "free text", "started_at": "an ISO-8601 timestamp"}
#: An ISO-8601 date, or date and time, in the extended form that both Python and
#: DuckDB read (the reports place a game in time with DuckDB's cast).
_TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?", re.ASCII
)


def check_game_fields(ctx: Context, record: dict[str, Any], record_format: str, seats: int = 4) -> None:
    """The fields every game object has: its format, id, players (one name a seat) and hands."""
    if record.get("format") != record_format:
        ctx.add("schema", None, "format", f"format is {record.get('format')!r}, expected {record_format!r}")
    if ctx.game_id is None:
        ctx.add("schema", None, "game_id", "game_id is missing or not a non-empty string")
    players = record.get("players")
    if not (isinstance(players, list) and len(players) == seats and all(isinstance(p, str) for p in players)):
        ctx.add("schema", None, "players", f"players must be a list of {seats} names, indexed by seat")
    if not isinstance(record.get("hands"), list):
        ctx.add("schema", None, "hands", "hands is missing or not a list")
    for key in TEXT_FIELDS:
        problem = text_field_problem(key, record.get(key))
        if problem is not None:
            ctx.add("schema", None, key, problem)


def text_field_problem(key: str, value: object) -> str | None:
    """What is wrong with the value of one of :data:`TEXT_FIELDS`, or None (absent,
    null, or right); the fast paths ask it too, to clear only what the replay would.

    >>> text_field_problem("started_at", "2024-03-05T19:02:00Z") is None
    True
    >>> text_field_problem("started_at", "2024-02-30")
    "started_at is not an ISO-8601 timestamp such as 2024-03-05T19:02:00Z: '2024-02-30' (kept as written)"
    >>> text_field_problem("source", 7)
    'source must be a string (free text), not 7'
    """
    if value is None:
        return None
    if not isinstance(value, str):
        return f"{key} must be a string ({TEXT_FIELDS[key]}), not {value!r}"
    if key == "started_at" and not is_timestamp(value):
        return f"started_at is not an ISO-8601 timestamp such as 2024-03-05T19:02:00Z: {value!r} (kept as written)"
    return None


def is_timestamp(text: str) -> bool:
    """Whether ``text`` is a date (``2024-03-05``) or a date and time (``T`` or a
    space between, seconds, their fraction and the zone optional) on the calendar.

    >>> [is_timestamp(t) for t in ("2024-03-05 19:02", "2024-03-05T19:02:03.5+01:00", "2024-02-29")]
    [True, True, True]
    >>> [is_timestamp(t) for t in ("2023-02-29", "2024-03-05T24:00", "20240305T1902Z", "5/3/2024", "")]
    [False, False, False, False, False]
    """
    if _TIMESTAMP.fullmatch(text) is None:
        return False
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


#: What a finding of an importer keeps in ``origin.findings`` (where it was is the record's own).
FINDING_FIELDS = ("code", "message", "hand", "trick", "seat", "path", "rule")


def as_finding(violation: Violation) -> dict[str, Any]:
    """A problem an importer found in the original, as ``origin.findings`` keeps it:
    what the record itself cannot say (a rule it has no option for, a history's
    extra actions), so that a converted record validates as its original did."""
    found = violation.to_json()
    return {key: found[key] for key in FINDING_FIELDS if found.get(key) not in (None, "")}


def origin_findings(record: Mapping[str, Any]) -> list[Violation]:
    """The problems an imported record's ``origin.findings`` carries from its original
    (:func:`as_finding`), each a violation of the game again; a list that is not one
    of findings is a ``schema`` violation.

    >>> found = Violation("bid_illegal", "a Canadian loner", "g", hand=2, path="hands[2].bids[4]", seat=1)
    >>> record = {"game_id": "g", "origin": {"format": "egn", "findings": [as_finding(found)]}}
    >>> origin_findings(record) == [found]
    True
    >>> [v.message for v in origin_findings({"game_id": "g", "origin": {"findings": [{"code": 7}]}})]
    ['origin.findings must be a list of problems, each with a code and a message (text)']
    """
    origin = record.get("origin")
    findings = origin.get("findings") if isinstance(origin, dict) else None
    if findings is None:
        return []
    game_id = record_game_id(record)
    out = [_finding(f, game_id) for f in findings] if isinstance(findings, list) else [None]
    if any(v is None for v in out):
        message = "origin.findings must be a list of problems, each with a code and a message (text)"
        return [Violation("schema", message, game_id, path="origin.findings")]
    return [v for v in out if v is not None]


def _finding(found: object, game_id: str | None) -> Violation | None:
    if not isinstance(found, dict) or not isinstance(found.get("code"), str):
        return None
    text = {key: found.get(key) for key in ("message", "path", "rule")}
    where = {key: found.get(key) for key in ("hand", "trick", "seat")}
    if not isinstance(text["message"], str) or not all(
        v is None or isinstance(v, str) for v in text.values()
    ):
        return None
    if not all(v is None or type(v) is int for v in where.values()):
        return None
    return Violation(
        found["code"],
        text["message"] or "",
        game_id,
        hand=where["hand"],
        path=text["path"] or "",
        rule=text["rule"],
        trick=where["trick"],
        seat=where["seat"],
    )


def unknown_fields(record: dict[str, Any], known: frozenset[str]) -> list[str]:
    """The top-level fields of a record its spec does not name, in record order."""
    return [k for k in record if k not in known]


class ReplayedHand(Protocol):
    """What a game's replay makes of one hand: its index in the record, and
    whether it is valid."""

    index: int
    valid: bool


def mark_valid(hands: Iterable[ReplayedHand], violations: Iterable[Violation]) -> None:
    """A hand is valid exactly when no violation of the game names it.

    The replay calls it with its own violations; a caller holding more of the
    game's violations (an importer's findings) calls it again with all of them.
    """
    named = {v.hand for v in violations}
    if not named:
        return
    for hand in hands:
        hand.valid = hand.index not in named


def read_options(
    value: dict[str, Any],
    presets: Mapping[str, Options],
    default: str,
    *,
    check: Callable[[str, object, object], object],
    error: Callable[[str], Exception],
    unknown: str,
) -> Options:
    """The options a record's ``rules`` object asks for: its ``preset`` (``default``
    when it names none) with each other key an option changed (:func:`with_options`)."""
    name = value.get("preset", default)
    base = presets.get(name) if isinstance(name, str) else None
    if base is None:
        raise error(f"unknown preset {name!r} (known: {', '.join(presets)})")
    options = {k: v for k, v in value.items() if k != "preset"}
    return with_options(base, options, check=check, error=error, unknown=unknown)


def with_options(
    base: Options,
    options: dict[str, Any],
    *,
    check: Callable[[str, object, object], object],
    error: Callable[[str], Exception],
    unknown: str,
) -> Options:
    """``base`` with some options changed, in order: a key that names no option (or
    ``preset``) raises ``error(unknown % key)``; ``check(key, value, base's value)``
    gives the value to keep, or raises."""
    known = {f.name for f in fields(base)}
    changes: dict[str, Any] = {}
    for key, raw in options.items():
        if key not in known or key == "preset":
            raise error(unknown % (key,))
        changes[key] = check(key, raw, getattr(base, key))
    return replace(base, **changes)
