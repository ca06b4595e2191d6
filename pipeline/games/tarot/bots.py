"""Heuristic French Tarot bots: how a reasonable player bids, discards and plays.

The bots decide; the rules stay in :mod:`trick` and :mod:`chien`.  A bot only
ever plays among :func:`~pipeline.games.tarot.trick.legal_cards` and discards
an écart that :func:`~pipeline.games.tarot.chien.ecart_fault` accepts.

Hand strength is the usual club count: a bout is worth 12 (the Petit half when
it is short of trumps), a trump 2 (3 from the 16 up), a King 6, a Queen 3, a
long suit 2 a card from the fifth.  Around 40 takes (prise), 50 keeps (garde),
and only strong hands go garde sans (67) or garde contre (76).

>>> from pipeline.games.tarot.cards import mask_of, card_name
>>> hand = mask_of("T21 T1 EX T20 T18 T15 T12 T9 T7 T5 T3 KH KS QS 2C 3C 4C 5C".split())
>>> strength(hand), call_for(strength(hand))
(74, 'garde_sans')
>>> sorted(card_name(c) for c in choose_ecart(hand | mask_of("2D 3D 4D 1H 6S 7S".split())))
['1H', '2C', '2D', '3C', '3D', '4D']
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pipeline.games.tarot.cards import (
    BOUTS,
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    KINGS,
    PETIT,
    SUIT_MASK,
    T21,
    TRUMPS,
    cards_in,
    count,
    is_trump,
    rank_of,
    suit_of,
)
from pipeline.games.tarot.chien import ECART_SIZE, discardable
from pipeline.games.tarot.rules import CALLS, Rules
from pipeline.games.tarot.trick import legal_cards, winner_index

#: Strength needed for each contract (see the module docstring).
THRESHOLDS = (("garde_contre", 76), ("garde_sans", 67), ("garde", 50), ("prise", 40))
#: How far a player may misjudge a hand, in strength points.
JUDGEMENT_NOISE = 4
#: Chance that a player holding a poignée shows it.
SHOW_POIGNEE = 0.7


def strength(hand: int) -> int:
    """The club count of a hand (bouts, trumps, honours, long suits)."""
    trumps = count(hand & TRUMPS)
    score = 0
    for bout in cards_in(hand & BOUTS):
        score += 12 if bout != PETIT or trumps >= 5 else 6
    for card in cards_in(hand & TRUMPS):
        score += 3 if rank_of(card) >= 16 else 2
    for suit in range(4):
        cards = hand & SUIT_MASK[suit]
        n = count(cards)
        score += 2 * max(0, n - 4)
        for card in cards_in(cards):
            score += {14: 6, 13: 3, 12: 2, 11: 1}.get(rank_of(card), 0)
    return score


def call_for(judged: int) -> str:
    """The contract a player judging its hand at ``judged`` would call."""
    for call, at in THRESHOLDS:
        if judged >= at:
            return call
    return "pass"


def choose_call(hand: int, highest: str | None, rng: random.Random) -> str:
    """The call of a seat: a contract above ``highest`` that its hand is worth, else pass."""
    call = call_for(strength(hand) + rng.randint(-JUDGEMENT_NOISE, JUDGEMENT_NOISE))
    if call == "pass" or (highest is not None and CALLS.index(call) <= CALLS.index(highest)):
        return "pass"
    return call


def choose_ecart(holding: int) -> list[int]:
    """Six cards to discard from the taker's 24: low cards of short suits, then low trumps if forced."""
    plain = discardable(holding)
    by_length = sorted(
        cards_in(plain),
        key=lambda c: (count(holding & SUIT_MASK[suit_of(c)]), HALF_POINTS[c], rank_of(c), c),
    )
    ecart = by_length[:ECART_SIZE]
    if len(ecart) < ECART_SIZE:
        spare = [c for c in cards_in(holding & TRUMPS & ~BOUTS)]
        ecart += spare[: ECART_SIZE - len(ecart)]
    return ecart


def choose_poignee(hand: int, rules: Rules, rng: random.Random) -> list[int] | None:
    """The trumps a seat shows, or None (it has no poignée, or keeps it quiet)."""
    trumps = [c for c in cards_in(hand & TRUMPS)]
    n = len(trumps) + (1 if hand & EXCUSE_BIT else 0)
    sizes = [s for s in rules.poignee_sizes if s <= n]
    if not sizes or rng.random() > SHOW_POIGNEE:
        return None
    size = sizes[-1]
    if len(trumps) >= size:
        return trumps[len(trumps) - size :]  # the highest ones
    return [*trumps, EXCUSE]  # the Excuse stands for the missing trump


def announces_chelem(hand: int) -> bool:
    """Only a hand that cannot lose a trick: the top trumps and nothing loose."""
    trumps = count(hand & TRUMPS)
    top = count(hand & TRUMPS & ~((1 << (T21 - 5)) - 1))
    return trumps >= 15 and top >= 5 and count(hand & ~TRUMPS & ~KINGS & ~EXCUSE_BIT) == 0


def choose_card(
    hand: int,
    plays: Sequence[tuple[int, int]],
    seat: int,
    taker: int,
    tricks_left: int,
    rng: random.Random,
) -> int:
    """The card a seat plays: win cheaply when it can, else give little (to a partner, a lot)."""
    trick = [c for _, c in plays]
    legal = legal_cards(hand, trick)
    choices = [c for c in cards_in(legal)]
    if len(choices) == 1:
        return choices[0]
    if EXCUSE in choices and (tricks_left == 2 or (tricks_left > 2 and rng.random() < 0.08)):
        return EXCUSE  # never keep the Excuse for the last trick
    choices = [c for c in choices if c != EXCUSE] or choices
    if not trick:
        return _lead(hand, choices, rng)
    winners = [c for c in choices if _wins(trick, c)]
    best_seat = plays[winner_index(trick)][0]
    partner_winning = (best_seat == taker) == (seat == taker) and len(plays) == 3
    if partner_winning:
        return max(choices, key=lambda c: (HALF_POINTS[c] if not is_trump(c) else 0, -rank_of(c)))
    if winners:
        return min(winners, key=lambda c: (is_trump(c), rank_of(c)))
    return min(choices, key=lambda c: (HALF_POINTS[c] + (3 if c == PETIT else 0), is_trump(c), rank_of(c)))


def _wins(trick: list[int], card: int) -> bool:
    return winner_index([*trick, card]) == len(trick)


def _lead(hand: int, choices: list[int], rng: random.Random) -> int:
    kings = [c for c in choices if KINGS >> c & 1]
    if kings and rng.random() < 0.7:
        return kings[0]
    plain = [c for c in choices if not is_trump(c)]
    if plain:
        return min(plain, key=lambda c: (count(hand & SUIT_MASK[suit_of(c)]), rank_of(c)))
    return max(choices, key=lambda c: rank_of(c) if c != PETIT else 0)


__all__ = [
    "announces_chelem",
    "call_for",
    "choose_call",
    "choose_card",
    "choose_ecart",
    "choose_poignee",
    "strength",
]
