"""A set of 128-bit keys, each with a payload, in 24 bytes a slot: no Python object per key.

``validate`` remembers every game and every distinct hand it has seen, to
report repeats and copies; a dict of Python strings cost about 200 bytes an
entry.  :class:`KeyTable` is an open-addressing hash table (linear probing)
over three numpy arrays: the key's high and low 64 bits and an int64 payload,
-1 marking an empty slot.  It doubles before a batch could take it above 70%
full, so it holds 34 to 69 bytes a key.

It is used a batch at a time (:meth:`KeyTable.insert_or_get`): one call walks
the whole batch in a kernel, so a caller does no Python work per key.  The
kernel is the plain Python function :func:`insert_rows`; for a large input it
is compiled by numba (``compiled=True``: its machine code cached beside this
file), while a small input runs it as it is and never imports numba.

>>> table = KeyTable()
>>> hi = np.array([1, 2, 1], np.uint64)
>>> lo = np.array([5, 5, 5], np.uint64)
>>> table.insert_or_get(hi, lo, np.array([10, 11, 12])).tolist()  # the third is the first's key
[-1, -1, 10]
>>> table.insert_or_get(hi[1:], lo[1:], np.array([20, 21])).tolist(), len(table)
([11, 10], 2)
"""

from __future__ import annotations

from collections.abc import Callable
from hashlib import blake2b
from typing import Any

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
#: The kernel's signature: the table's arrays, the rows to insert, where to write what was there.
Kernel = Callable[[U64, U64, I64, U64, U64, I64, I64], int]

#: A payload never stored: an empty slot's, and what :meth:`KeyTable.insert_or_get` gives for a new key.
EMPTY = -1
#: The table doubles before a batch could fill more than this share of its slots.
MAX_LOAD = 0.7
#: 2**64 over the golden ratio: multiplying by it spreads a key's bits over the slot's
#: (keys are hashes, but a test's or a caller's may be small numbers).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
HALF = np.uint64(32)


def insert_rows(
    table_hi: U64, table_lo: U64, table_payload: I64, hi: U64, lo: U64, payload: I64, out: I64
) -> int:
    """Insert rows ``(hi, lo, payload)`` in order into a table with free slots
    (its length a power of two), each new key with its payload; ``out`` gets
    the payload stored before each row (an earlier row of the batch counts),
    or -1 for a new key.  A row whose payload is -1 is an empty slot: it is
    skipped, so a table's own arrays can be inserted into a larger table.
    Returns the number of keys added."""
    mask = np.uint64(len(table_hi) - 1)
    wrap = len(table_hi) - 1
    added = 0
    for i in range(len(hi)):
        out[i] = EMPTY
        if payload[i] < 0:
            continue
        h = hi[i]
        low = lo[i]
        mixed = ((h * GOLDEN) ^ low) * GOLDEN
        slot = np.int64((mixed ^ (mixed >> HALF)) & mask)
        while table_payload[slot] >= 0 and (table_hi[slot] != h or table_lo[slot] != low):
            slot = (slot + 1) & wrap
        if table_payload[slot] >= 0:
            out[i] = table_payload[slot]
        else:
            table_hi[slot] = h
            table_lo[slot] = low
            table_payload[slot] = payload[i]
            added += 1
    return added


_COMPILED: list[Kernel] = []


def kernel(compiled: bool) -> Kernel:
    """:func:`insert_rows`, compiled by numba when asked for and numba imports
    (compiled once a machine: ``cache=True``).  The machine code is loaded at
    once (a first call), so that processes forked after share it."""
    if not compiled:
        return insert_rows
    if not _COMPILED:
        try:
            import numba
        except ImportError:  # numba missing or broken: the plain function does it, slower
            _COMPILED.append(insert_rows)
        else:
            compiled_rows = numba.njit(cache=True, nogil=True)(insert_rows)
            keys, rows = np.zeros(0, np.uint64), np.zeros(0, np.int64)
            compiled_rows(keys, keys, rows, keys, keys, rows, rows)  # loads the machine code now
            _COMPILED.append(compiled_rows)
    return _COMPILED[0]


class KeyTable:
    """128-bit keys, each stored once with the payload (>= 0) it came with."""

    def __init__(self, compiled: bool = False, capacity: int = 1024) -> None:
        size = 1 << max(capacity - 1, 1).bit_length()
        self.hi: U64 = np.zeros(size, np.uint64)
        self.lo: U64 = np.zeros(size, np.uint64)
        self.payload: I64 = np.full(size, EMPTY, np.int64)
        self.count = 0
        self._kernel = kernel(compiled)

    def __len__(self) -> int:
        return self.count

    @property
    def nbytes(self) -> int:
        return self.hi.nbytes + self.lo.nbytes + self.payload.nbytes

    def insert_or_get(self, hi: U64, lo: U64, payload: Any) -> I64:
        """For each key in order: the payload stored with it, or -1 when it is new
        (it is then stored with its ``payload``; a key repeated in the batch finds
        its first occurrence's)."""
        rows = np.ascontiguousarray(payload, np.int64)
        if len(rows) and int(rows.min()) < 0:
            raise ValueError("a payload must be >= 0")
        self._make_room(len(rows))
        out = np.empty(len(rows), np.int64)
        hi, lo = np.ascontiguousarray(hi, np.uint64), np.ascontiguousarray(lo, np.uint64)
        with np.errstate(over="ignore"):  # the slot's hash wraps around, as it does compiled
            self.count += self._kernel(self.hi, self.lo, self.payload, hi, lo, rows, out)
        return out

    def _make_room(self, coming: int) -> None:
        """Double the table until ``coming`` more keys keep it at most ``MAX_LOAD`` full."""
        size = len(self.hi)
        while self.count + coming > MAX_LOAD * size:
            size *= 2
        if size == len(self.hi):
            return
        old = self.hi, self.lo, self.payload
        self.hi, self.lo = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
        self.payload = np.full(size, EMPTY, np.int64)
        with np.errstate(over="ignore"):
            self._kernel(self.hi, self.lo, self.payload, *old, np.empty(len(old[0]), np.int64))


def key128(data: str | bytes | memoryview) -> bytes:
    """128 bits of a text or of bytes (BLAKE2b); a text's lone surrogates are kept."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return blake2b(data, digest_size=16).digest()


def split_keys(data: bytes) -> tuple[U64, U64]:
    """Big-endian 16-byte keys, concatenated, as their high and low 64 bits."""
    words = np.frombuffer(data, ">u8").astype(np.uint64)
    return np.ascontiguousarray(words[0::2]), np.ascontiguousarray(words[1::2])
