"""French Tarot rule options, and the FFT preset.

Every option has a name, an FFT default, and can be overridden one by one from
a record's ``rules`` object (``{"preset": "fft", "poignee_values": [20, 40, 60]}``).
Where the FFT rulebook is silent or clubs play otherwise, the option says so.

>>> r = Rules.from_record({"preset": "fft", "poignee_values": [20, 40, 60], "poignee_to": "announcer"})
>>> r.preset, r.poignee_values, r.poignee_to, r.excuse_last_trick
('fft', (20, 40, 60), 'announcer', 'winner')
>>> Rules.from_record({"preset": "fft", "misere": True}).misere
True
>>> Rules.from_record({"preset": "belote"})
Traceback (most recent call last):
...
pipeline.games.tarot.rules.RulesError: unknown preset 'belote' (known: fft)
>>> Rules.from_record({"poignee_values": [20, 30]})
Traceback (most recent call last):
...
pipeline.games.tarot.rules.RulesError: rules.poignee_values must be 3 whole numbers 0-1000, not [20, 30]
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

from pipeline.record import read_options

PoigneeTo = Literal["winner", "announcer"]
ExcuseLast = Literal["winner", "lost"]
ExcuseBy = Literal["chelem_side", "any"]

#: The contracts, lowest first, with their multipliers.
CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
CALLS = ("pass", *CONTRACTS)
#: Points the taker needs with 0, 1, 2 or 3 bouts.
TARGETS = (56, 51, 41, 36)
POIGNEE_NAMES = ("simple", "double", "triple")


class RulesError(ValueError):
    """A ``rules`` object names an unknown preset or option, or a bad value."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The options of one French Tarot table at four players (defaults: FFT)."""

    preset: str = "fft"
    #: Multiplier of each contract: prise, garde, garde sans, garde contre.
    multipliers: tuple[int, int, int, int] = (1, 2, 4, 6)
    #: Trumps shown for a simple, double and triple poignée at four players.
    poignee_sizes: tuple[int, int, int] = (10, 13, 15)
    #: Their values (FFT 20/30/40; many clubs play 20/40/60).
    poignee_values: tuple[int, int, int] = (20, 30, 40)
    #: FFT: the poignée goes to the side that wins the hand, whoever showed it.
    #: "announcer": it is kept by the announcer's side (a local table).
    poignee_to: PoigneeTo = "winner"
    #: FFT: the Excuse may stand for a trump in a poignée only when its holder
    #: has no other trump left to show.
    excuse_in_poignee_only_if_short: bool = True
    #: FFT: the Excuse played to the last trick goes to the side that wins that
    #: trick (a chelem aside).  "lost": it always goes to the other side.
    excuse_last_trick: ExcuseLast = "winner"
    #: FFT: in a chelem where the Excuse is played to the last trick, the Petit
    #: in the last-but-one trick counts as "au bout".
    petit_au_bout_before_excuse: bool = True
    #: FFT: that is the Excuse of the side that won every trick; an opponent's
    #: Excuse leaves the last trick as it is.  "any": whoever played it (TarotClub).
    petit_au_bout_excuse_by: ExcuseBy = "chelem_side"
    #: Petit au bout bonus, before the multiplier.
    petit_au_bout: int = 10
    #: FFT: a seat holding the Petit as its only trump (and no Excuse) throws the hand in.
    petit_sec: bool = True
    #: Misères (a hand with no trump, or no face card) are not FFT; tricklog
    #: does not score them: a record that turns them on is ``unsupported``.
    misere: bool = False
    #: The difference |points - target| is rounded to a multiple of this
    #: (FFT: 1, no rounding; some clubs round to 10, halves up).
    round_difference: int = 1
    #: Chelem: announced and made, made unannounced, announced and failed
    #: (negative), and a defence chelem (counted against the taker).
    chelem_announced: int = 400
    chelem_unannounced: int = 200
    chelem_failed: int = 200
    chelem_defence: int = 200

    @classmethod
    def from_record(cls, value: object) -> Rules:
        """The rules of a record's ``rules`` object (None: the FFT preset)."""
        if value is None:
            return PRESETS["fft"]
        if not isinstance(value, dict):
            raise RulesError(f"rules must be an object, not {value!r}")
        return read_options(
            value, PRESETS, "fft", check=_checked, error=RulesError, unknown="unknown rules option %r"
        )

    def as_dict(self) -> dict[str, Any]:
        """The options as a JSON object (tuples as lists)."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}

    def multiplier(self, contract: str) -> int:
        return self.multipliers[CONTRACTS.index(contract)]


_CHOICES: dict[str, tuple[str, ...]] = {
    "poignee_to": ("winner", "announcer"),
    "excuse_last_trick": ("winner", "lost"),
    "petit_au_bout_excuse_by": ("chelem_side", "any"),
}


def _checked(key: str, raw: object, default: object) -> object:
    """An option's value from JSON, checked against the type of its default."""
    if isinstance(default, bool):
        if not isinstance(raw, bool):
            raise RulesError(f"rules.{key} must be true or false, not {raw!r}")
        return raw
    if isinstance(default, int):
        if not (isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= 1000):
            raise RulesError(f"rules.{key} must be a whole number 0-1000, not {raw!r}")
        if key == "round_difference" and raw < 1:
            raise RulesError(f"rules.{key} must be at least 1, not {raw!r}")
        return raw
    if isinstance(default, tuple):
        n = len(default)
        if not (
            isinstance(raw, list)
            and len(raw) == n
            and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 1000 for x in raw)
        ):
            raise RulesError(f"rules.{key} must be {n} whole numbers 0-1000, not {raw!r}")
        return tuple(raw)
    choices = _CHOICES[key]
    if raw not in choices:
        raise RulesError(f"rules.{key} must be one of {', '.join(choices)}, not {raw!r}")
    return raw


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


#: The presets a record may name.
PRESETS: dict[str, Rules] = {"fft": Rules()}


def target(bouts: int) -> int:
    """The points the taker needs with ``bouts`` bouts (0-3)."""
    return TARGETS[max(0, min(3, bouts))]
