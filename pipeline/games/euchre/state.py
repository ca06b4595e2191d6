"""What a replay knows: the phases of a hand, the state of the hand being
replayed, and what it came to (:class:`HandResult`, :class:`GameReplay`).

Every violation is made here, by :meth:`Context.add` or :meth:`HandState.add`,
so that each carries its game, hand, trick and the seat at fault.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from pipeline import record
from pipeline.games.euchre.cards import DECK_TOKENS, DECKS, UNKNOWN, Card, CardSet, Suit
from pipeline.games.euchre.rules import Call, Rules, Seat, team_of
from pipeline.games.euchre.trick import Trick
from pipeline.violations import Violation


class Phase(IntEnum):
    """The phases of a hand, in the order the replay goes through them (small
    ints, so that the replay's dispatch on them is a cheap lookup)."""

    DEAL = 1
    THROW_IN = 2
    BIDDING = 3
    LONE_DEFENDER = 4
    DISCARD = 5
    PLAY = 6
    SCORING = 7
    #: The hand has been replayed.
    OVER = 8


@dataclass(slots=True)
class Bid:
    """One call as the record says it (``call`` "?" and seat ``UNKNOWN`` when unreadable)."""

    seat: Seat
    call: Call | str
    alone: bool


@dataclass(slots=True)
class HandResult:
    """What one hand came to, as the replay saw it."""

    index: int
    dealer: Seat
    upcard: Card = UNKNOWN
    bids: list[Bid] = field(default_factory=list)
    trump: Suit | None = None
    maker: Seat | None = None
    #: 1 = the upcard was ordered up, 2 = trump was named in round two.
    round: int | None = None
    alone: bool = False
    defender_alone: Seat | None = None
    discard: Card | None = None
    #: The tricks replayed, in order: each iterates as its (seat, card) plays.
    tricks: list[Trick] = field(default_factory=list)
    maker_tricks: int = 0
    points: tuple[int, int] = (0, 0)
    score: tuple[int, int] = (0, 0)
    thrown_in: str | None = None
    #: Five tricks were played (or the hand was thrown in).
    complete: bool = False
    #: No violation of the game names this hand (set once the game is replayed).
    valid: bool = True
    #: The deal was recorded in full (no holding had to be inferred).
    deal_known: bool = False

    @property
    def leaders(self) -> list[Seat]:
        """Each trick's leader."""
        return [t.leader for t in self.tricks]

    @property
    def winners(self) -> list[Seat | None]:
        """Each trick's winner; None for a trick no one is known to have taken (a
        card short: the missing card may have won it)."""
        return [t.winner for t in self.tricks]

    @property
    def maker_team(self) -> int | None:
        return None if self.maker is None else team_of(self.maker)


@dataclass(slots=True)
class GameReplay:
    """A replayed game: its hands, running score and every violation found."""

    game_id: str | None
    rules: Rules | None
    hands: list[HandResult] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    score: tuple[int, int] = (0, 0)
    #: The hand after which a team reached the target, if one did.
    ended_at: int | None = None
    #: Top-level fields the spec does not name: kept by the loader, warned about.
    unknown_fields: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.ended_at is not None

    @property
    def winner(self) -> int | None:
        if not self.complete:
            return None
        return 0 if self.score[0] > self.score[1] else 1


class Context(record.Context):
    """Collects violations for one game, stamped with its id; a message about a
    trick starts with ``trick T``, and is told as ``hand H, trick T ...``."""

    __slots__ = ()

    def locate(self, message: str, hand: int | None, trick: int | None) -> str:
        if hand is None:
            return message
        return f"hand {hand}, {message}" if message.startswith("trick ") else f"hand {hand}: {message}"


class HandState:
    """The state of one hand being replayed: the phase, what each seat holds, the result."""

    __slots__ = (
        "ctx",
        "deck",
        "held",
        "index",
        "later",
        "out_of_play",
        "phase",
        "result",
        "rules",
        "slots",
        "tokens",
        "unsure_holding",
    )

    def __init__(self, ctx: Context, rules: Rules, index: int, dealer: Seat) -> None:
        self.ctx = ctx
        self.rules = rules
        self.index = index
        self.phase = Phase.DEAL
        self.deck: CardSet = DECKS[rules.deck]
        self.tokens = DECK_TOKENS[rules.deck]
        self.result = HandResult(index, dealer)
        #: Known cards each seat still holds, and how many unknown ones.
        self.held: list[CardSet] = [0, 0, 0, 0]
        self.slots = [5, 5, 5, 5]
        #: Cards each seat plays later in this hand (so it held them before).
        self.later: list[CardSet] = [0, 0, 0, 0]
        #: Cards that no seat can play: kitty, turned-down upcard, discard, played.
        self.out_of_play: CardSet = 0
        #: A seat whose known holding may include a card it discarded unseen.
        self.unsure_holding: Seat | None = None

    def add(
        self,
        code: str,
        path: str,
        message: str,
        rule: str | None = None,
        *,
        trick: int | None = None,
        seat: Seat | None = None,
    ) -> None:
        """A violation in this hand; ``path`` is relative to the hand (``.tricks[2][1]``)."""
        self.ctx.add(code, self.index, f"hands[{self.index}]{path}", message, rule, trick=trick, seat=seat)
