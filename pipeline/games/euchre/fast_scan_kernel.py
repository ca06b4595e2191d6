"""The compiled scanner of :mod:`pipeline.games.euchre.fast_scan`: euchre/1
lines read byte by byte straight into the fast path's rows.

It reads a strict subset of JSON -- the shape exporters write -- and gives
up on a line (returns ``FAIL``) at the first thing outside it: an escape or
a non-ASCII byte in a string, a fraction or an exponent, a key it does not
know or sees twice, a value of another type.  Giving up is always safe: the
line then goes through ``orjson`` and the reference replay.  What it accepts
it reads exactly as ``orjson`` plus :func:`pipeline.games.euchre.fast._lay_out_game`
would (``tests/test_fast_scan.py`` checks it, byte-level fuzzing included).

Imported only with numba (``cache=True``: compiled once a machine).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

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
    HAS_POINTS,
    HAS_SCORE,
    HAS_WINNERS,
    KITTY,
    NBIDS,
    NTRICKS,
    NWINNERS,
    PLAY_CARD,
    PLAY_SEAT,
    POINTS,
    SCORE,
    THROWN,
    TRICK_LEN,
    UPCARD,
    WIDTH,
    WINNERS,
)
from pipeline.games.euchre.fast_scan import S_ID, S_PLAYERS, S_RULES, S_SOURCE, S_STARTED
from pipeline.games.euchre.record import MAX_SCORE

FAIL = -1
_INT32 = 2**31 - 1

# Keys, by object.  Their order is the order of the names in ``KEY_NAMES``.
K_FORMAT, K_GAME_ID, K_PLAYERS, K_RULES, K_STARTED_AT, K_SOURCE, K_HANDS, K_FINAL, K_INITIAL = range(9)
H_DEALER, H_DEAL, H_UPCARD, H_KITTY, H_BIDS, H_DISCARD, H_DEFENDER, H_THROWN, H_TRICKS, H_CLAIMED = range(
    9, 19
)
B_SEAT, B_CALL, B_ALONE = range(19, 22)
C_WINNERS, C_POINTS, C_SCORE = range(22, 25)
# Call names (codes 0..5, as ``fast.CALL_CODES``), then the two string values a record may hold.
V_CALLS, V_FORMAT, V_ALL_PASSED = 25, 31, 32
KEY_NAMES = (
    *(
        "format",
        "game_id",
        "players",
        "rules",
        "started_at",
        "source",
        "hands",
        "final_score",
        "initial_score",
    ),
    *(
        "dealer",
        "deal",
        "upcard",
        "kitty",
        "bids",
        "discard",
        "defender_alone",
        "thrown_in",
        "tricks",
        "claimed",
    ),
    *("seat", "call", "alone"),
    *("trick_winners", "points", "score"),
    *("pass", "order", "C", "D", "H", "S"),
    *("euchre/1", "all_passed"),
)
GAME_REQUIRED = 1 << K_FORMAT | 1 << K_GAME_ID | 1 << K_PLAYERS | 1 << K_HANDS
HAND_REQUIRED = 1 << H_DEALER | 1 << H_DEAL | 1 << H_UPCARD | 1 << H_KITTY | 1 << H_BIDS
BID_REQUIRED = 1 << B_SEAT | 1 << B_CALL


def key_table() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The names as one byte array and their offsets."""
    encoded = [name.encode() for name in KEY_NAMES]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(e) for e in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


_F = TypeVar("_F", bound=Callable[..., Any])
_unliteral: Callable[[Any], Any] = types.unliteral


def _jit(function: _F) -> _F:
    """``numba.njit``, compiled once for each type of argument rather than once
    for each constant a caller passes (numba's default for a literal argument):
    the scanner's helpers, called with many constants (a byte, a range of keys),
    were compiled 66 times where 35 do (31 s of a first run's compiling, against 19).
    The helpers read no argument as a constant, and the scanner runs as fast."""
    dispatcher: Any = numba.njit(cache=True, nogil=True)(function)
    typed = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        return typed(tuple(_unliteral(a) for a in args), {k: _unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return cast(_F, dispatcher)


def _borrow(typingctx: Any, array: Any) -> Any:
    """The same array, but not counted as a reference to its memory: passing it
    to a function then costs no atomic increment and decrement (which took half
    the scanner's time).  Only for use while the array it views is held."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = view.meminfo.type(None)  # null
        view.parent = view.parent.type(None)
        return view._getvalue()

    return array(array), codegen


_borrowed: Any = intrinsic(_borrow)


@_jit
def _ws(b: Any, i: int, end: int) -> int:
    while i < end:
        c = b[i]
        if c != 32 and c != 10 and c != 13 and c != 9:
            break
        i += 1
    return i


@_jit
def _byte(b: Any, i: int, end: int, ch: int) -> int:
    """Past ``ch`` after any whitespace, or FAIL."""
    i = _ws(b, i, end)
    if i < end and b[i] == ch:
        return i + 1
    return FAIL


@_jit
def _string_end(b: Any, i: int, end: int) -> int:
    """``b[i]`` opens a plain string (no escape, ASCII): the index of its closing quote, or FAIL."""
    if i >= end or b[i] != 34:
        return FAIL
    i += 1
    while i < end:
        c = b[i]
        if c == 34:
            return i
        if c < 32 or c == 92 or c >= 128:
            return FAIL
        i += 1
    return FAIL


@_jit
def _name(b: Any, s: int, e: int, names: Any, offsets: Any, lo: int, hi: int) -> int:
    """Which of the names ``lo..hi-1`` the bytes ``b[s:e]`` are, or FAIL."""
    n = e - s
    for k in range(lo, hi):
        a = offsets[k]
        if offsets[k + 1] - a != n:
            continue
        same = True
        for j in range(n):
            if b[s + j] != names[a + j]:
                same = False
                break
        if same:
            return k
    return FAIL


@_jit
def _int(b: Any, i: int, end: int) -> tuple[int, int]:
    """A JSON integer at ``i`` (no fraction, no exponent, |n| < 2**31): (value, position after), or (0, FAIL)."""
    neg = False
    if i < end and b[i] == 45:
        neg = True
        i += 1
    if i >= end or b[i] < 48 or b[i] > 57:
        return 0, FAIL
    value = 0
    if b[i] == 48:
        i += 1
        if i < end and 48 <= b[i] <= 57:
            return 0, FAIL
    else:
        digits = 0
        while i < end and 48 <= b[i] <= 57:
            value = value * 10 + (b[i] - 48)
            i += 1
            digits += 1
            if digits > 10:
                return 0, FAIL
    if i < end and (b[i] == 46 or b[i] == 101 or b[i] == 69):
        return 0, FAIL
    if value > _INT32 or (neg and value == 0):  # "-0": orjson writes it back as 0
        return 0, FAIL
    return (-value if neg else value), i


@_jit
def _literal(b: Any, i: int, end: int, word: int) -> int:
    """Past ``null`` (0), ``true`` (1) or ``false`` (2) at ``i``, or FAIL."""
    if word == 0:
        text = (110, 117, 108, 108)
    elif word == 1:
        text = (116, 114, 117, 101)
    else:
        text = (102, 97, 108, 115)
    if i + len(text) > end:
        return FAIL
    for j in range(4):
        if b[i + j] != text[j]:
            return FAIL
    if word == 2:
        if i + 4 >= end or b[i + 4] != 101:
            return FAIL
        return i + 5
    return i + 4


@_jit
def _is_null(b: Any, i: int, end: int) -> bool:
    return i < end and b[i] == 110


@_jit
def _card(b: Any, i: int, end: int, cards: Any) -> tuple[int, int]:
    """A two-letter card token at ``i``: (card, position after), or (0, FAIL)."""
    if i + 4 > end or b[i] != 34 or b[i + 3] != 34 or b[i + 1] >= 128 or b[i + 2] >= 128:
        return 0, FAIL
    card = cards[b[i + 1] * 128 + b[i + 2]]
    if card < 0:
        return 0, FAIL
    return card, i + 4


@_jit
def _next(b: Any, i: int, end: int, close: int) -> tuple[bool, int]:
    """After a value in an array or object: (more follow, position), or (False, FAIL)."""
    i = _ws(b, i, end)
    if i < end:
        if b[i] == 44:
            return True, i + 1
        if b[i] == close:
            return False, i + 1
    return False, FAIL


@_jit
def _open(b: Any, i: int, end: int, ch: int, close: int) -> tuple[bool, int]:
    """Past an opening ``[`` or ``{``: (it is empty, position after it), or (False, FAIL)."""
    i = _byte(b, i, end, ch)
    if i == FAIL:
        return False, FAIL
    i = _ws(b, i, end)
    if i < end and b[i] == close:
        return True, i + 1
    return False, i


@_jit
def _key(
    b: Any, i: int, end: int, names: Any, offsets: Any, lo: int, hi: int, seen: int
) -> tuple[int, int, int]:
    """A key of an object (one of the names ``lo..hi-1``, not in ``seen`` yet) and its
    colon: (key, position of its value, the keys seen with it), or (FAIL, FAIL, 0)."""
    i = _ws(b, i, end)
    e = _string_end(b, i, end)
    if e == FAIL:
        return FAIL, FAIL, 0
    k = _name(b, i + 1, e, names, offsets, lo, hi)
    if k == FAIL or seen >> k & 1:
        return FAIL, FAIL, 0
    i = _byte(b, e + 1, end, 58)
    if i == FAIL:
        return FAIL, FAIL, 0
    return k, _ws(b, i, end), seen | 1 << k


@_jit
def _pair(b: Any, i: int, end: int, out: Any, at: int) -> int:
    """``[int, int]`` into ``out[at]``, ``out[at + 1]``, each at most ``MAX_SCORE`` in size."""
    i = _byte(b, i, end, 91)
    if i == FAIL:
        return FAIL
    for j in range(2):
        v, i = _int(b, _ws(b, i, end), end)
        if i == FAIL or v > MAX_SCORE or v < -MAX_SCORE:
            return FAIL
        out[at + j] = v
        i = _byte(b, i, end, 44 if j == 0 else 93)
        if i == FAIL:
            return FAIL
    return i


@_jit
def _cards(b: Any, i: int, end: int, cards: Any, out: Any, at: int, count: int) -> int:
    """An array of exactly ``count`` cards into ``out[at:at + count]``."""
    i = _byte(b, i, end, 91)
    for j in range(count):
        if i == FAIL:
            return FAIL
        v, i = _card(b, _ws(b, i, end), end, cards)
        out[at + j] = v
        if i == FAIL:
            return FAIL
        i = _byte(b, i, end, 44 if j < count - 1 else 93)
    return i


@_jit
def _deal(b: Any, i: int, end: int, cards: Any, row: Any) -> int:
    i = _byte(b, i, end, 91)
    for seat in range(4):
        if i == FAIL:
            return FAIL
        i = _cards(b, i, end, cards, row, DEAL + 5 * seat, 5)
        if i == FAIL:
            return FAIL
        i = _byte(b, i, end, 44 if seat < 3 else 93)
    return i


@_jit
def _seat(b: Any, i: int, end: int) -> tuple[int, int]:
    v, i = _int(b, i, end)
    if i == FAIL or v < 0 or v > 3:
        return 0, FAIL
    return v, i


@_jit
def _bid(b: Any, i: int, end: int, names: Any, offsets: Any, row: Any, j: int) -> int:
    empty, i = _open(b, i, end, 123, 125)
    if i == FAIL or empty:
        return FAIL
    seen = 0
    more = True
    while more:
        k, i, seen = _key(b, i, end, names, offsets, B_SEAT, B_ALONE + 1, seen)
        if k == FAIL:
            return FAIL
        if k == B_SEAT:
            v, i = _seat(b, i, end)
            row[BID_SEAT + j] = v
        elif k == B_CALL:
            e = _string_end(b, i, end)
            if e == FAIL:
                return FAIL
            call = _name(b, i + 1, e, names, offsets, V_CALLS, V_CALLS + 6)
            if call == FAIL:
                return FAIL
            row[BID_CALL + j] = call - V_CALLS
            i = e + 1
        else:
            if i < end and b[i] == 116:
                row[BID_ALONE + j] = 1
                i = _literal(b, i, end, 1)
            else:
                i = _literal(b, i, end, 2)
        if i == FAIL:
            return FAIL
        more, i = _next(b, i, end, 125)
        if i == FAIL:
            return FAIL
    if seen & BID_REQUIRED != BID_REQUIRED:
        return FAIL
    return i


@_jit
def _bids(b: Any, i: int, end: int, names: Any, offsets: Any, row: Any) -> int:
    empty, i = _open(b, i, end, 91, 93)
    if i == FAIL or empty:
        return i
    j = 0
    more = True
    while more:
        if j == 8:
            return FAIL
        i = _bid(b, i, end, names, offsets, row, j)
        if i == FAIL:
            return FAIL
        j += 1
        more, i = _next(b, i, end, 93)
        if i == FAIL:
            return FAIL
    row[NBIDS] = j
    return i


@_jit
def _trick(b: Any, i: int, end: int, cards: Any, row: Any, t: int, pad: int) -> int:
    empty, i = _open(b, i, end, 91, 93)
    if i == FAIL or empty:
        return FAIL
    n = 0
    more = True
    while more:
        if n == 4:
            return FAIL
        i = _byte(b, i, end, 91)
        if i == FAIL:
            return FAIL
        v, i = _seat(b, _ws(b, i, end), end)
        row[PLAY_SEAT + 4 * t + n] = v
        if i == FAIL:
            return FAIL
        i = _byte(b, i, end, 44)
        if i == FAIL:
            return FAIL
        v, i = _card(b, _ws(b, i, end), end, cards)
        row[PLAY_CARD + 4 * t + n] = v
        if i == FAIL:
            return FAIL
        i = _byte(b, i, end, 93)
        if i == FAIL:
            return FAIL
        n += 1
        more, i = _next(b, i, end, 93)
        if i == FAIL:
            return FAIL
    if n < 2:
        return FAIL
    row[TRICK_LEN + t] = n
    for p in range(n, 4):  # a lone hand's trick, padded as the layout pads it
        row[PLAY_SEAT + 4 * t + p] = -1
        row[PLAY_CARD + 4 * t + p] = pad
    return i


@_jit
def _tricks(b: Any, i: int, end: int, cards: Any, row: Any, pad: int) -> int:
    if _is_null(b, i, end):
        return _literal(b, i, end, 0)
    empty, i = _open(b, i, end, 91, 93)
    if i == FAIL or empty:
        return i
    for t in range(5):
        i = _trick(b, i, end, cards, row, t, pad)
        if i == FAIL:
            return FAIL
        i = _byte(b, i, end, 44 if t < 4 else 93)
        if i == FAIL:
            return FAIL
    row[NTRICKS] = 5
    return i


@_jit
def _winners(b: Any, i: int, end: int, row: Any) -> int:
    empty, i = _open(b, i, end, 91, 93)
    if i == FAIL:
        return FAIL
    n = 0
    more = not empty
    while more:
        if n == 5:
            return FAIL
        v, i = _int(b, _ws(b, i, end), end)
        row[WINNERS + n] = v
        if i == FAIL:
            return FAIL
        n += 1
        more, i = _next(b, i, end, 93)
        if i == FAIL:
            return FAIL
    row[NWINNERS] = n
    row[CLAIMS] |= HAS_WINNERS
    return i


@_jit
def _claimed(b: Any, i: int, end: int, names: Any, offsets: Any, row: Any) -> int:
    if _is_null(b, i, end):
        return _literal(b, i, end, 0)
    empty, i = _open(b, i, end, 123, 125)
    if i == FAIL or empty:
        return i
    seen = 0
    more = True
    while more:
        k, i, seen = _key(b, i, end, names, offsets, C_WINNERS, C_SCORE + 1, seen)
        if k == FAIL:
            return FAIL
        if _is_null(b, i, end):
            i = _literal(b, i, end, 0)
        elif k == C_WINNERS:
            i = _winners(b, i, end, row)
        elif k == C_POINTS:
            i = _pair(b, i, end, row, POINTS)
            row[CLAIMS] |= HAS_POINTS
        else:
            i = _pair(b, i, end, row, SCORE)
            row[CLAIMS] |= HAS_SCORE
        if i == FAIL:
            return FAIL
        more, i = _next(b, i, end, 125)
        if i == FAIL:
            return FAIL
    return i


@_jit
def _hand_value(b: Any, i: int, end: int, k: int, names: Any, offsets: Any, cards: Any, row: Any) -> int:
    """The value of the hand's key ``k`` into its row."""
    if k == H_DEALER:
        v, i = _seat(b, i, end)
        row[DEALER] = v
        return i
    if k == H_DEAL:
        return _deal(b, i, end, cards, row)
    if k == H_UPCARD:
        v, i = _card(b, i, end, cards)
        row[UPCARD] = v
        return i
    if k == H_KITTY:
        return _cards(b, i, end, cards, row, KITTY, 3)
    if k == H_BIDS:
        return _bids(b, i, end, names, offsets, row)
    if k == H_TRICKS:
        return _tricks(b, i, end, cards, row, cards[57 * 128 + 67])  # "9C": the layout's padding card
    if k == H_CLAIMED:
        return _claimed(b, i, end, names, offsets, row)
    if _is_null(b, i, end):
        return _literal(b, i, end, 0)
    if k == H_DISCARD:
        v, i = _card(b, i, end, cards)
        row[DISCARD] = v
        return i
    if k == H_DEFENDER:
        v, i = _seat(b, i, end)
        row[DEFENDER] = v
        return i
    e = _string_end(b, i, end)  # thrown_in: "all_passed"
    if e == FAIL or _name(b, i + 1, e, names, offsets, V_ALL_PASSED, V_ALL_PASSED + 1) == FAIL:
        return FAIL
    row[THROWN] = 1
    return e + 1


@_jit
def _hand(b: Any, i: int, end: int, names: Any, offsets: Any, cards: Any, row: Any) -> int:
    row[:] = 0
    row[DISCARD] = -1
    row[DEFENDER] = -1
    empty, i = _open(b, i, end, 123, 125)
    if i == FAIL or empty:
        return FAIL
    seen = 0
    more = True
    while more:
        k, i, seen = _key(b, i, end, names, offsets, H_DEALER, H_CLAIMED + 1, seen)
        if k == FAIL:
            return FAIL
        i = _hand_value(b, i, end, k, names, offsets, cards, row)
        if i == FAIL:
            return FAIL
        more, i = _next(b, i, end, 125)
        if i == FAIL:
            return FAIL
    if seen & HAND_REQUIRED != HAND_REQUIRED or (row[THROWN] == 1 and row[NTRICKS] != 0):
        return FAIL
    return i


@_jit
def _hands(
    b: Any, i: int, end: int, names: Any, offsets: Any, cards: Any, hands: Any, first: int
) -> tuple[int, int]:
    """The hands array into ``hands[first:]``: (hands read, position after), or (0, FAIL)."""
    empty, i = _open(b, i, end, 91, 93)
    if i == FAIL or empty:
        return 0, FAIL
    n = 0
    more = True
    while more:
        if first + n >= hands.shape[0]:
            return 0, FAIL  # out of room: the line goes to the replay
        i = _hand(b, i, end, names, offsets, cards, hands[first + n])
        if i == FAIL:
            return 0, FAIL
        n += 1
        more, i = _next(b, i, end, 93)
        if i == FAIL:
            return 0, FAIL
    return n, i


@_jit
def _players(b: Any, i: int, end: int, spans: Any) -> int:
    i = _byte(b, i, end, 91)
    for p in range(4):
        if i == FAIL:
            return FAIL
        i = _ws(b, i, end)
        e = _string_end(b, i, end)
        if e == FAIL:
            return FAIL
        spans[S_PLAYERS + 2 * p] = i + 1
        spans[S_PLAYERS + 2 * p + 1] = e
        i = _byte(b, e + 1, end, 44 if p < 3 else 93)
    return i


@_jit
def _rules(b: Any, i: int, end: int, names: Any, offsets: Any, spans: Any) -> int:
    """A flat object of plain values; its span goes to Python, which reads the rules."""
    if _is_null(b, i, end):
        return _literal(b, i, end, 0)
    start = i
    empty, i = _open(b, i, end, 123, 125)
    more = not empty
    while more and i != FAIL:
        i = _ws(b, i, end)
        e = _string_end(b, i, end)
        if e == FAIL:
            return FAIL
        i = _ws(b, _byte(b, e + 1, end, 58), end)
        if i == FAIL or i >= end:
            return FAIL
        c = b[i]
        if c == 34:
            e = _string_end(b, i, end)
            i = FAIL if e == FAIL else e + 1
        elif c == 116:
            i = _literal(b, i, end, 1)
        elif c == 102:
            i = _literal(b, i, end, 2)
        elif c == 110:
            i = _literal(b, i, end, 0)
        else:
            _, i = _int(b, i, end)
        if i == FAIL:
            return FAIL
        more, i = _next(b, i, end, 125)
    if i == FAIL:
        return FAIL
    spans[S_RULES] = start
    spans[S_RULES + 1] = i
    return i


@_jit
def _game_value(b: Any, i: int, end: int, k: int, names: Any, offsets: Any, game: Any, spans: Any) -> int:
    """The value of the game's key ``k`` (not ``hands``) into its row and spans."""
    if k == K_FORMAT:
        e = _string_end(b, i, end)
        if e == FAIL or _name(b, i + 1, e, names, offsets, V_FORMAT, V_FORMAT + 1) == FAIL:
            return FAIL
        return e + 1
    if k == K_GAME_ID:
        e = _string_end(b, i, end)
        if e == FAIL or e == i + 1:
            return FAIL
        spans[S_ID] = i + 1
        spans[S_ID + 1] = e
        return e + 1
    if k == K_PLAYERS:
        return _players(b, i, end, spans)
    if k == K_RULES:
        return _rules(b, i, end, names, offsets, spans)
    if _is_null(b, i, end):
        return _literal(b, i, end, 0)
    if k == K_FINAL:
        game[G_HAS_FINAL] = 1
        return _pair(b, i, end, game, G_FINAL)
    if k == K_INITIAL:
        return _pair(b, i, end, game, G_INIT)
    e = _string_end(b, i, end)  # started_at, source: strings
    if e == FAIL:
        return FAIL
    at = S_SOURCE if k == K_SOURCE else S_STARTED
    spans[at] = i + 1
    spans[at + 1] = e
    return e + 1


@_jit
def _game(
    b: Any,
    i: int,
    end: int,
    names: Any,
    offsets: Any,
    cards: Any,
    game: Any,
    spans: Any,
    hands: Any,
    first: int,
) -> int:
    """One line: its game row, spans and hand rows (from ``hands[first]``); the
    number of hands, or FAIL."""
    game[:] = 0
    spans[:] = -1
    game[G_FIRST] = first
    empty, i = _open(b, i, end, 123, 125)
    if i == FAIL or empty:
        return FAIL
    seen = 0
    more = True
    while more:
        k, i, seen = _key(b, i, end, names, offsets, K_FORMAT, K_INITIAL + 1, seen)
        if k == FAIL:
            return FAIL
        if k == K_HANDS:
            n, i = _hands(b, i, end, names, offsets, cards, hands, first)
            game[G_HANDS] = n
        else:
            i = _game_value(b, i, end, k, names, offsets, game, spans)
        if i == FAIL:
            return FAIL
        more, i = _next(b, i, end, 125)
        if i == FAIL:
            return FAIL
    if seen & GAME_REQUIRED != GAME_REQUIRED or _ws(b, i, end) != end:
        return FAIL
    count: int = game[G_HANDS]
    return count


@_jit
def scan_lines(
    b: Any, starts: Any, ends: Any, names: Any, offsets: Any, cards: Any, games: Any, spans: Any, hands: Any
) -> int:
    """Each line ``b[starts[n]:ends[n]]`` into ``games[n]``, ``spans[n]`` and
    rows of ``hands``; a line the scanner gives up on has ``games[n, G_HANDS]``
    of 0 and no rows.  Returns the number of hand rows written."""
    b, names, offsets, cards = _borrowed(b), _borrowed(names), _borrowed(offsets), _borrowed(cards)
    games, spans, hands = _borrowed(games), _borrowed(spans), _borrowed(hands)
    used = 0
    for n in range(starts.shape[0]):
        count = _game(b, starts[n], ends[n], names, offsets, cards, games[n], spans[n], hands, used)
        if count == FAIL:
            games[n, G_HANDS] = 0
        else:
            used += count
    return used


assert WIDTH > 0  # the row layout is fast's


# --------------------------------------------------------------------------
# Canonical bytes: what ``orjson.dumps(orjson.loads(line), option=OPT_SORT_KEYS)``
# gives of a line the scanner read (no whitespace, every object's keys in byte
# order), so that a cleared line's content hash needs no parsing in Python.
#
# One pass: bytes are copied as they come, but whitespace, and each object's
# members are put in key order when it closes (moved only when they are not in
# order already).  Nested objects are ordered first, then moved whole.

#: Members an object may have, and objects and arrays nested: past either the
#: line is left to orjson (a record has about a dozen, nested six deep).
_MEMBERS = 64
_NESTING = 32


@_jit
def _key_order(out: Any, a: int, na: int, b: int, nb: int) -> int:
    """-1, 0 or 1 as the key ``out[a:a + na]`` sorts before, with or after ``out[b:b + nb]``."""
    for j in range(min(na, nb)):
        if out[a + j] != out[b + j]:
            return -1 if out[a + j] < out[b + j] else 1
    if na == nb:
        return 0
    return -1 if na < nb else 1


@_jit
def _sort_members(out: Any, tmp: Any, starts: Any, lengths: Any, order: Any, n: int, close: int) -> bool:
    """The ``n`` members of an object written at ``out[starts[0]:close]`` put in the
    byte order of their keys; False when a key is repeated."""
    moved = False
    for k in range(n):
        order[k] = k
    for k in range(1, n):
        m = k
        while m > 0:
            a, b = order[m], order[m - 1]
            c = _key_order(out, starts[a] + 1, lengths[a], starts[b] + 1, lengths[b])
            if c == 0:
                return False
            if c > 0:
                break
            order[m], order[m - 1] = b, a
            moved = True
            m -= 1
    if not moved:
        return True
    first = starts[0]
    for j in range(first, close):
        tmp[j - first] = out[j]
    o = first
    for r in range(n):
        k = order[r]
        if r > 0:
            out[o] = 44
            o += 1
        e = starts[k + 1] - 1 if k + 1 < n else close
        for j in range(starts[k] - first, e - first):
            out[o] = tmp[j]
            o += 1
    return True


@_jit
def _canonical(
    b: Any,
    i: int,
    end: int,
    out: Any,
    o: int,
    tmp: Any,
    starts: Any,
    lengths: Any,
    order: Any,
    kinds: Any,
    counts: Any,
) -> int:
    """The canonical bytes of the object at ``b[i:end]`` into ``out[o:]``: the
    position past them, or FAIL (a repeated key, too many members or too deep).
    For the container open at depth ``d``: ``kinds[d]`` its opening byte,
    ``counts[d]`` its members so far, ``starts[d * _MEMBERS + k]`` where its
    member ``k`` begins in ``out`` and ``lengths[...]`` its key's length."""
    depth = -1
    key_next = False
    while i < end:
        c = b[i]
        if c == 32 or c == 10 or c == 13 or c == 9:
            i += 1
        elif c == 34:
            e = _string_end(b, i, end)
            if e == FAIL:
                return FAIL
            if key_next:
                n = counts[depth]
                if n == _MEMBERS:
                    return FAIL
                starts[depth * _MEMBERS + n] = o
                lengths[depth * _MEMBERS + n] = e - i - 1
                counts[depth] = n + 1
                key_next = False
            for j in range(i, e + 1):
                out[o] = b[j]
                o += 1
            i = e + 1
        elif c == 123 or c == 91:
            depth += 1
            if depth == _NESTING:
                return FAIL
            kinds[depth] = c
            counts[depth] = 0
            key_next = c == 123
            out[o] = c
            o += 1
            i += 1
        elif c == 125 or c == 93:
            if depth < 0 or kinds[depth] != c - 2:  # not the bracket that opened it
                return FAIL
            if c == 125:
                base = depth * _MEMBERS
                n = counts[depth]
                if n > 1 and not _sort_members(out, tmp, starts[base:], lengths[base:], order, n, o):
                    return FAIL
            out[o] = c
            o += 1
            i += 1
            depth -= 1
            if depth < 0:
                return o
            key_next = False
        elif c == 44:
            out[o] = 44
            o += 1
            i += 1
            key_next = kinds[depth] == 123 if depth >= 0 else False
        else:
            out[o] = c
            o += 1
            i += 1
    return FAIL


@_jit
def canonical_lines(b: Any, starts: Any, ends: Any, chosen: Any, out: Any, offsets: Any) -> None:
    """The canonical bytes of each chosen line, one after another in ``out``:
    line ``chosen[k]``'s are ``out[offsets[k]:offsets[k + 1]]`` (empty: none, the
    line holds a repeated key)."""
    o = 0
    offsets[0] = 0
    longest = 0
    for k in range(chosen.shape[0]):
        longest = max(longest, ends[chosen[k]] - starts[chosen[k]])
    tmp = np.empty(longest, dtype=np.uint8)
    members = np.empty(_NESTING * _MEMBERS, dtype=np.int64)
    lengths = np.empty(_NESTING * _MEMBERS, dtype=np.int64)
    order = np.empty(_MEMBERS, dtype=np.int64)
    kinds = np.empty(_NESTING, dtype=np.int64)
    counts = np.empty(_NESTING, dtype=np.int64)
    for k in range(chosen.shape[0]):
        n = chosen[k]
        written = _canonical(b, starts[n], ends[n], out, o, tmp, members, lengths, order, kinds, counts)
        if written == FAIL:
            written = o
        o = written
        offsets[k + 1] = o
