"""The double-dummy search of :mod:`par`, compiled with numba.

The same search as :class:`par.Solver`'s (alpha-beta, a transposition table of
bounds at each trick's start, one card per class of equivalent cards, trumps
first, the cheapest winning card first when following), written over numpy
arrays so that numba compiles it; :class:`par.Solver` uses it when numba is
installed, and the tests hold the two to the same values.  The transposition
table is an open-addressing hash table in three arrays, one per deal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

import pipeline.jit  # noqa: F401  (numba readied without scipy: see there)
from pipeline.games.euchre.cards import EFFECTIVE, POWER, SUIT_MASK
from pipeline.games.euchre.par import ORDER, SUIT_TURN

#: Slots of a deal's transposition table (a power of two).
TT_SIZE = 1 << 14

EFF = np.array(EFFECTIVE, dtype=np.int64)  # [trump][card]
POW = np.array(POWER, dtype=np.int64)  # [trump][led][card]
FOLLOW = np.array(SUIT_MASK, dtype=np.int64)  # [trump][suit]
ORD = np.full((4, 4, 10), -1, dtype=np.int64)  # [trump][suit][k]: strongest first, -1 after the last
for _t in range(4):
    for _s in range(4):
        ORD[_t, _s, : len(ORDER[_t][_s])] = ORDER[_t][_s]
TURN = np.array(SUIT_TURN, dtype=np.int64)  # [trump][i]: trumps first


def new_table() -> tuple[Any, Any, Any]:
    """An empty transposition table: keys (-1: free), lower and upper bounds."""
    return (
        np.full(TT_SIZE, -1, dtype=np.int64),
        np.zeros(TT_SIZE, dtype=np.int64),
        np.zeros(TT_SIZE, dtype=np.int64),
    )


@njit(cache=True)
def _seat_at(leader: int, pos: int, out_mask: int) -> int:
    seat = leader
    k = 0
    while True:
        if not (out_mask >> seat) & 1:
            if k == pos:
                return seat
            k += 1
        seat = (seat + 1) & 3


@njit(cache=True)
def _slot(keys: Any, key: int) -> int:
    i = (key ^ (key >> 15) ^ (key >> 29)) & (TT_SIZE - 1)
    while keys[i] != -1 and keys[i] != key:
        i = (i + 1) & (TT_SIZE - 1)
    return i


@njit  # not cache=True: numba 0.68 crashed loading this recursive function from its cache
def search(
    hands: Any,
    leader: int,
    pos: int,
    led: int,
    best_seat: int,
    best_power: int,
    on_table: int,
    left: int,
    alpha: int,
    beta: int,
    at_start: bool,
    trump: int,
    maker_team: int,
    out_mask: int,
    keys: Any,
    lows: Any,
    highs: Any,
    stats: Any,
) -> int:
    """The makers' tricks among the ``left`` tricks still to play (the one under
    way included), the ``pos``-th active seat after ``leader`` to play.  At a
    trick's start (``pos`` 0, ``at_start``) the transposition table is asked first."""
    # typed values rather than constants for the calls below: numba compiles a function
    # once more for each constant it is called with (four searches, 7 s, where one is 2 s)
    zero, no_power, ask_table, skip_table = np.int64(0), np.int64(-1), np.bool_(True), np.bool_(False)
    eff = EFF[trump]
    follow = FOLLOW[trump]
    active = 4 - ((out_mask & 1) + (out_mask >> 1 & 1) + (out_mask >> 2 & 1) + (out_mask >> 3 & 1))
    if pos == 0 and at_start:
        if left == 0:
            return 0
        alive = hands[0] | hands[1] | hands[2] | hands[3]
        if left == 1:  # one card each: no choice left
            first = hands[leader]
            lead_card = 0
            while not (first >> lead_card) & 1:
                lead_card += 1
            table = POW[trump, eff[lead_card]]
            win, best = leader, -1
            for k in range(active):
                seat = _seat_at(leader, k, out_mask)
                h = hands[seat]
                card = 0
                while not (h >> card) & 1:
                    card += 1
                if table[card] > best:
                    win, best = seat, table[card]
            stats[0] += 1
            return 1 if win & 1 == maker_team else 0
        key = (alive << 2) | leader
        i = _slot(keys, key)
        lo, hi = 0, left
        if keys[i] == key:
            lo, hi = lows[i], highs[i]
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        a, b = max(alpha, lo), min(beta, hi)
        v: int = search(
            hands, leader, zero, zero, leader, no_power, zero, left, a, b, skip_table,
            trump, maker_team, out_mask, keys, lows, highs, stats,
        )  # fmt: skip
        if v <= a:
            hi = min(hi, v)
        elif v >= b:
            lo = max(lo, v)
        else:
            lo = v
            hi = v
        i = _slot(keys, key)
        keys[i] = key
        lows[i] = lo
        highs[i] = hi
        return v
    seat = _seat_at(leader, pos, out_mask)
    hand = hands[seat]
    legal = hand
    if pos > 0 and hand & follow[led]:
        legal = hand & follow[led]
    alive = hands[0] | hands[1] | hands[2] | hands[3] | on_table
    # one card per class of equivalent cards, strongest first, trumps first
    reps = np.empty(10, dtype=np.int64)
    n = 0
    for i in range(4):
        suit = TURN[trump, i]
        mine = legal & follow[suit]
        if mine == 0:
            continue
        run = False
        for j in range(10):
            card = ORD[trump, suit, j]
            if card < 0:
                break
            bit = np.int64(1) << card
            if mine & bit:
                if not run:
                    reps[n] = card
                    n += 1
                    run = True
                mine ^= bit
                if mine == 0:
                    break
            elif alive & bit:
                run = False
    moves = reps
    if pos > 0 and n > 1:
        table = POW[trump, led]
        moves = np.empty(10, dtype=np.int64)
        m = 0
        partner_wins = best_seat & 1 == seat & 1
        winners = 0
        for k in range(n):
            if table[reps[k]] > best_power:
                winners += 1
        if partner_wins or winners == 0:
            for k in range(n - 1, -1, -1):
                moves[m] = reps[k]
                m += 1
        else:
            for k in range(n - 1, -1, -1):
                if table[reps[k]] > best_power:
                    moves[m] = reps[k]
                    m += 1
            for k in range(n - 1, -1, -1):
                if table[reps[k]] <= best_power:
                    moves[m] = reps[k]
                    m += 1
    maximise = seat & 1 == maker_team
    last = pos == active - 1
    best = -1 if maximise else 99
    stats[0] += n
    for k in range(n):
        card = moves[k]
        hands[seat] = hand ^ (np.int64(1) << card)
        if pos == 0:
            new_led = eff[card]
            new_seat = seat
            new_power = POW[trump, new_led, card]
        else:
            new_led = led
            p = POW[trump, led, card]
            if p > best_power:
                new_seat, new_power = seat, p
            else:
                new_seat, new_power = best_seat, best_power
        if last:
            won = 1 if new_seat & 1 == maker_team else 0
            v = won + search(
                hands, new_seat, zero, zero, new_seat, no_power, zero, left - 1, alpha - won, beta - won,
                ask_table, trump, maker_team, out_mask, keys, lows, highs, stats,
            )  # fmt: skip
        else:
            v = search(
                hands, leader, pos + 1, new_led, new_seat, new_power, on_table | (np.int64(1) << card), left,
                alpha, beta, skip_table, trump, maker_team, out_mask, keys, lows, highs, stats,
            )  # fmt: skip
        hands[seat] = hand
        if maximise:
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        elif v < best:
            best = v
            if v < beta:
                beta = v
                if alpha >= beta:
                    break
    return best
