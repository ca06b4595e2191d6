"""A trick and the obligations of play, as the rulebook states them.

- Follow the led suit.  A trick led with the Excuse takes its suit from the
  next card.
- Void in the led suit (or trump led): play a trump; and when a trump is
  already in the trick, a higher one if you hold one (overtrump), else still a
  trump.
- With neither the suit nor a trump, any card.
- The Excuse may be played at any time, and never wins the trick (the last
  trick of a chelem aside).

One function decides what may be played (:func:`legal_cards`); the replay asks
:func:`play_fault` why a card was not among them, the bots pick from the same
set, so generating legal plays and checking one share one path.

>>> from pipeline.games.tarot.cards import mask_of, card_name, cards_in, parse_card
>>> hand = mask_of(["5H", "T3", "T12", "EX"])
>>> trick = [parse_card("KS"), parse_card("T8")]
>>> sorted(card_name(c) for c in cards_in(legal_cards(hand, trick)))
['EX', 'T12']
>>> code, instead = play_fault(hand, trick, parse_card("T3"))
>>> code, card_name(instead)
('must_overtrump', 'T12')
>>> winner_index([parse_card("EX"), parse_card("7H"), parse_card("KH"), parse_card("T1")])
3
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.games.tarot.cards import (
    EXCUSE,
    EXCUSE_BIT,
    SUIT_MASK,
    SUIT_OF,
    TRUMP,
    TRUMPS,
    cards_in,
    is_trump,
    rank_of,
    suit_of,
)


def led_suit(trick: Sequence[int]) -> int | None:
    """The suit to follow: that of the first card that is not the Excuse (None: free lead)."""
    for card in trick:
        if card != EXCUSE:
            return suit_of(card)
    return None


def highest_trump(trick: Sequence[int]) -> int:
    """The rank of the highest trump in the trick, 0 when there is none."""
    trumps = [c for c in trick if is_trump(c)]
    return rank_of(max(trumps)) if trumps else 0


def legal_cards(hand: int, trick: Sequence[int]) -> int:
    """The cards of ``hand`` (a mask) that may be played to ``trick`` (the cards so far)."""
    excuse = hand & EXCUSE_BIT  # the Excuse may always be played
    led = led_suit(trick)
    if led is None:
        return hand  # a free lead
    if led != TRUMP:
        follow = hand & SUIT_MASK[led]
        if follow:
            return follow | excuse  # follow suit
    trumps = hand & TRUMPS
    if not trumps:
        return hand  # neither the suit nor a trump: any card
    over = _trumps_above(trumps, highest_trump(trick))
    return (over or trumps) | excuse  # trump, overtrumping if possible


def _trumps_above(trumps: int, rank: int) -> int:
    """The trumps of a mask higher than trump ``rank`` (trump n is card 55 + n)."""
    return trumps & ~((1 << (55 + rank + 1)) - 1) if rank else trumps


def play_fault(hand: int, trick: Sequence[int], card: int) -> tuple[str, int] | None:
    """Why ``card`` may not be played from ``hand`` to ``trick``: a violation code and
    a card the seat should have played (the lowest such), or None when it may.

    ``card`` is taken as held; whether it was is the caller's question.
    """
    allowed = legal_cards(hand | (1 << card), trick)
    if allowed >> card & 1:
        return None
    led = led_suit(trick)
    assert led is not None
    could = allowed & ~EXCUSE_BIT
    instead = next(cards_in(could))
    if led != TRUMP and hand & SUIT_MASK[led]:
        return "renege", instead
    if suit_of(card) != TRUMP:
        return ("renege" if led == TRUMP else "must_trump"), instead
    return "must_overtrump", instead


def winner_index(trick: Sequence[int], *, excuse_wins: bool = False) -> int:
    """The position in ``trick`` of the card that wins it.

    The highest trump wins; with no trump, the highest card of the led suit.
    The Excuse never wins, unless ``excuse_wins`` (the last trick of a chelem
    where the chelem side plays it).
    """
    if excuse_wins and EXCUSE in trick:
        return trick.index(EXCUSE)
    # within a suit, and among the trumps, a higher card is a higher number
    trumps = [c for c in trick if is_trump(c)]
    if trumps:
        return trick.index(max(trumps))
    led = led_suit(trick)
    if led is None:
        return 0  # the Excuse alone
    return trick.index(max(c for c in trick if SUIT_OF[c] == led))
