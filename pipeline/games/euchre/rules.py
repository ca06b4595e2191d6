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
from enum import StrEnum
from itertools import permutations
from typing import Any, Literal

from pipeline.games.euchre.cards import NINES_AND_TENS, CardSet
from pipeline.record import read_options, with_options

#: A seat at the table, 0-3 clockwise; partners sit opposite (0 and 2, 1 and 3).
Seat = int

AloneLead = Literal["left_of_dealer", "left_of_alone"]
BothAloneLead = Literal["lone_defender", "left_of_dealer"]


class Call(StrEnum):
    """A call of the bidding, spelt as in the record: pass, order the upcard up
    (round one), or name a suit (round two).

    >>> Call("D").suit, Call.ORDER.suit, Call.PASS == "pass"
    (1, None, True)
    """

    PASS = "pass"
    ORDER = "order"
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def suit(self) -> int | None:
        """The suit a round-two call names (None for pass and order)."""
        return _NAMED_SUIT.get(self)


_NAMED_SUIT = {Call.CLUBS: 0, Call.DIAMONDS: 1, Call.HEARTS: 2, Call.SPADES: 3}
#: Every call by its spelling in the record (a dict lookup, cheaper than ``Call(text)``).
CALLS: dict[str, Call] = {call.value: call for call in Call}


class ThrowIn(StrEnum):
    """Why a hand was thrown in without play, spelt as in the record."""

    ALL_PASSED = "all_passed"
    FARMERS_HAND = "farmers_hand"


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
        # typed: 1 == True and 10.0 == 10 in Python, and only one of each pair is an option's value
        key = tuple((name, type(value), value) for name, value in sorted(rules.items()))
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
        return read_options(
            rules, PRESETS, "cards4net", check=_check_option, error=RulesError, unknown=_UNKNOWN_OPTION
        )

    def with_options(self, overrides: dict[str, Any]) -> Rules:
        return with_options(self, overrides, check=_check_option, error=RulesError, unknown=_UNKNOWN_OPTION)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def kitty_size(self) -> int:
        return self.deck - 21


#: The largest value of a numeric option: points fit the warehouse's columns, and a
#: game's scores stay far from overflowing them (schemas/euchre-record.schema.json agrees).
RULE_MAX = {"target": 10_000} | {f.name: 100 for f in fields(Rules) if f.name.startswith("points_")}
_UNKNOWN_OPTION = "unknown rule option %r"


def _check_option(key: str, value: object, default: object) -> object:
    """``value`` for option ``key``, checked against the type of its ``default``."""
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
    return value


_CHOICES = {
    "alone_lead": ("left_of_dealer", "left_of_alone"),
    "both_alone_lead": ("lone_defender", "left_of_dealer"),
}


#: Rules already built, by their record's sorted (option, value type, value) triples.
_RULES_SEEN: dict[tuple[tuple[str, type, Any], ...], Rules] = {}

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


# --------------------------------------------------------------------------
# Seats: who deals, who calls, who sits out, who leads


def team_of(seat: Seat) -> int:
    """Seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat & 1


def partner_of(seat: Seat) -> Seat:
    return (seat + 2) % 4


def next_dealer(dealer: Seat) -> Seat:
    """The deal passes clockwise."""
    return (dealer + 1) % 4


def caller(dealer: Seat, k: int) -> Seat:
    """The seat whose turn it is to make the ``k``-th call (0-based) of the bidding:
    clockwise from the dealer's left, round after round.

    >>> [caller(3, k) for k in range(5)]
    [0, 1, 2, 3, 0]
    """
    return (dealer + 1 + k) % 4


#: CALLERS[dealer]: :func:`caller` for the eight calls of two rounds, as a table.
CALLERS: tuple[tuple[Seat, ...], ...] = tuple(tuple(caller(d, k) for k in range(8)) for d in range(4))


def sitting_out(maker: Seat | None, alone: bool, defender_alone: Seat | None) -> tuple[Seat, ...]:
    """The seats that sit the hand out: the partner of each player who went alone
    (a maker's ``alone`` counts only once there is a maker).

    >>> sitting_out(0, True, None), sitting_out(0, True, 1), sitting_out(2, False, 3), sitting_out(None, True, None)
    ((2,), (2, 3), (1,), ())
    """
    out = (partner_of(maker),) if alone and maker is not None else ()
    if defender_alone is None or partner_of(defender_alone) in out:
        return out
    return (*out, partner_of(defender_alone))


def _order(leader: Seat, out: tuple[Seat, ...]) -> tuple[Seat, ...]:
    return tuple(s for s in ((leader + i) % 4 for i in range(4)) if s not in out)


#: PLAY_ORDER[out][leader]: the seats that play a trick led by ``leader``, in
#: order, when the seats of ``out`` sit out (``out`` in any order, as
#: :func:`sitting_out` gives it).  See :func:`trick.play_order`.
PLAY_ORDER: dict[tuple[Seat, ...], tuple[tuple[Seat, ...], ...]] = {
    out: tuple(_order(leader, out) for leader in range(4))
    for size in range(3)
    for out in permutations(range(4), size)
}


def first_active(start: Seat, out: tuple[Seat, ...]) -> Seat:
    """The first seat from ``start`` clockwise (``start`` included) that does not sit out."""
    return PLAY_ORDER[out][start][0]


def first_leader(rules: Rules, dealer: Seat, maker: Seat, alone: bool, defender_alone: Seat | None) -> Seat:
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
    return first_active(start % 4, out)


def dealer_picks_up(rules: Rules, dealer: Seat, maker: Seat, alone: bool, round_: int) -> bool:
    """After an order-up (round one) the dealer takes the upcard, even when the
    partner went alone unless ``dealer_picks_up_when_partner_alone`` is off."""
    if round_ != 1:
        return False
    partner_alone = alone and maker == partner_of(dealer)
    return not partner_alone or rules.dealer_picks_up_when_partner_alone


class CallFault(StrEnum):
    """Why the rules forbid a call."""

    #: Round one: only "order" or "pass".
    SUIT_IN_ROUND_ONE = "suit_in_round_one"
    #: Round two: the upcard was turned down, it cannot be ordered up.
    ORDER_IN_ROUND_TWO = "order_in_round_two"
    #: Round two: the suit turned down may not be named (``may_name_turned_down_suit``).
    TURNED_DOWN_SUIT = "turned_down_suit"
    #: Stick the dealer: the dealer may not pass in round two.
    STUCK_DEALER_PASS = "stuck_dealer_pass"
    #: A pass cannot go alone.
    PASS_ALONE = "pass_alone"
    #: These rules do not allow going alone.
    ALONE_FORBIDDEN = "alone_forbidden"


def call_faults(
    rules: Rules, call: Call, alone: bool, round_: int, seat: Seat, dealer: Seat, turned: int | None
) -> tuple[CallFault, ...]:
    """What is wrong with a call by ``seat`` in bidding round ``round_`` (1 or 2),
    the upcard's suit ``turned`` (None when it has none): at most one fault of
    the call and one of going alone.  Empty when the call is legal.

    >>> from pipeline.games.euchre.cards import HEARTS
    >>> call_faults(PRESETS["cards4net"], Call.HEARTS, False, 2, 1, 3, HEARTS)
    (<CallFault.TURNED_DOWN_SUIT: 'turned_down_suit'>,)
    >>> call_faults(PRESETS["cards4net"], Call.PASS, False, 2, 3, 3, HEARTS), can_call(PRESETS["pagat"], Call.PASS, False, 2, 3, 3, HEARTS)
    ((<CallFault.STUCK_DEALER_PASS: 'stuck_dealer_pass'>,), True)
    """
    fault = None
    if round_ == 1:
        if call is not Call.PASS and call is not Call.ORDER:
            fault = CallFault.SUIT_IN_ROUND_ONE
    elif call is Call.ORDER:
        fault = CallFault.ORDER_IN_ROUND_TWO
    elif turned is not None and call.suit == turned and not rules.may_name_turned_down_suit:
        fault = CallFault.TURNED_DOWN_SUIT
    elif call is Call.PASS and seat == dealer and rules.stick_the_dealer:
        fault = CallFault.STUCK_DEALER_PASS
    alone_fault = None
    if alone:
        alone_fault = CallFault.PASS_ALONE if call is Call.PASS else None
        if alone_fault is None and not rules.allow_alone:
            alone_fault = CallFault.ALONE_FORBIDDEN
    if fault is None and alone_fault is None:
        return ()
    return tuple(f for f in (fault, alone_fault) if f is not None)


def can_call(
    rules: Rules, call: Call, alone: bool, round_: int, seat: Seat, dealer: Seat, turned: int | None
) -> bool:
    """Whether the rules allow a call (see :func:`call_faults`)."""
    return not call_faults(rules, call, alone, round_, seat, dealer, turned)


def can_discard(rules: Rules, card: int, upcard: int) -> bool:
    """Whether the dealer, having picked ``upcard`` up, may discard ``card``
    (a card it holds): any, or any but the upcard (``dealer_may_discard_upcard``)."""
    return card != upcard or rules.dealer_may_discard_upcard


def can_defend_alone(rules: Rules, seat: Seat, maker: Seat) -> bool:
    """Whether ``seat`` may defend alone against ``maker``: the rules allow lone
    defenders, and the seat is a defender (not on the makers' team)."""
    return rules.defend_alone and team_of(seat) != team_of(maker)


def is_farmers_hand(hand: CardSet) -> bool:
    """A hand of four or more nines and tens (thrown in under ``farmers_hand``).

    >>> from pipeline.games.euchre.cards import mask_of
    >>> is_farmers_hand(mask_of("9C 9D TH TS AS")), is_farmers_hand(mask_of("9C 9D TH AS KS"))
    (True, False)
    """
    return (hand & NINES_AND_TENS).bit_count() >= 4
