"""What the replay builds: one :class:`TarotHand` per hand, one :class:`TarotReplay`
per game, and the working state of the hand being replayed (:class:`HandState`).

The phase modules (:mod:`deal`, :mod:`bidding`, :mod:`chien`,
:mod:`announcements`, :mod:`play`, :mod:`scoring`, :mod:`claims`) each read
their part of the record into a :class:`HandState` and report through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.games.tarot.cards import card_name, mask_of_cards, parse_card
from pipeline.games.tarot.rules import Rules
from pipeline.record import Context, is_seat
from pipeline.violations import Violation

#: The two sides of a hand: the taker alone, and the three defenders.
TAKER_SIDE, DEFENCE_SIDE = 0, 1
SIDE_NAMES = ("taker", "defence")


@dataclass(frozen=True, slots=True)
class Bid:
    seat: int
    call: str


@dataclass(slots=True)
class PlayedTrick:
    """One trick as replayed: who led, the plays in order, who won it."""

    leader: int
    plays: list[tuple[int, int]] = field(default_factory=list)
    winner: int | None = None
    #: A fault in this trick (a wrong lead or turn, or a play by a seat that had
    #: already gone wrong): the later plays are not judged, and the winner the
    #: record gives (the next leader) is kept.
    unsure: bool = False
    #: A seat that had already gone wrong played to this trick, and the record
    #: names another winner than the cards do: the record's winner was kept.
    winner_from_record: bool = False

    @property
    def cards(self) -> list[int]:
        return [c for _, c in self.plays]

    @property
    def mask(self) -> int:
        """The trick's cards as a mask."""
        return mask_of_cards(c for _, c in self.plays)

    def seat_of(self, card: int) -> int | None:
        return next((s for s, c in self.plays if c == card), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "winner": self.winner,
            "plays": [[s, card_name(c)] for s, c in self.plays],
        }


@dataclass(slots=True)
class TarotHand:
    """What one hand came to, as the replay saw it."""

    index: int
    dealer: int
    #: The deal (4 hands of 18 and the chien) was recorded in full and is a deck.
    deal_known: bool = False
    #: No violation names this hand.
    valid: bool = True
    #: The hand was played to its 18th trick and scored (or it was thrown in).
    complete: bool = False
    #: None, "all_passed" or "petit_sec".
    thrown_in: str | None = None
    bids: list[Bid] = field(default_factory=list)
    contract: str | None = None
    taker: int | None = None
    #: The dealt hands as masks, by seat, and the chien and écart as cards.
    deal: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    chien: list[int] = field(default_factory=list)
    ecart: list[int] = field(default_factory=list)
    #: Poignées shown, as (seat, "simple" | "double" | "triple").
    poignees: list[tuple[int, str]] = field(default_factory=list)
    chelem_announced: bool = False
    chelem_announcer: int | None = None
    tricks: list[PlayedTrick] = field(default_factory=list)
    #: Tricks the taker won.
    taker_tricks: int = 0
    #: The taker's card points, in half points (``taker_points`` is the number).
    taker_half_points: int = 0
    bouts: int = 0
    target: int | None = None
    #: Taker points minus target (negative when down), in points.
    margin: float | None = None
    made: bool | None = None
    #: None, "taker" or "defence": who won the last trick with the Petit in it.
    petit_au_bout: str | None = None
    #: The taker won every trick / the taker won none.
    chelem_made: bool = False
    defence_chelem: bool = False
    #: The side ("taker" / "defence") that ends the hand with the Excuse.
    excuse_owner_side: str | None = None
    #: The taker's contract score X (the taker scores 3X, each defender -X).
    contract_score: int = 0
    #: This hand's score, by seat (four numbers summing to zero).
    scores: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: The running totals after this hand, by seat.
    totals: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: The claimed figures were compared with the replay's.  False when the hand
    #: already had a violation: its claimed trick winners, points and scores may
    #: then differ only as a consequence of that fault, and are not reported again.
    claims_checked: bool = True

    @property
    def taker_points(self) -> float:
        return self.taker_half_points / 2

    @property
    def trick_winners(self) -> list[int | None]:
        return [t.winner for t in self.tricks]

    def side_of(self, seat: int) -> int:
        return TAKER_SIDE if seat == self.taker else DEFENCE_SIDE

    def to_json(self) -> dict[str, Any]:
        """The hand's outcome as a JSON object (cards as tokens, points as numbers)."""
        return {
            "index": self.index,
            "dealer": self.dealer,
            "deal_known": self.deal_known,
            "valid": self.valid,
            "complete": self.complete,
            "thrown_in": self.thrown_in,
            "bids": [{"seat": b.seat, "call": b.call} for b in self.bids],
            "contract": self.contract,
            "taker": self.taker,
            "taker_position": self.taker_position,
            "chien": [card_name(c) for c in self.chien],
            "ecart": [card_name(c) for c in self.ecart],
            "poignees": [[seat, name] for seat, name in self.poignees],
            "chelem_announced": self.chelem_announced,
            "chelem_announcer": self.chelem_announcer,
            "tricks": [t.to_json() for t in self.tricks],
            "taker_tricks": self.taker_tricks,
            "taker_points": self.taker_points,
            "bouts": self.bouts,
            "target": self.target,
            "margin": self.margin,
            "made": self.made,
            "petit_au_bout": self.petit_au_bout,
            "chelem_made": self.chelem_made,
            "defence_chelem": self.defence_chelem,
            "excuse_owner_side": self.excuse_owner_side,
            "contract_score": self.contract_score,
            "scores": list(self.scores),
            "totals": list(self.totals),
        }

    @property
    def taker_position(self) -> str | None:
        """Where the taker sat from the dealer: "first" (spoke first), "second", "third" or "dealer"."""
        if self.taker is None:
            return None
        return ("first", "second", "third", "dealer")[(self.taker - self.dealer - 1) % 4]

    @property
    def taker_score(self) -> int | None:
        """The taker's score for the hand (3X)."""
        return None if self.taker is None else self.scores[self.taker]


@dataclass(slots=True)
class TarotReplay:
    """A replayed game: its hands, running totals and every violation found."""

    game_id: str | None
    rules: Rules
    players: list[str] = field(default_factory=list)
    hands: list[TarotHand] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    #: Cumulative score per seat after the last hand.
    totals: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: Top-level fields the spec does not name: kept by the loader, warned about.
    unknown_fields: list[str] = field(default_factory=list)


class HandState:
    """The state of one hand being replayed: holdings and what is known of the cards."""

    __slots__ = (
        "chien_sure",
        "ctx",
        "faulty",
        "follow_record",
        "held",
        "index",
        "later",
        "located",
        "result",
        "rules",
        "sure",
        "suspect",
        "taken",
    )

    def __init__(self, ctx: Context, rules: Rules, index: int, dealer: int) -> None:
        self.ctx = ctx
        self.rules = rules
        self.index = index
        self.result = TarotHand(index, dealer)
        #: The cards each seat holds now.
        self.held = [0, 0, 0, 0]
        #: Whether each seat's holding is known from the deal (else read from its plays).
        self.sure = [False, False, False, False]
        #: Whether the chien is known: recorded in full, or the cards four known hands leave.
        self.chien_sure = False
        #: The cards each seat plays from here on, as the record says (see :mod:`play`).
        self.later = [0, 0, 0, 0]
        #: Where each card went: "seat 2", "the chien", "the écart" ... for messages.
        self.located: dict[int, str] = {}
        #: Cards out of every hand: the chien (until taken up), the écart, the played cards.
        self.taken = 0
        #: Seats whose play already went wrong in this hand: their later plays are
        #: not held against them (one fault, one violation).
        self.suspect: set[int] = set()
        #: The cards of those faulty plays: the record shows them in the wrong
        #: place, and a seat playing one again is the same fault.
        self.faulty = 0
        #: After a wrong lead, each trick's winner is the one the record gives
        #: (the next leader): the record follows its own account of the tricks.
        self.follow_record = False

    def add(
        self,
        code: str,
        path: str,
        message: str,
        *,
        trick: int | None = None,
        seat: int | None = None,
        rule: str | None = None,
    ) -> None:
        self.result.valid = False
        self.ctx.add(
            code, self.index, f"hands[{self.index}]{path}", message, trick=trick, seat=seat, rule=rule
        )

    def card(
        self, token: object, path: str, *, trick: int | None = None, seat: int | None = None
    ) -> int | None:
        """A card token, or None after reporting it as ``bad_card``."""
        card = parse_card(token)
        if card is None:
            self.add("bad_card", path, f"{token!r} is not a card of the Tarot deck", trick=trick, seat=seat)
        return card

    def whereabouts(self, card: int, seat: int) -> str:
        """Where a card a seat did not hold was, for a message."""
        for t, trick in enumerate(self.result.tricks):
            owner = trick.seat_of(card)
            if owner is not None:
                return f"already played by seat {owner} in trick {t}"
        for other in range(4):
            if other != seat and self.held[other] >> card & 1:
                return f"held by seat {other}"
        where = self.located.get(card)
        if where is not None:
            return f"which was in {where}"
        return "which it was not dealt"


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = [
    "DEFENCE_SIDE",
    "SIDE_NAMES",
    "TAKER_SIDE",
    "Bid",
    "Context",
    "HandState",
    "PlayedTrick",
    "TarotHand",
    "TarotReplay",
    "is_int",
    "is_seat",
]
