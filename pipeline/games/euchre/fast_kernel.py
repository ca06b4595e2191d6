"""The compiled kernel of the fast path (see :mod:`pipeline.games.euchre.fast`).

Imported only when a batch is large enough: importing it imports numba.  The
machine code is cached beside this file (``cache=True``; numba falls back to
its own cache folder when this one is not writable), so only the first run
on a machine compiles.

Each function mirrors a phase of :mod:`pipeline.games.euchre.replay` and
returns False as soon as that phase would report a violation.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

import pipeline.jit  # noqa: F401  (numba readied without scipy: see there)
from pipeline.games.euchre.fast import (
    BID_ALONE,
    BID_CALL,
    BID_SEAT,
    CLAIMS,
    DEAL,
    DEALER,
    DEFENDER,
    DISCARD,
    G_FINAL,
    G_FIRST,
    G_HANDS,
    G_HAS_FINAL,
    G_INIT,
    G_RULES,
    HAS_POINTS,
    HAS_SCORE,
    HAS_WINNERS,
    KITTY,
    NBIDS,
    NTRICKS,
    NWINNERS,
    O_ALONE,
    O_COMPLETE,
    O_DEFENDER,
    O_DISCARD,
    O_LEADERS,
    O_MAKER,
    O_MAKER_TRICKS,
    O_NTRICKS,
    O_ROUND,
    O_S0,
    O_THROWN,
    O_TRUMP,
    O_WINNERS,
    PLAY_CARD,
    PLAY_SEAT,
    POINTS,
    R_ALLOW_ALONE,
    R_ALONE_EUCHRE,
    R_ALONE_LEAD_LEFT_OF_ALONE,
    R_ALONE_MAKE,
    R_ALONE_MARCH,
    R_BOTH_ALONE_LEFT_OF_DEALER,
    R_DEFEND_ALONE,
    R_DEFENDER_ALONE_EUCHRE,
    R_DEFENDER_ALONE_MARCH,
    R_EUCHRE,
    R_FARMERS,
    R_MAKE,
    R_MARCH,
    R_MAY_DISCARD_UPCARD,
    R_MAY_LEAVE_UPCARD,
    R_MAY_NAME_TURNED_DOWN,
    R_PICKS_UP_PARTNER_ALONE,
    R_STICK,
    R_TARGET,
    SCORE,
    THROWN,
    TRICK_LEN,
    UPCARD,
    WINNERS,
)

PASS, ORDER = 0, 1


@numba.njit(inline="always")
def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(inline="always")
def _maker_points(rules: Any, maker_tricks: int, alone: bool, defender_alone: bool) -> tuple[int, int]:
    """scoring.hand_points: (makers, defenders)."""
    if maker_tricks == 5:
        return (rules[R_ALONE_MARCH] if alone else rules[R_MARCH]), 0
    if maker_tricks >= 3:
        return (rules[R_ALONE_MAKE] if alone else rules[R_MAKE]), 0
    euchre = rules[R_ALONE_EUCHRE] if alone else rules[R_EUCHRE]
    if defender_alone:
        lone = rules[R_DEFENDER_ALONE_MARCH] if maker_tricks == 0 else rules[R_DEFENDER_ALONE_EUCHRE]
        euchre = max(euchre, lone)
    return 0, euchre


@numba.njit(inline="always")
def _claimed_points_ok(row: Any, p0: int, p1: int) -> bool:
    """claims.check_hand_claims for a complete hand: the claimed points."""
    if row[CLAIMS] & HAS_POINTS:
        return bool(row[POINTS] == p0 and row[POINTS + 1] == p1)
    return True


@numba.njit(inline="always")
def _hand(row: Any, rules: Any, eff: Any, suit_mask: Any, power: Any, nines_tens: int, out: Any) -> bool:
    """One hand; what it came to goes to ``out`` (points by team, trump, maker, ...:
    the ``O_*`` layout).  False: the replay would report something."""
    out[:] = 0
    out[O_TRUMP] = -1
    out[O_MAKER] = -1
    out[O_DEFENDER] = -1
    out[O_DISCARD] = -1
    dealer = row[DEALER]
    upcard = row[UPCARD]
    # Deal phase: the upcard, the deal, the kitty; no card twice.
    seen = np.int64(1) << upcard
    held = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for k in range(5):
            b = np.int64(1) << row[DEAL + s * 5 + k]
            if seen & b:
                return False
            seen |= b
            held[s] |= b
    for k in range(3):
        b = np.int64(1) << row[KITTY + k]
        if seen & b:
            return False
        seen |= b
    nbids = row[NBIDS]
    ntricks = row[NTRICKS]
    if row[CLAIMS] & HAS_WINNERS and row[NWINNERS] != ntricks:
        return False  # claimed winners are one a trick listed: else the replay's schema violation
    if row[THROWN]:
        # Throw-in phase, all passed: eight passes, no stick the dealer, no discard.
        passes = 0
        for j in range(nbids):
            passes += row[BID_CALL + j] == PASS
            if row[BID_SEAT + j] != (dealer + 1 + j) % 4:
                return False
        if rules[R_STICK] or passes != 8 or nbids != 8:
            return False
        if row[DISCARD] >= 0 or ntricks:
            return False
        out[O_THROWN] = 1
        out[O_COMPLETE] = 1
        return _claimed_points_ok(row, 0, 0)
    if rules[R_FARMERS]:
        for s in range(4):
            if _popcount(held[s] & nines_tens) >= 4:
                return False
    # Bidding phase.
    upsuit = upcard >> 3
    passes = 0
    maker = -1
    alone = False
    round_ = 0
    trump = -1
    for j in range(nbids):
        if maker >= 0 or passes == 8:
            return False
        seat = row[BID_SEAT + j]
        call = row[BID_CALL + j]
        if seat != (dealer + 1 + passes) % 4:
            return False
        this_round = 1 if passes < 4 else 2
        if this_round == 1:
            if call != PASS and call != ORDER:
                return False
        elif (
            call == ORDER
            or (call >= 2 and call - 2 == upsuit and not rules[R_MAY_NAME_TURNED_DOWN])
            or (call == PASS and seat == dealer and rules[R_STICK])
        ):
            return False
        if row[BID_ALONE + j] and (call == PASS or not rules[R_ALLOW_ALONE]):
            return False
        if call == PASS:
            passes += 1
            continue
        maker = seat
        alone = row[BID_ALONE + j] != 0
        round_ = this_round
        trump = upsuit if call == ORDER else call - 2
    if maker < 0:
        if ntricks:
            return False
        if passes == 8:  # thrown in as all passed, though the record does not say so
            if rules[R_STICK]:
                return False
            out[O_THROWN] = 1
            out[O_COMPLETE] = 1
            return _claimed_points_ok(row, 0, 0)
        return True  # bidding cut short: an incomplete hand, no claim of points is checked
    out[O_MAKER] = maker
    out[O_ALONE] = alone
    out[O_ROUND] = round_
    out[O_TRUMP] = trump
    # Lone defender phase.
    defender = row[DEFENDER]
    if defender >= 0 and (not rules[R_DEFEND_ALONE] or (defender & 1) == (maker & 1)):
        return False
    out[O_DEFENDER] = defender
    # Discard phase.
    discard = row[DISCARD]
    partner_alone = alone and maker == (dealer + 2) % 4
    picks_up = round_ == 1 and (not partner_alone or rules[R_PICKS_UP_PARTNER_ALONE] != 0)
    if picks_up and discard < 0 and rules[R_MAY_LEAVE_UPCARD]:
        picks_up = False
    if not picks_up:
        if discard >= 0:
            return False
    else:
        held[dealer] |= np.int64(1) << upcard
        if discard < 0:
            return False
        if discard == upcard and not rules[R_MAY_DISCARD_UPCARD]:
            return False
        b = np.int64(1) << discard
        if not held[dealer] & b:
            return False
        held[dealer] &= ~b
        out[O_DISCARD] = discard
    if ntricks == 0:
        return True  # no play recorded: incomplete, no claim of points is checked
    # Play phase: who sits out, who leads.
    out1 = (maker + 2) % 4 if alone else -1
    out2 = -1
    if defender >= 0 and (defender + 2) % 4 != out1:
        out2 = (defender + 2) % 4
    active = 4 - (out1 >= 0) - (out2 >= 0)
    if alone and defender >= 0 and not rules[R_BOTH_ALONE_LEFT_OF_DEALER]:
        leader = defender
    else:
        lone = maker if alone else defender
        if alone and defender >= 0:
            lone = -1
        start = (dealer + 1) % 4 if lone < 0 or not rules[R_ALONE_LEAD_LEFT_OF_ALONE] else (lone + 1) % 4
        leader = start
        while leader in (out1, out2):
            leader = (leader + 1) % 4
    eff = eff[trump]
    follow_masks = suit_mask[trump]
    maker_tricks = 0
    winners = np.zeros(5, dtype=np.int64)
    for t in range(5):
        if row[TRICK_LEN + t] != active:
            return False
        turn = leader
        turn_start = leader
        led = -1
        follow = np.int64(0)
        best_power = -1
        table = power[trump][0]
        winner = -1
        for k in range(active):
            seat = row[PLAY_SEAT + t * 4 + k]
            card = row[PLAY_CARD + t * 4 + k]
            if seat != turn:
                return False
            b = np.int64(1) << card
            if not held[seat] & b:
                return False
            held[seat] ^= b
            if k == 0:
                led = eff[card]
                follow = follow_masks[led]
                table = power[trump][led]
            elif eff[card] != led and held[seat] & follow:
                return False
            if table[card] > best_power:
                best_power = table[card]
                winner = seat
            turn = (turn + 1) % 4
            while turn in (out1, out2):
                turn = (turn + 1) % 4
        winners[t] = winner
        out[O_LEADERS + t] = turn_start
        out[O_WINNERS + t] = winner
        if (winner & 1) == (maker & 1):
            maker_tricks += 1
        leader = winner
    # Scoring phase and the claims.
    out[O_NTRICKS] = 5
    out[O_COMPLETE] = 1
    out[O_MAKER_TRICKS] = maker_tricks
    mp, dp = _maker_points(rules, maker_tricks, alone, defender >= 0)
    if maker & 1:
        out[0], out[1] = dp, mp
    else:
        out[0], out[1] = mp, dp
    if row[CLAIMS] & HAS_WINNERS:
        for t in range(row[NWINNERS]):
            if row[WINNERS + t] != winners[t]:
                return False
    return _claimed_points_ok(row, out[0], out[1])


@numba.njit(cache=True, nogil=True)
def check_games(
    games: Any,
    hands: Any,
    rules: Any,
    eff: Any,
    suit_mask: Any,
    power: Any,
    nines_tens: int,
    ok: Any,
    results: Any,
) -> None:
    """``ok[g]``: game ``g`` is clean (every hand, the dealer rotation, the running
    and final scores, no hand after the game was won)."""
    for g in range(games.shape[0]):
        rule = rules[games[g, G_RULES]]
        first = games[g, G_FIRST]
        s0 = games[g, G_INIT]
        s1 = games[g, G_INIT + 1]
        good = True
        ended = False
        previous = -1
        for h in range(first, first + games[g, G_HANDS]):
            row = hands[h]
            if ended:
                good = False
                break
            if previous >= 0 and row[DEALER] != (previous + 1) % 4:
                good = False
                break
            points = results[h]
            if not _hand(row, rule, eff, suit_mask, power, nines_tens, points):
                good = False
                break
            s0 += points[0]
            s1 += points[1]
            points[O_S0] = s0
            points[O_S0 + 1] = s1
            if row[CLAIMS] & HAS_SCORE and (row[SCORE] != s0 or row[SCORE + 1] != s1):
                good = False
                break
            previous = row[DEALER]
            if max(s0, s1) >= rule[R_TARGET]:
                ended = True
        if good and games[g, G_HAS_FINAL]:
            good = games[g, G_FINAL] == s0 and games[g, G_FINAL + 1] == s1
        ok[g] = good


def compiled_kernel() -> Any:
    return check_games
