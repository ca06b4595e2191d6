"""The fast path: clean Euchre games cleared in bulk, in compiled code.

Most games in real data are clean.  :func:`fast_check` takes a batch of parsed
euchre/1 records, lays every hand that has the common shape (a full deal of
known cards in the 24-card deck, well-formed bids, none or five full tricks,
well-formed claims) out as one fixed-width row of small ints, and runs one
numba kernel (:func:`_check_games`) over the rows: the same rules as the
replay (deal, bidding, lone defender, discard, turn order, cards held,
following suit, trick winners, points, claims, dealer rotation, running and
final score, game over), written over arrays.

The kernel only *clears* games.  A game it clears is one the reference replay
(:func:`pipeline.games.euchre.replay.replay_game`) finds no violation in, all
of whose hands have a known deal; every other game -- a fault, an odd shape,
an unknown card, an inferred deal, a rule option the kernel does not model
(another deck) -- is left to the replay, which stays the only source of
violation messages.  ``tests/test_fast_path.py`` replays thousands of clean
and corrupted games both ways and checks that they agree.

numba is imported (and its cached machine code loaded, about half a CPU
second) on the first batch; the core asks for the fast path only on inputs
large enough to pay for that (``pipeline.parallel.FAST_PATH_MIN_BYTES``), so
a small input is replayed as before and never waits for numba.  Without
numba, nothing is cleared and everything goes to the replay.

>>> import json
>>> from pipeline.games.euchre.replay import _DOCTEST_GAME
>>> game = json.loads(_DOCTEST_GAME)
>>> fast_check([game], min_games=0)   # a renege in hand 0: not cleared
[False]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pipeline.games.euchre.cards import DECK_TOKENS, EFFECTIVE, NINES_AND_TENS, POWER, SUIT_MASK, UNKNOWN
from pipeline.games.euchre.record import GAME_FIELDS, MAX_SCORE
from pipeline.games.euchre.rules import Call, Rules, RulesError, ThrowIn
from pipeline.games.euchre.state import Bid, GameReplay, HandResult
from pipeline.games.euchre.trick import Trick
from pipeline.record import TEXT_FIELDS, text_field_problem

#: A batch of fewer games is left to the replay (``TRICKLOG_FAST_MIN_GAMES``; 0 in the tests).
MIN_GAMES = int(os.environ.get("TRICKLOG_FAST_MIN_GAMES", "1"))

#: Card token -> card, for the 24-card deck (``"??"`` left out: an unknown card is not cleared).
TOKENS: dict[Any, int] = {t: c for t, c in DECK_TOKENS[24].items() if c != UNKNOWN}
#: Call -> code: pass 0, order 1, clubs..spades 2..5.
CALL_CODES: dict[Any, int] = {"pass": 0, "order": 1, "C": 2, "D": 3, "H": 4, "S": 5}
_INT32 = 2**31 - 1
_LIST, _DICT, _INT, _BOOL, _TWO, _FIVE = {list}, {dict}, {int}, {bool}, {2}, {5}
_FULL = [4, 4, 4, 4, 4]
_ZEROS = {n: [0] * n for n in range(26)}
#: Padding of a trick of 2 or 3 plays to four ([-1, a card] stands for no play).
_PAD = {n: [[-1, "9C"]] * (4 - n) for n in range(5)}

# The layout of one hand's row.
DEALER, UPCARD, KITTY, DEAL = 0, 1, 2, 5
NBIDS, BID_SEAT, BID_CALL, BID_ALONE = 25, 26, 34, 42
DISCARD, DEFENDER, THROWN, NTRICKS, TRICK_LEN = 50, 51, 52, 53, 54
PLAY_SEAT, PLAY_CARD = 59, 79
CLAIMS, NWINNERS, WINNERS, POINTS, SCORE = 99, 100, 101, 106, 108
WIDTH = 110
# Claims flags.
HAS_WINNERS, HAS_POINTS, HAS_SCORE = 1, 2, 4
# What the kernel says of each hand of a cleared game.
O_P0, O_P1, O_TRUMP, O_MAKER, O_ROUND, O_ALONE, O_DEFENDER, O_DISCARD = range(8)
O_MAKER_TRICKS, O_COMPLETE, O_THROWN, O_NTRICKS, O_LEADERS, O_WINNERS, O_S0 = 8, 9, 10, 11, 12, 17, 22
O_WIDTH = 24
# The per-game row: rules index, first hand, hands, initial score, final score.
G_RULES, G_FIRST, G_HANDS, G_INIT, G_HAS_FINAL, G_FINAL = 0, 1, 2, 3, 5, 6
G_WIDTH = 8
# The per-rules row.
(
    R_STICK,
    R_FARMERS,
    R_ALLOW_ALONE,
    R_DEFEND_ALONE,
    R_ALONE_LEAD_LEFT_OF_ALONE,
    R_BOTH_ALONE_LEFT_OF_DEALER,
    R_PICKS_UP_PARTNER_ALONE,
    R_MAY_DISCARD_UPCARD,
    R_MAY_LEAVE_UPCARD,
    R_MAY_NAME_TURNED_DOWN,
    R_MAKE,
    R_MARCH,
    R_ALONE_MAKE,
    R_ALONE_MARCH,
    R_EUCHRE,
    R_ALONE_EUCHRE,
    R_DEFENDER_ALONE_EUCHRE,
    R_DEFENDER_ALONE_MARCH,
    R_TARGET,
) = range(19)
R_WIDTH = 19

_EFFECTIVE = np.array(EFFECTIVE, dtype=np.int64)
_SUIT_MASK = np.array(SUIT_MASK, dtype=np.int64)
_POWER = np.array(POWER, dtype=np.int64)


def rules_row(rules: Rules) -> list[int]:
    return [
        rules.stick_the_dealer,
        rules.farmers_hand,
        rules.allow_alone,
        rules.defend_alone,
        rules.alone_lead == "left_of_alone",
        rules.both_alone_lead == "left_of_dealer",
        rules.dealer_picks_up_when_partner_alone,
        rules.dealer_may_discard_upcard,
        rules.dealer_may_leave_upcard,
        rules.may_name_turned_down_suit,
        rules.points_make,
        rules.points_march,
        rules.points_alone_make,
        rules.points_alone_march,
        rules.points_euchre,
        rules.points_alone_euchre,
        rules.points_defender_alone_euchre,
        rules.points_defender_alone_march,
        rules.target,
    ]


class _Batch:
    """Hands and games of a batch, laid out as flat lists of ints."""

    __slots__ = ("games", "hands", "rules", "rules_rows")

    def __init__(self) -> None:
        self.hands: list[int] = []
        self.games: list[int] = []
        self.rules: dict[Rules, int] = {}
        self.rules_rows: list[int] = []

    def rules_index(self, rules: Rules) -> int:
        index = self.rules.get(rules)
        if index is None:
            index = self.rules[rules] = len(self.rules)
            self.rules_rows += rules_row(rules)
        return index


def _pair(value: object) -> tuple[int, int] | None:
    """A ``[int, int]`` pair the replay's ``int_pair`` takes (at most ``MAX_SCORE`` in
    size), or None (also for anything else)."""
    if type(value) is list and len(value) == 2:
        a, b = value
        if (
            type(a) is int
            and type(b) is int
            and -MAX_SCORE <= a <= MAX_SCORE
            and -MAX_SCORE <= b <= MAX_SCORE
        ):
            return a, b
    return None


class _Unfit(Exception):
    """The record is not of the common shape: the replay reads it."""


def _lay_out_game(batch: _Batch, record: dict[str, Any]) -> bool:
    """Append the game's hands to the batch; False (nothing appended) when the
    game is not of the shape the kernel clears."""
    if record.get("format") != "euchre/1":
        return False
    for key in record:
        if key not in GAME_FIELDS:
            return False
    game_id = record.get("game_id")
    players = record.get("players")
    hands = record.get("hands")
    if not (type(game_id) is str and game_id and type(hands) is list and hands):
        return False
    if not (type(players) is list and len(players) == 4 and all(type(p) is str for p in players)):
        return False
    if any(text_field_problem(key, record.get(key)) for key in TEXT_FIELDS):
        return False
    try:
        rules = Rules.from_record(record.get("rules"))
    except RulesError:
        return False
    if rules.deck != 24:
        return False
    initial = record.get("initial_score")
    start = (0, 0) if initial is None else _pair(initial)
    final = record.get("final_score")
    claimed_final = None if final is None else _pair(final)
    if start is None or (final is not None and claimed_final is None):
        return False
    rows: list[int] = []
    try:
        for hand in hands:
            _lay_out_hand(rows, hand)
    except (_Unfit, KeyError, TypeError, ValueError):
        return False
    first = len(batch.hands) // WIDTH
    batch.hands += rows
    batch.games += [
        batch.rules_index(rules),
        first,
        len(hands),
        start[0],
        start[1],
        claimed_final is not None,
        *(claimed_final or (0, 0)),
    ]
    return True


def _lay_out_hand(rows: list[int], hand: object) -> None:
    """One hand as a row of ``WIDTH`` ints; raises (_Unfit, KeyError, TypeError,
    ValueError) when it is not of the common shape."""
    if type(hand) is not dict:
        raise _Unfit
    get = hand.get
    tokens = TOKENS
    dealer = get("dealer")
    if type(dealer) is not int or not 0 <= dealer <= 3:
        raise _Unfit
    deal = get("deal")
    if type(deal) is not list or len(deal) != 4:
        raise _Unfit
    if {type(cards) for cards in deal} != _LIST or {len(cards) for cards in deal} != _FIVE:
        raise _Unfit
    kitty = get("kitty")
    if type(kitty) is not list or len(kitty) != 3:
        raise _Unfit
    row = [dealer, tokens[get("upcard")]]
    row += [tokens[t] for t in kitty]
    row += [tokens[t] for cards in deal for t in cards]
    # The bids.
    bids = get("bids")
    if type(bids) is not list or len(bids) > 8:
        raise _Unfit
    pad = _ZEROS[8 - len(bids)]
    if bids:
        if {type(bid) for bid in bids} != _DICT:
            raise _Unfit
        seats = [bid.get("seat") for bid in bids]
        if {type(seat) for seat in seats} != _INT or min(seats) < 0 or max(seats) > 3:
            raise _Unfit
        alones = [bid.get("alone", False) for bid in bids]
        if {type(alone) for alone in alones} != _BOOL:
            raise _Unfit
        row.append(len(bids))
        row += seats
        row += pad
        row += [CALL_CODES[bid.get("call")] for bid in bids]
        row += pad
        row += alones
        row += pad
    else:
        row += _ZEROS[25]
    discard = get("discard")
    row.append(-1 if discard is None else tokens[discard])
    defender = get("defender_alone")
    if defender is not None and (type(defender) is not int or not 0 <= defender <= 3):
        raise _Unfit
    row.append(-1 if defender is None else defender)
    thrown = get("thrown_in")
    if thrown is not None and thrown != "all_passed":
        raise _Unfit
    row.append(thrown is not None)
    # The tricks: none, or five.
    tricks = get("tricks")
    if tricks is None or tricks == []:
        row += [0] * 46
    elif thrown is not None or type(tricks) is not list or len(tricks) != 5:
        raise _Unfit
    else:
        if {type(trick) for trick in tricks} != _LIST:
            raise _Unfit
        lengths = [len(trick) for trick in tricks]
        if lengths != _FULL:  # a lone hand (3 or 2 seats play): rows padded per trick
            if min(lengths) < 2 or max(lengths) > 4:
                raise _Unfit
            tricks = [trick + _PAD[len(trick)] for trick in tricks]
        plays = [play for trick in tricks for play in trick]
        if {type(play) for play in plays} != _LIST or {len(play) for play in plays} != _TWO:
            raise _Unfit
        seats = [play[0] for play in plays]
        if {type(seat) for seat in seats} != _INT or min(seats) < -1 or max(seats) > 3:
            raise _Unfit
        cards = [tokens[play[1]] for play in plays]
        if lengths != _FULL and seats.count(-1) != 20 - sum(lengths):
            raise _Unfit  # a seat -1 in the record itself
        row.append(5)
        row += lengths
        row += seats
        row += cards
    # The claims.
    claimed = get("claimed")
    if claimed is None:
        row += [0] * 11
    elif type(claimed) is not dict:
        raise _Unfit
    else:
        flags = 0
        said = claimed.get("trick_winners")
        winners = [0] * 5
        n = 0
        if said is not None and type(said) is not list:
            raise _Unfit  # the replay's schema violation
        if said is not None:
            if len(said) > 5:
                raise _Unfit  # the replay's schema violation (the kernel checks one a trick)
            flags |= HAS_WINNERS
            n = len(said)
            for t in range(n):
                w = said[t]
                if type(w) is not int or not -_INT32 <= w <= _INT32:
                    raise _Unfit
                winners[t] = w
        said_points = claimed.get("points")
        points = _pair(said_points)
        if points is None:
            _no_claim(said_points)
            points = (0, 0)
        else:
            flags |= HAS_POINTS
        said_score = claimed.get("score")
        score = _pair(said_score)
        if score is None:
            _no_claim(said_score)
            score = (0, 0)
        else:
            flags |= HAS_SCORE
        row.append(flags)
        row.append(n)
        row += winners
        row += points
        row += score
    rows += row


def _no_claim(value: object) -> None:
    """A claim :func:`_pair` refused is laid out only when absent (null): any other
    value (out of range, a float, a string, three numbers) the replay reports."""
    if value is not None:
        raise _Unfit


def fast_check(records: Sequence[dict[str, Any]], *, min_games: int | None = None) -> list[bool]:
    """For each euchre/1 record, True when the game is cleared: the replay would
    find no violation in it and every hand's deal is known.  False says nothing
    (the replay decides).  A batch of fewer than ``min_games`` records (default
    :data:`MIN_GAMES`) is left to the replay."""
    checked = check_batch(records, min_games)
    cleared = [False] * len(records)
    if checked is not None:
        for i in checked.records.tolist():
            cleared[i] = True
    return cleared


def fast_replays(
    records: Sequence[dict[str, Any]], *, min_games: int | None = None
) -> list[GameReplay | None]:
    """For each record, the replay of a cleared game -- what
    :func:`~pipeline.games.euchre.replay.replay_game` gives of it, built from what
    the kernel found -- or None (the replay decides)."""
    out: list[GameReplay | None] = [None] * len(records)
    checked = check_batch(records, min_games)
    if checked is None:
        return out
    ids = [records[i]["game_id"] for i in checked.records.tolist()]
    built = replays_of(ids, checked.games[checked.game_rows], checked.hands, checked.results, checked.rules)
    for i, replay in zip(checked.records.tolist(), built, strict=True):
        out[i] = replay
    return out


def replays_of(
    game_ids: Sequence[str],
    games: npt.NDArray[np.int64],
    hands: npt.NDArray[np.int64],
    results: npt.NDArray[np.int64],
    rules_of: Sequence[Rules],
) -> list[GameReplay]:
    """The replays of cleared games (``games``: their rows, in the order of
    ``game_ids``), built from what the kernel found."""
    hand_rows = hands.tolist()
    result_rows = results.tolist()
    out = []
    for game_id, (rules_index, first, count, *_) in zip(game_ids, games.tolist(), strict=True):
        rules = rules_of[rules_index]
        replay = GameReplay(game_id, rules)
        for n in range(count):
            replay.hands.append(_hand_result(n, hand_rows[first + n], result_rows[first + n]))
        replay.score = replay.hands[-1].score
        replay.ended_at = next((h.index for h in replay.hands if max(h.score) >= rules.target), None)
        out.append(replay)
    return out


_CALLS = [Call.PASS, Call.ORDER, Call.CLUBS, Call.DIAMONDS, Call.HEARTS, Call.SPADES]


def _hand_result(index: int, row: list[int], out: list[int]) -> HandResult:
    """A cleared hand as the replay's :class:`HandResult`."""
    nbids = row[NBIDS]
    bids = [Bid(row[BID_SEAT + j], _CALLS[row[BID_CALL + j]], bool(row[BID_ALONE + j])) for j in range(nbids)]
    maker = out[O_MAKER]
    result = HandResult(
        index,
        row[DEALER],
        upcard=row[UPCARD],
        bids=bids,
        trump=None if out[O_TRUMP] < 0 else out[O_TRUMP],
        maker=None if maker < 0 else maker,
        round=out[O_ROUND] or None,
        alone=bool(out[O_ALONE]),
        defender_alone=None if out[O_DEFENDER] < 0 else out[O_DEFENDER],
        discard=None if out[O_DISCARD] < 0 else out[O_DISCARD],
        maker_tricks=out[O_MAKER_TRICKS],
        points=(out[O_P0], out[O_P1]),
        score=(out[O_S0], out[O_S0 + 1]),
        thrown_in=ThrowIn.ALL_PASSED if out[O_THROWN] else None,
        complete=bool(out[O_COMPLETE]),
        valid=True,
        deal_known=True,
    )
    if out[O_NTRICKS]:
        for t in range(5):
            n = row[TRICK_LEN + t]
            seats = row[PLAY_SEAT + 4 * t : PLAY_SEAT + 4 * t + n]
            cards = row[PLAY_CARD + 4 * t : PLAY_CARD + 4 * t + n]
            result.tricks.append(
                Trick.of(out[O_LEADERS + t], zip(seats, cards, strict=True), out[O_WINNERS + t])
            )
    return result


@dataclass(frozen=True, slots=True)
class Checked:
    """What the kernel made of a batch: the laid-out arrays, what it found of each
    hand (``results``, the ``O_*`` layout; set for the hands of cleared games) and
    which games it cleared."""

    #: Index in the batch of each cleared record, ascending.
    records: npt.NDArray[np.int64]
    #: The row in ``games`` of each cleared record.
    game_rows: npt.NDArray[np.int64]
    games: npt.NDArray[np.int64]
    hands: npt.NDArray[np.int64]
    results: npt.NDArray[np.int64]
    #: The rule sets, by their index in ``games[:, G_RULES]``.
    rules: list[Rules]


def merged(a: Checked, b: Checked) -> Checked:
    """Two batches' verdicts on records of one batch as one (``records`` ascending)."""
    shifted = b.games.copy()
    shifted[:, G_FIRST] += len(a.hands)
    shifted[:, G_RULES] += len(a.rules)
    records = np.concatenate([a.records, b.records])
    game_rows = np.concatenate([a.game_rows, b.game_rows + len(a.games)])
    order = np.argsort(records, kind="stable")
    return Checked(
        records[order],
        game_rows[order],
        np.concatenate([a.games, shifted]),
        np.concatenate([a.hands, b.hands]),
        np.concatenate([a.results, b.results]),
        [*a.rules, *b.rules],
    )


def check_batch(records: Sequence[dict[str, Any]], min_games: int | None = None) -> Checked | None:
    """The kernel over a batch (None: the batch is too small, numba is missing or
    no record has the common shape)."""
    limit = MIN_GAMES if min_games is None else min_games
    if len(records) < max(limit, 1):
        return None
    check = kernel()
    if check is None:
        return None
    batch = _Batch()
    laid_out = [i for i, record in enumerate(records) if _lay_out_game(batch, record)]
    if not laid_out:
        return None
    hands = np.array(batch.hands, dtype=np.int64).reshape(-1, WIDTH)
    games = np.array(batch.games, dtype=np.int64).reshape(-1, G_WIDTH)
    rules = np.array(batch.rules_rows, dtype=np.int64).reshape(-1, R_WIDTH)
    ok, results = check_rows(check, games, hands, rules)
    game_rows = np.flatnonzero(ok)
    cleared = np.array(laid_out, dtype=np.int64)[game_rows]
    return Checked(cleared, game_rows, games, hands, results, list(batch.rules))


def check_rows(
    kernel: Any, games: npt.NDArray[np.int64], hands: npt.NDArray[np.int64], rules: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """The kernel over laid-out rows: whether each game is cleared, and what it
    says of each hand (the ``O_*`` columns)."""
    ok = np.zeros(len(games), dtype=np.bool_)
    results = np.zeros((len(hands), O_WIDTH), dtype=np.int64)
    kernel(games, hands, rules, _EFFECTIVE, _SUIT_MASK, _POWER, NINES_AND_TENS, ok, results)
    return ok, results


_KERNEL: Any = None
_KERNEL_TRIED = False


def kernel() -> Any:
    """The compiled kernel (None without numba)."""
    global _KERNEL, _KERNEL_TRIED
    if not _KERNEL_TRIED:
        _KERNEL_TRIED = True
        try:
            from pipeline.games.euchre.fast_kernel import compiled_kernel
        except ImportError:  # numba missing or broken: the replay does it all
            return None
        _KERNEL = compiled_kernel()
    return _KERNEL


def layout(records: Sequence[dict[str, Any]]) -> tuple[npt.NDArray[np.int64], ...] | None:
    """The arrays the kernel sees for a batch (None if a record is not of the common shape); for tests."""
    batch = _Batch()
    if not all(_lay_out_game(batch, r) for r in records):
        return None
    return (
        np.array(batch.games, dtype=np.int64).reshape(-1, G_WIDTH),
        np.array(batch.hands, dtype=np.int64).reshape(-1, WIDTH),
        np.array(batch.rules_rows, dtype=np.int64).reshape(-1, R_WIDTH),
    )
