"""The trick: who plays in what order, which cards may be played, who wins.

These are the rules of play, written once: the replay judges a record with
them, the bots choose among :func:`legal_plays`, the simulator and both
importers seat and score tricks with :func:`play_order` and
:func:`trick_winner`.  They are table lookups on small ints and bit masks
(see :mod:`cards`), cheap enough for the replay's inner loop.

Hearts trump; seat 1 leads the ace of diamonds, seat 3 sits out (its partner
went alone).  Seat 2 must follow with a diamond; the left bower (JD) is a
heart, so it does not follow diamonds but wins the trick:

>>> from pipeline.games.euchre.cards import HEARTS, DIAMONDS, mask_of, parse_card
>>> play_order(1, (3,))
(1, 2, 0)
>>> hand = mask_of("JD 9D 9C")
>>> is_legal_play(hand, parse_card("9D"), HEARTS, DIAMONDS), is_legal_play(hand, parse_card("JD"), HEARTS, DIAMONDS)
(True, False)
>>> trick = Trick.of(1, [(1, parse_card("AD")), (2, parse_card("9D")), (0, parse_card("JD"))])
>>> trick_winner(trick, HEARTS), trick.leader, len(trick), trick[2]
(0, 1, 3, (0, 12))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pipeline.games.euchre.cards import EFFECTIVE, POWER, SUIT_MASK, Card, CardSet, Suit
from pipeline.games.euchre.rules import PLAY_ORDER, Seat

# --------------------------------------------------------------------------
# Following suit


def legal_plays(hand: CardSet, trump: Suit, led: Suit | None) -> CardSet:
    """The cards a player may play: any when leading, else the led suit if held
    (the suit a card follows as is its effective suit: the left bower is trump)."""
    if led is None:
        return hand
    follow = hand & SUIT_MASK[trump][led]
    return follow or hand


def is_legal_play(hand: CardSet, card: Card, trump: Suit, led: Suit | None) -> bool:
    """Whether a seat holding ``hand`` (``card`` among it) may play ``card``:
    a card off the led suit is a renege when the hand holds one of that suit."""
    return bool(legal_plays(hand, trump, led) >> card & 1)


def led_suit(card: Card, trump: Suit) -> Suit:
    """The suit a trick led with ``card`` asks for."""
    return EFFECTIVE[trump][card]


# --------------------------------------------------------------------------
# Winning the trick


def trick_winner_index(cards: Sequence[Card], trump: Suit) -> int:
    """The index in play order of the card that wins a trick: the highest trump,
    else the highest card of the led suit."""
    table = POWER[trump][EFFECTIVE[trump][cards[0]]]
    best = 0
    for i in range(1, len(cards)):
        if table[cards[i]] > table[cards[best]]:
            best = i
    return best


def trick_winner(plays: Sequence[tuple[Seat, Card]], trump: Suit) -> Seat:
    """The seat that wins a trick of (seat, card) plays in order."""
    return plays[trick_winner_index([card for _, card in plays], trump)][0]


# --------------------------------------------------------------------------
# Turn order (the table itself, ``PLAY_ORDER``, is in :mod:`rules`)


def play_order(leader: Seat, out: tuple[Seat, ...] = ()) -> tuple[Seat, ...]:
    """The seats that play a trick, clockwise from its leader, skipping those sitting out."""
    return PLAY_ORDER[out][leader]


def next_to_play(leader: Seat, played: Sequence[Seat], out: tuple[Seat, ...] = ()) -> Seat:
    """The seat whose turn it is: the first one, clockwise from the leader, that
    plays this hand and has not played to the trick (the leader once all have)."""
    return next((seat for seat in PLAY_ORDER[out][leader] if seat not in played), leader)


def next_active(seat: Seat, out: tuple[Seat, ...] = ()) -> Seat:
    """The next seat clockwise after ``seat`` that plays this hand."""
    return PLAY_ORDER[out][(seat + 1) % 4][0]


# --------------------------------------------------------------------------
# A trick as played


class Trick(list[tuple[Seat, Card]]):
    """One trick as replayed: the list of its (seat, card) plays in order, with
    its ``leader`` and its ``winner`` (None when it cannot be told: no card).

    A list rather than a wrapper around one, so that the replay makes one cheap
    object a trick and every reader of plays (``for seat, card in trick``) works.
    """

    __slots__ = ("leader", "winner")

    leader: Seat
    winner: Seat | None

    @classmethod
    def of(cls, leader: Seat, plays: Iterable[tuple[Seat, Card]], winner: Seat | None = None) -> Trick:
        trick = cls(plays)
        trick.leader = leader
        trick.winner = winner
        return trick

    @property
    def plays(self) -> list[tuple[Seat, Card]]:
        """The (seat, card) plays in order (the trick itself)."""
        return self
