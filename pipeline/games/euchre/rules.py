"""Euchre rule options and the three presets of the record spec.

Every option has a name, a default (the common North American answer) and can
be overridden one by one from a record's ``rules`` object.

>>> r = Rules.from_record({"preset": "pagat", "target": 11})
>>> r.preset, r.stick_the_dealer, r.defend_alone, r.target
('pagat', False, True, 11)
>>> Rules.from_record({"preset": "nope"})
Traceback (most recent call last):
...
pipeline.games.euchre.rules.RulesError: unknown preset 'nope' (known: cards4net, pagat, french)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

AloneLead = Literal["left_of_dealer", "left_of_alone"]
BothAloneLead = Literal["lone_defender", "left_of_dealer"]


class RulesError(ValueError):
    """A ``rules`` object names an unknown preset or option, or a bad value."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The options of one Euchre variant (defaults: Cards4.net)."""

    preset: str = "cards4net"
    #: 24 (9 to A), 32 (7 to A) or 25 (24 and the joker, the highest trump).
    deck: int = 24
    #: Four passes in round two are not allowed: the dealer must name a suit.
    stick_the_dealer: bool = True
    #: A hand where a seat holds 4+ nines and tens is thrown in before bidding.
    farmers_hand: bool = False
    #: Going alone is allowed at all (the maker's partner then sits out).
    allow_alone: bool = True
    #: A defender may declare alone against the makers.
    defend_alone: bool = False
    #: Who leads the first trick when someone is alone; "left_of_dealer" means
    #: the first active seat left of the dealer.  Both alone: the lone defender.
    alone_lead: AloneLead = "left_of_dealer"
    #: Who leads when a maker and a defender both go alone (OpenSpiel: left_of_dealer).
    both_alone_lead: BothAloneLead = "lone_defender"
    #: The dealer picks the upcard up even when the partner goes alone.
    dealer_picks_up_when_partner_alone: bool = True
    #: The dealer may discard the upcard itself right after picking it up.
    dealer_may_discard_upcard: bool = True
    #: After an order-up the dealer may leave the upcard where it lies (trump stays
    #: its suit; a hand with no discard then means it was left).  The Dutch text of
    #: Pagat's rules allows it; North American tables make the dealer take it.
    dealer_may_leave_upcard: bool = False
    #: In round two the suit turned down may be named again (the French rule text
    #: does not forbid it; North American tables do).
    may_name_turned_down_suit: bool = False
    points_make: int = 1
    points_march: int = 2
    points_alone_make: int = 1
    points_alone_march: int = 4
    points_euchre: int = 2
    points_alone_euchre: int = 2
    points_defender_alone_euchre: int = 2
    points_defender_alone_march: int = 4
    target: int = 10

    @classmethod
    def from_record(cls, rules: object) -> Rules:
        """The rules a record's ``rules`` object asks for (None: the default preset)."""
        if rules is None:
            return PRESETS["cards4net"]
        if not isinstance(rules, dict):
            raise RulesError(f"rules must be an object, not {type(rules).__name__}")
        key = tuple(sorted(rules.items()))
        try:
            return _RULES_SEEN[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable value: never a valid option
            return cls._build(rules)
        built = cls._build(rules)
        if len(_RULES_SEEN) < 1024:  # a data set uses a handful of rule sets
            _RULES_SEEN[key] = built
        return built

    @classmethod
    def _build(cls, rules: dict[str, Any]) -> Rules:
        name = rules.get("preset", "cards4net")
        preset = PRESETS.get(name) if isinstance(name, str) else None
        if preset is None:
            raise RulesError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
        overrides = {k: v for k, v in rules.items() if k != "preset"}
        return preset.with_options(overrides)

    def with_options(self, overrides: dict[str, Any]) -> Rules:
        known = {f.name: f for f in fields(self)}
        for key, value in overrides.items():
            field = known.get(key)
            if field is None or key == "preset":
                raise RulesError(f"unknown rule option {key!r}")
            _check_option(key, value, getattr(self, key))
        return replace(self, **overrides)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def kitty_size(self) -> int:
        return self.deck - 21


#: The largest value of a numeric option: points fit the warehouse's columns, and a
#: game's scores stay far from overflowing them (schemas/euchre-record.schema.json agrees).
RULE_MAX = {"target": 10_000} | {f.name: 100 for f in fields(Rules) if f.name.startswith("points_")}


def _check_option(key: str, value: object, default: object) -> None:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RulesError(f"rule option {key!r} must be true or false, not {value!r}")
    elif isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RulesError(f"rule option {key!r} must be a whole number, not {value!r}")
        if key == "deck" and value not in (24, 25, 32):
            raise RulesError(f"rule option 'deck' must be 24, 25 or 32, not {value!r}")
        if key == "target" and value < 1:
            raise RulesError("rule option 'target' must be at least 1")
        if value > RULE_MAX.get(key, value):
            raise RulesError(f"rule option {key!r} must be at most {RULE_MAX[key]}, not {value!r}")
    elif key in _CHOICES and value not in _CHOICES[key]:
        raise RulesError(f"rule option {key!r} must be {' or '.join(_CHOICES[key])}, not {value!r}")


_CHOICES = {
    "alone_lead": ("left_of_dealer", "left_of_alone"),
    "both_alone_lead": ("lone_defender", "left_of_dealer"),
}


#: Rules already built, by their record's sorted (option, value) pairs.
_RULES_SEEN: dict[tuple[tuple[str, Any], ...], Rules] = {}

_CARDS4NET = Rules()
PRESETS: dict[str, Rules] = {
    "cards4net": _CARDS4NET,
    "pagat": replace(
        _CARDS4NET, preset="pagat", stick_the_dealer=False, defend_alone=True, alone_lead="left_of_alone"
    ),
    "french": replace(
        _CARDS4NET,
        preset="french",
        stick_the_dealer=False,
        defend_alone=True,
        alone_lead="left_of_alone",
        points_alone_euchre=4,
    ),
}


def sitting_out(maker: int, alone: bool, defender_alone: int | None) -> tuple[int, ...]:
    """The seats that sit the hand out: the partner of each player who went alone.

    >>> sitting_out(0, True, None), sitting_out(0, True, 1), sitting_out(2, False, 3)
    ((2,), (2, 3), (1,))
    """
    out = ((maker + 2) % 4,) if alone else ()
    return out if defender_alone is None else (*out, (defender_alone + 2) % 4)


def first_leader(rules: Rules, dealer: int, maker: int, alone: bool, defender_alone: int | None) -> int:
    """Who leads the first trick.

    Nobody alone: the seat left of the dealer.  One player alone: the first
    active seat left of the dealer, or left of the loner (``alone_lead``).  Both
    alone: the lone defender, or the first active seat left of the dealer
    (``both_alone_lead``).

    >>> first_leader(PRESETS["cards4net"], 3, 2, True, None)   # seat 0 sits out
    1
    >>> first_leader(PRESETS["pagat"], 3, 2, True, None), first_leader(PRESETS["pagat"], 3, 2, True, 1)
    (3, 1)
    """
    out = sitting_out(maker, alone, defender_alone)
    lone = maker if alone else defender_alone
    if alone and defender_alone is not None:
        if rules.both_alone_lead == "lone_defender":
            return defender_alone
        lone = None
    start = dealer + 1 if lone is None or rules.alone_lead == "left_of_dealer" else lone + 1
    return next((start + step) % 4 for step in range(4) if (start + step) % 4 not in out)


def dealer_picks_up(rules: Rules, dealer: int, maker: int, alone: bool, round_: int) -> bool:
    """After an order-up (round one) the dealer takes the upcard, even when the
    partner went alone unless ``dealer_picks_up_when_partner_alone`` is off."""
    if round_ != 1:
        return False
    partner_alone = alone and maker == (dealer + 2) % 4
    return not partner_alone or rules.dealer_picks_up_when_partner_alone


def hand_points(rules: Rules, maker_tricks: int, maker_alone: bool, defender_alone: bool) -> tuple[int, int]:
    """Points for (makers, defenders) after a played hand of five tricks.

    >>> hand_points(PRESETS["cards4net"], 5, True, False)
    (4, 0)
    >>> hand_points(PRESETS["french"], 2, True, False)
    (0, 4)
    >>> hand_points(PRESETS["pagat"], 0, True, True)   # the lone defender marches
    (0, 4)
    """
    if not 0 <= maker_tricks <= 5:
        raise ValueError(f"a hand has five tricks, not {maker_tricks} for the makers")
    if maker_tricks == 5:
        return (rules.points_alone_march if maker_alone else rules.points_march), 0
    if maker_tricks >= 3:
        return (rules.points_alone_make if maker_alone else rules.points_make), 0
    euchre = rules.points_alone_euchre if maker_alone else rules.points_euchre
    if defender_alone:
        lone = rules.points_defender_alone_march if maker_tricks == 0 else rules.points_defender_alone_euchre
        euchre = max(euchre, lone)
    return 0, euchre
