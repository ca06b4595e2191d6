"""The compiled part of :mod:`pipeline.games.euchre.fast_rows`: the text each
cleared hand's fingerprint hashes, written for a whole batch into one buffer.

The text is :func:`pipeline.games.euchre.fingerprint.hand_fingerprint`'s,
byte for byte: ``euchre|r|u{upcard}|b{calls}|t{tricks}``,
the calls ``{seat}{call}[a]`` joined by commas, the tricks' plays
``{seat}{card}`` joined by spaces and the tricks by slashes, each seat counted
from the dealer.  Imported only
with the fast path (it imports numba); the machine code is cached like the
kernel's (``cache=True``).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

import pipeline.jit  # noqa: F401  (numba readied without scipy: see there)
from pipeline.games.euchre.cards import CARD_NAMES
from pipeline.games.euchre.fast import (
    BID_ALONE,
    BID_CALL,
    BID_SEAT,
    DEALER,
    NBIDS,
    PLAY_CARD,
    PLAY_SEAT,
    TRICK_LEN,
    UPCARD,
)
from pipeline.games.euchre.rules import Call

#: The longest text of one hand: 16 + 8 calls of 7 and 7 commas + 4 + 2 + 20 plays of 3 and 19 separators.
MAX_TEXT = 200
_ZERO = ord("0")
#: Each card's name as two bytes, by card.
NAMES = np.array([[ord(c) for c in name] for name in CARD_NAMES], dtype=np.uint8)
#: Each call code's spelling (``fast.CALL_CODES``), padded with zeros, and its length.
_SPELLINGS = [str(c) for c in (Call.PASS, Call.ORDER, Call.CLUBS, Call.DIAMONDS, Call.HEARTS, Call.SPADES)]
CALL_TEXT = np.array([[ord(c) for c in s.ljust(5, "\0")] for s in _SPELLINGS], dtype=np.uint8)
CALL_LEN = np.array([len(s) for s in _SPELLINGS], dtype=np.int64)
_HEAD = np.frombuffer(b"euchre|r", dtype=np.uint8).copy()


@numba.njit(inline="always")
def _put(buf: Any, pos: int, text: Any, n: int) -> int:
    for i in range(n):
        buf[pos + i] = text[i]
    return pos + n


@numba.njit(inline="always")
def _mark(buf: Any, pos: int, a: int, b: int) -> int:
    """Two bytes, e.g. ``|u``."""
    buf[pos] = a
    buf[pos + 1] = b
    return pos + 2


@numba.njit(inline="always")
def _calls(buf: Any, pos: int, row: Any, call_text: Any, call_len: Any) -> int:
    for j in range(row[NBIDS]):
        if j:
            buf[pos] = 44  # ","
            pos += 1
        buf[pos] = _ZERO + ((row[BID_SEAT + j] - row[DEALER]) & 3)
        call = row[BID_CALL + j]
        pos = _put(buf, pos + 1, call_text[call], call_len[call])
        if row[BID_ALONE + j]:
            buf[pos] = 97  # "a"
            pos += 1
    return pos


@numba.njit(inline="always")
def _tricks(buf: Any, pos: int, row: Any, names: Any) -> int:
    for t in range(5):
        if t:
            buf[pos] = 47  # "/"
            pos += 1
        for k in range(row[TRICK_LEN + t]):
            if k:
                buf[pos] = 32  # " "
                pos += 1
            buf[pos] = _ZERO + ((row[PLAY_SEAT + 4 * t + k] - row[DEALER]) & 3)
            pos = _put(buf, pos + 1, names[row[PLAY_CARD + 4 * t + k]], 2)
    return pos


@numba.njit(cache=True, nogil=True)
def fingerprint_texts(
    hands: Any,
    selected: Any,
    head: Any,
    names: Any,
    call_text: Any,
    call_len: Any,
    buf: Any,
    ends: Any,
) -> None:
    """The text of each ``selected`` hand (rows of ``hands``, played ones) into
    ``buf``, one after the other; ``ends[i]``: where the ``i``-th one ends."""
    pos = 0
    for i in range(selected.shape[0]):
        h = selected[i]
        row = hands[h]
        pos = _put(buf, pos, head, head.shape[0])
        pos = _mark(buf, pos, 124, 117)  # "|u"
        pos = _put(buf, pos, names[row[UPCARD]], 2)
        pos = _mark(buf, pos, 124, 98)  # "|b"
        pos = _calls(buf, pos, row, call_text, call_len)
        pos = _mark(buf, pos, 124, 116)  # "|t"
        pos = _tricks(buf, pos, row, names)
        ends[i] = pos


def texts(hands: Any, selected: Any) -> tuple[bytes, list[int]]:
    """The fingerprint texts of the ``selected`` hands: one buffer, and where each one ends."""
    buf = np.empty(MAX_TEXT * max(len(selected), 1), dtype=np.uint8)
    ends = np.empty(len(selected), dtype=np.int64)
    fingerprint_texts(hands, selected, _HEAD, NAMES, CALL_TEXT, CALL_LEN, buf, ends)
    end = int(ends[-1]) if len(selected) else 0
    return buf[:end].tobytes(), ends.tolist()
