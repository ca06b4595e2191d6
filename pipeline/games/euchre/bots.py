"""Heuristic Euchre bots: how a reasonable person bids, discards and plays.

The bots decide; the rules stay in :mod:`cards`, :mod:`rules` and :mod:`trick`.  A bot only
ever picks among ``legal_plays``, and every hand strength is a sum of table
lookups on the bit-mask hand, so a simulated hand costs a fraction of a
millisecond.

Hand strength is in "trick points": the right bower is worth 3, an off-suit
ace 1, a void next to two trumps half a point.  A hand of about 7 makes
trump; judged above about 11, with the top trump (or the left bower
and two more trumps), it goes alone.

>>> from pipeline.games.euchre.cards import mask_of, HEARTS, card_name, parse_card
>>> round(trump_strength(mask_of("JH JD AH 9C AS"), HEARTS), 1)
9.3
>>> card_name(choose_discard(mask_of("JH JD AH 9C AS KH"), HEARTS, parse_card("KH")))
'9C'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.games.euchre.cards import (
    EFFECTIVE,
    JACK,
    JOKER,
    NUM_CARDS,
    POWER,
    SAME_COLOUR,
    SUIT_MASK,
    bit,
    card_of,
    cards_in,
    rank_of,
)
from pipeline.games.euchre.rules import caller, partner_of, team_of
from pipeline.games.euchre.trick import legal_plays

ACE = 7
KING = 6

#: Weight of a trump by its power above the lowest (joker, right, left, A, K, Q, T, 9, 8, 7).
_TRUMP_WEIGHT = {103: 3.4, 102: 3.0, 101: 2.6, 97: 2.2, 96: 1.9, 95: 1.7, 94: 1.4, 93: 1.5, 92: 1.35}
_LOW_TRUMP_WEIGHT = 1.2
_OFF_ACE_WEIGHT = 1.0
_OFF_KING_WEIGHT = 0.25
VOID_BONUS = 0.5

#: Thresholds of the bidding, in trick points (see the module docstring).
ORDER_AT = 6.8
DEALER_ORDER_AT = 6.6
NAME_AT = 6.0
NEXT_BONUS = 0.4
ASSIST_SHARE = 0.5
ALONE_AT = 11.2
#: The spread of a person's misjudgement of a hand, in trick points.
JUDGEMENT_NOISE = 1.4
DEFEND_ALONE_AT = 9.6


def _weight(card: int, trump: int) -> float:
    if EFFECTIVE[trump][card] == trump:
        return _TRUMP_WEIGHT.get(POWER[trump][trump][card], _LOW_TRUMP_WEIGHT)
    if rank_of(card) == ACE:
        return _OFF_ACE_WEIGHT
    if rank_of(card) == KING:
        return _OFF_KING_WEIGHT
    return 0.0


#: WEIGHT[trump][card]: what a card adds to a hand's strength.
WEIGHT: tuple[tuple[float, ...], ...] = tuple(
    tuple(_weight(c, t) for c in range(NUM_CARDS)) for t in range(4)
)
#: VALUE[trump][card]: how dear a card is to its holder (trumps above every plain card).
VALUE: tuple[tuple[int, ...], ...] = tuple(
    tuple(POWER[t][t][c] if EFFECTIVE[t][c] == t else rank_of(c) for c in range(NUM_CARDS)) for t in range(4)
)
#: DESCENDING[trump][suit]: the cards that follow as ``suit``, strongest first.
DESCENDING: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(sorted(cards_in(SUIT_MASK[t][s]), key=POWER[t][s].__getitem__, reverse=True)) for s in range(4)
    )
    for t in range(4)
)


_SUIT_CARDS = tuple(
    tuple(tuple(8 * suit + r for r in range(8) if byte >> r & 1) for byte in range(256)) for suit in range(4)
)


def cards_of(mask: int) -> tuple[int, ...]:
    """The cards of a mask as a tuple, lowest first (a faster ``cards_in``)."""
    cards = (
        _SUIT_CARDS[0][mask & 255]
        + _SUIT_CARDS[1][mask >> 8 & 255]
        + _SUIT_CARDS[2][mask >> 16 & 255]
        + _SUIT_CARDS[3][mask >> 24 & 255]
    )
    return (*cards, JOKER) if mask >> JOKER & 1 else cards


def trump_mask(trump: int) -> int:
    return SUIT_MASK[trump][trump]


def lowest(mask: int, trump: int) -> int:
    """The cheapest card of a non-empty mask."""
    return min(cards_of(mask), key=VALUE[trump].__getitem__)


def highest(mask: int, trump: int) -> int:
    """The dearest card of a non-empty mask."""
    return max(cards_of(mask), key=VALUE[trump].__getitem__)


def right_bower(trump: int) -> int:
    return card_of(JACK, trump)


def left_bower(trump: int) -> int:
    return card_of(JACK, SAME_COLOUR[trump])


def holds_top_trump(hand: int, trump: int) -> bool:
    """The joker (when in the deck) or else the right bower."""
    return bool(hand & (bit(JOKER) | bit(right_bower(trump))))


# --------------------------------------------------------------------------
# Bidding


#: _BYTE_WEIGHT[trump][suit][byte]: the summed weight of the cards of one printed
#: suit whose ranks are the bits of ``byte`` (a hand is four such bytes).
_BYTE_WEIGHT: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(sum(WEIGHT[t][c] for c in _SUIT_CARDS[s][byte]) for byte in range(256)) for s in range(4))
    for t in range(4)
)


def trump_strength(hand: int, trump: int) -> float:
    """How many trick points a hand is worth with ``trump`` as trump."""
    weights = _BYTE_WEIGHT[trump]
    total = (
        weights[0][hand & 255]
        + weights[1][hand >> 8 & 255]
        + weights[2][hand >> 16 & 255]
        + weights[3][hand >> 24 & 255]
    )
    if hand >> JOKER & 1:
        total += WEIGHT[trump][JOKER]
    suit_masks = SUIT_MASK[trump]
    if (hand & suit_masks[trump]).bit_count() >= 2:
        total += VOID_BONUS * sum(1 for s in range(4) if s != trump and not hand & suit_masks[s])
    return total


def choose_discard(hand: int, trump: int, upcard: int) -> int:
    """The dealer's discard from six cards: make a void, else shed the lowest plain card.

    The upcard goes back only when it is the lowest trump of an all-trump hand.
    """
    trumps = hand & trump_mask(trump)
    plain = hand & ~trumps
    aces = sum(bit(card_of(ACE, s)) for s in range(4))
    candidates = plain & ~aces
    if not candidates:
        return lowest(plain, trump) if plain and trumps.bit_count() < 4 else lowest(trumps, trump)
    singletons = [
        c for c in cards_of(candidates) if (plain & SUIT_MASK[trump][EFFECTIVE[trump][c]]).bit_count() == 1
    ]
    if singletons:
        return min(singletons, key=VALUE[trump].__getitem__)
    return lowest(candidates, trump)


def dealer_strength(hand: int, upcard: int, trump: int) -> float:
    """The dealer's strength after picking the upcard up and discarding."""
    six = hand | bit(upcard)
    return trump_strength(six & ~bit(choose_discard(six, trump, upcard)), trump)


def round_one_strength(hand: int, seat: int, dealer: int, upcard: int, trump: int) -> float:
    """Strength of ordering the upcard up: it joins the dealer's hand, friend or foe."""
    if seat == dealer:
        return dealer_strength(hand, upcard, trump)
    gift = ASSIST_SHARE * WEIGHT[trump][upcard]
    return trump_strength(hand, trump) + (gift if team_of(seat) == team_of(dealer) else -gift)


def best_named_suit(hand: int, seat: int, dealer: int, turned_down: int | None) -> tuple[int, float]:
    """The best suit to name in round two, and its strength ("next" gets a bonus left of the dealer)."""
    best, best_strength = -1, -1.0
    for suit in range(4):
        if suit == turned_down:
            continue
        strength = trump_strength(hand, suit)
        if turned_down is not None and suit == SAME_COLOUR[turned_down] and seat == caller(dealer, 0):
            strength += NEXT_BONUS
        if strength > best_strength:
            best, best_strength = suit, strength
    return best, best_strength


def goes_alone(hand: int, trump: int, judged: float) -> bool:
    """A hand judged very strong goes alone: with the top trump, or with three trumps
    and the left bower (people take that risk, and are sometimes euchred for it)."""
    if judged < ALONE_AT:
        return False
    trumps = hand & trump_mask(trump)
    return holds_top_trump(hand, trump) or (trumps.bit_count() >= 3 and bool(trumps & bit(left_bower(trump))))


def defends_alone(hand: int, trump: int) -> bool:
    """A defender goes alone only holding a fistful of the makers' trumps."""
    return (hand & trump_mask(trump)).bit_count() >= 3 and trump_strength(hand, trump) >= DEFEND_ALONE_AT


# --------------------------------------------------------------------------
# Play


@dataclass(slots=True)
class Table:
    """What every seat can see of a hand in play (plus each seat's own cards)."""

    trump: int
    maker: int
    hands: list[int]
    #: The cards no one can hold: not in the deck, played, the turned-down upcard.
    gone: int = 0
    #: Seats sitting out (the partners of lone players).
    out: tuple[int, ...] = field(default_factory=tuple)

    def is_boss(self, card: int, seat: int) -> bool:
        """No card that could still be out beats ``card`` in its own suit."""
        suit = EFFECTIVE[self.trump][card]
        known = self.gone | self.hands[seat]
        for other in DESCENDING[self.trump][suit]:
            if other == card:
                return True
            if not known >> other & 1:
                return False
        return True


def choose_card(table: Table, seat: int, plays: list[tuple[int, int]]) -> int:
    """The card ``seat`` plays on a trick that has ``plays`` so far."""
    hand = table.hands[seat]
    if not hand & (hand - 1):  # the last card
        return hand.bit_length() - 1
    trump = table.trump
    if not plays:
        return choose_lead(table, seat)
    led = EFFECTIVE[trump][plays[0][1]]
    legal = legal_plays(hand, trump, led)
    if not legal & (legal - 1):  # a single legal card
        return legal.bit_length() - 1
    powers = POWER[trump][led]
    win_seat, win_card = plays[0]
    for play in plays[1:]:
        if powers[play[1]] > powers[win_card]:
            win_seat, win_card = play
    last = len(plays) == 3 - len(table.out)
    partner_winning = win_seat == partner_of(seat)  # a partner who sits out never wins
    if partner_winning and (last or powers[win_card] >= 90 or table.is_boss(win_card, seat)):
        return shed(legal, trump)
    to_beat = powers[win_card]
    beaters = [c for c in cards_of(legal) if powers[c] > to_beat]
    if not beaters:
        return shed(legal, trump)
    if not last and EFFECTIVE[trump][beaters[0]] == led:
        top = max(beaters, key=powers.__getitem__)
        if table.is_boss(top, seat):
            return top
    return min(beaters, key=powers.__getitem__)


def shed(legal: int, trump: int) -> int:
    """The cheapest card: a plain one when there is a choice."""
    plain = legal & ~trump_mask(trump)
    return lowest(plain or legal, trump)


def choose_lead(table: Table, seat: int) -> int:
    """Makers draw trump with the top ones; everyone cashes aces; else lead low from a short suit."""
    hand = table.hands[seat]
    trump = table.trump
    trumps = hand & trump_mask(trump)
    makers = team_of(seat) == team_of(table.maker)
    if trumps and makers:
        top = highest(trumps, trump)
        if table.is_boss(top, seat) and (trumps.bit_count() >= 2 or trumps == hand):
            return top
        if seat == table.maker and trumps.bit_count() >= 3:
            return top
        if seat != table.maker and trumps.bit_count() <= 2:
            return lowest(trumps, trump)
    plain = hand & ~trumps
    bosses = [c for c in cards_of(plain) if table.is_boss(c, seat)]
    if bosses:
        return max(bosses, key=VALUE[trump].__getitem__)
    if plain:
        return _low_from_short_suit(plain, trump)
    return highest(trumps, trump) if table.is_boss(highest(trumps, trump), seat) else lowest(trumps, trump)


def _low_from_short_suit(plain: int, trump: int) -> int:
    suit_masks = SUIT_MASK[trump]
    shortest = min(
        (plain & suit_masks[s] for s in range(4) if plain & suit_masks[s]),
        key=lambda m: (m.bit_count(), VALUE[trump][lowest(m, trump)]),
    )
    return lowest(shortest, trump)
