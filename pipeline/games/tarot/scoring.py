"""Counting the cards and scoring the taker's contract.

Card points (in half points, 182 in the deck) go to the side that won each
trick, plus the écart (prise, garde) or the unseen chien (garde sans: the
taker; garde contre: the defence).  The Excuse stays with its side, which
gives a half-point card in exchange, except at the last trick, where it goes
to the side that wins that trick (``rules.excuse_last_trick``) unless its
side made a chelem.

The taker needs 56, 51, 41 or 36 points with 0-3 bouts; reaching the target
exactly is made.  The contract is worth

    X = s(25 + |P - T|)m + 10bm + s*poignee + chelem

where ``s`` is +1 made / -1 down, ``m`` the multiplier (1/2/4/6), ``b`` +1 when
the taker wins the last trick with the Petit in it and -1 when the defence
does.  The taker scores 3X and each defender -X.

The seed's worked check: the attack's tricks hold one bout and 44 points, the
chien the 21 and five low cards (7 points).

>>> from pipeline.games.tarot.rules import Rules
>>> contract_value(Rules(), "garde_sans", taker_half=2 * 51, bouts=2)
(41, 10.0, True, 140)
>>> contract_value(Rules(), "garde_contre", taker_half=2 * 44, bouts=1)
(51, -7.0, False, -192)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.games.tarot.cards import BOUTS, EXCUSE, EXCUSE_BIT, PETIT, count, half_points_of, mask_of_cards
from pipeline.games.tarot.rules import POIGNEE_NAMES, Rules, target
from pipeline.games.tarot.state import DEFENCE_SIDE, SIDE_NAMES, TAKER_SIDE, HandState, PlayedTrick, TarotHand

LAST = 17


@dataclass(frozen=True, slots=True)
class CardCount:
    """Who ended with which cards."""

    #: The cards each side ends with (taker side, defence side), as masks.
    won: tuple[int, int]
    #: Half points each side gives or gets for the Excuse exchange.
    exchange: tuple[int, int]

    @property
    def taker_half(self) -> int:
        return half_points_of(self.won[TAKER_SIDE]) + self.exchange[TAKER_SIDE]

    @property
    def defence_half(self) -> int:
        return half_points_of(self.won[DEFENCE_SIDE]) + self.exchange[DEFENCE_SIDE]

    @property
    def bouts(self) -> int:
        return count(self.won[TAKER_SIDE] & BOUTS)

    @property
    def excuse_side(self) -> int | None:
        for side in (TAKER_SIDE, DEFENCE_SIDE):
            if self.won[side] & EXCUSE_BIT:
                return side
        return None


def count_cards(result: TarotHand, rules: Rules) -> CardCount:
    """The cards each side ends with, tricks, chien or écart, and the Excuse."""
    won = [0, 0]
    exchange = [0, 0]
    for trick in result.tricks:
        if trick.winner is not None:
            won[result.side_of(trick.winner)] |= trick.mask
    chien = mask_of_cards(result.chien)
    if result.contract in ("prise", "garde"):
        won[TAKER_SIDE] |= mask_of_cards(result.ecart)
    elif result.contract == "garde_sans":
        won[TAKER_SIDE] |= chien
    else:
        won[DEFENCE_SIDE] |= chien
    for t, trick in enumerate(result.tricks):
        owner = trick.seat_of(EXCUSE)
        if owner is None or trick.winner is None:
            continue
        own, took = result.side_of(owner), result.side_of(trick.winner)
        if t < LAST:
            if own != took:  # the Excuse goes back to its side, for a low card
                won[took] &= ~EXCUSE_BIT
                won[own] |= EXCUSE_BIT
                exchange[own] -= 1
                exchange[took] += 1
        elif rules.excuse_last_trick == "lost" and own == took and trick.winner != owner:
            won[own] &= ~EXCUSE_BIT  # lost at the last trick: the other side takes it,
            won[1 - own] |= EXCUSE_BIT  # and gives a low card for it
            exchange[1 - own] -= 1
            exchange[own] += 1
    return CardCount((won[0], won[1]), (exchange[0], exchange[1]))


def petit_au_bout(result: TarotHand, rules: Rules) -> int:
    """+1 when the taker won the last trick with the Petit in it, -1 when the defence did, else 0.

    In a chelem whose side plays the Excuse to the last trick, the last-but-one
    trick counts (FFT; ``rules.petit_au_bout_before_excuse``).
    """
    if len(result.tricks) <= LAST:
        return 0
    last = result.tricks[LAST]
    if rules.petit_au_bout_before_excuse and _excuse_moves_the_end(result, last, rules):
        last = result.tricks[LAST - 1]
    if PETIT not in last.cards or last.winner is None:
        return 0
    return 1 if result.side_of(last.winner) == TAKER_SIDE else -1


def _excuse_moves_the_end(result: TarotHand, last: PlayedTrick, rules: Rules) -> bool:
    """Whether the Excuse in the last trick of a chelem makes the last-but-one
    trick the end: the Excuse of the side that won every trick (FFT), or any
    (``rules.petit_au_bout_excuse_by``)."""
    if not (result.chelem_made or result.defence_chelem):
        return False
    seat = last.seat_of(EXCUSE)
    if seat is None:
        return False
    chelem_side = TAKER_SIDE if result.chelem_made else DEFENCE_SIDE
    return rules.petit_au_bout_excuse_by == "any" or result.side_of(seat) == chelem_side


def rounded_difference(half_diff: int, step: int) -> int:
    """|P - T| in points, from half points, rounded to a multiple of ``step`` (halves up)."""
    points = (half_diff + 1) // 2
    if step <= 1:
        return points
    return (points + step // 2) // step * step


def contract_value(
    rules: Rules, contract: str, *, taker_half: int, bouts: int
) -> tuple[int, float, bool, int]:
    """Target, margin (points, negative when down), made, and the signed base ``s(25 + |P - T|)m``."""
    goal = target(bouts)
    margin_half = taker_half - 2 * goal
    made = margin_half >= 0
    diff = rounded_difference(abs(margin_half), rules.round_difference)
    base = (25 + diff) * rules.multiplier(contract)
    return goal, margin_half / 2, made, base if made else -base


def poignee_value(rules: Rules, poignees: Sequence[tuple[int, str]], taker: int, made: bool) -> int:
    """The poignées, counted for the taker's side (``s * poignee`` under FFT)."""
    total = 0
    for seat, name in poignees:
        value = rules.poignee_values[POIGNEE_NAMES.index(name)]
        if rules.poignee_to == "winner":
            total += value if made else -value
        else:
            total += value if seat == taker else -value
    return total


def chelem_value(rules: Rules, *, announcer: int | None, taker: int, made: bool, defence: bool) -> int:
    """The chelem bonus for the taker's side (never two of them at once).

    ``made``: the taker won every trick; ``defence``: it won none.  A chelem
    announced by a defender (FFT does not foresee it) counts like the taker's,
    for the defence.
    """
    by_taker = announcer is not None and announcer == taker
    by_defence = announcer is not None and not by_taker
    if made:
        return rules.chelem_announced if by_taker else rules.chelem_unannounced
    if defence:
        return -(rules.chelem_announced if by_defence else rules.chelem_defence)
    if by_taker:
        return -rules.chelem_failed
    if by_defence:
        return rules.chelem_failed
    return 0


def contract_score(
    rules: Rules,
    contract: str,
    *,
    taker_half: int,
    bouts: int,
    petit_au_bout: int = 0,
    poignees: Sequence[tuple[int, str]] = (),
    taker: int = 0,
    chelem_announcer: int | None = None,
    taker_tricks: int = 9,
) -> int:
    """X = s(25 + |P - T|)m + 10bm + s*poignee + chelem: what the contract is worth to the taker.

    >>> from pipeline.games.tarot.rules import Rules
    >>> contract_score(Rules(), "garde", taker_half=2 * 59, bouts=3, poignees=[(3, "simple")], taker=3)
    116
    >>> contract_score(Rules(), "prise", taker_half=2 * 50, bouts=1, petit_au_bout=1)
    -16
    """
    _, _, made, base = contract_value(rules, contract, taker_half=taker_half, bouts=bouts)
    x = base + rules.petit_au_bout * petit_au_bout * rules.multiplier(contract)
    x += poignee_value(rules, poignees, taker, made)
    x += chelem_value(
        rules, announcer=chelem_announcer, taker=taker, made=taker_tricks == 18, defence=taker_tricks == 0
    )
    return x


def scoring_phase(state: HandState) -> None:
    """Count the cards and score a hand played to its end."""
    result = state.result
    rules = state.rules
    if not result.complete or result.taker is None or result.contract is None:
        return
    counted = count_cards(result, rules)
    result.taker_half_points = counted.taker_half
    result.bouts = counted.bouts
    side = counted.excuse_side
    result.excuse_owner_side = None if side is None else SIDE_NAMES[side]
    result.chelem_made = result.taker_tricks == len(result.tricks)
    result.defence_chelem = result.taker_tricks == 0
    goal, margin, made, _ = contract_value(
        rules, result.contract, taker_half=counted.taker_half, bouts=counted.bouts
    )
    result.target, result.margin, result.made = goal, margin, made
    b = petit_au_bout(result, rules)
    result.petit_au_bout = None if b == 0 else "taker" if b > 0 else "defence"
    x = contract_score(
        rules,
        result.contract,
        taker_half=counted.taker_half,
        bouts=counted.bouts,
        petit_au_bout=b,
        poignees=result.poignees,
        taker=result.taker,
        chelem_announcer=result.chelem_announcer,
        taker_tricks=result.taker_tricks,
    )
    result.contract_score = x
    result.scores = scores_of(x, result.taker)


def scores_of(x: int, taker: int) -> tuple[int, int, int, int]:
    """The taker scores 3X, each defender -X."""
    return (
        3 * x if taker == 0 else -x,
        3 * x if taker == 1 else -x,
        3 * x if taker == 2 else -x,
        3 * x if taker == 3 else -x,
    )
