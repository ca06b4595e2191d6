"""A set of 128-bit keys, each with a payload, in 24 bytes a slot: no Python object per key.

``validate`` remembers every game and every distinct hand it has seen, to
report repeats and copies; a dict of Python strings cost about 200 bytes an
entry.  :class:`KeyTable` is an open-addressing hash table (linear probing)
over three numpy arrays: the key's high and low 64 bits and an int64 payload,
-1 marking an empty slot.  It doubles before a batch could take it above 70%
full, so it holds 34 to 69 bytes a key.  It grows to ``max_slots`` at most
(768 KB by default): past that its keys go to disk (:class:`~pipeline.diskkeys.DiskKeys`,
2 to 3 bytes a key left in memory) and it starts again empty.

It is used a batch at a time (:meth:`KeyTable.insert_or_get`), in numpy
operations over the whole batch: a round of probing moves every key still
looking one slot on, so the work left in Python is a few calls a round, not
one a key.  No numba: ``validate``'s main process, which keeps the tables,
would pay over half a second loading it, before its workers could start.

>>> table = KeyTable()
>>> hi = np.array([1, 2, 1], np.uint64)
>>> lo = np.array([5, 5, 5], np.uint64)
>>> table.insert_or_get(hi, lo, np.array([10, 11, 12])).tolist()  # the third is the first's key
[-1, -1, 10]
>>> table.insert_or_get(hi[1:], lo[1:], np.array([20, 21])).tolist(), len(table)
([11, 10], 2)
"""

from __future__ import annotations

from hashlib import blake2b
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pipeline.diskkeys import DiskKeys

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: A payload never stored: an empty slot's, and what :meth:`KeyTable.insert_or_get` gives for a new key.
EMPTY = -1
#: The table doubles before a batch could fill more than this share of its slots.
MAX_LOAD = 0.7
#: The most slots a table has (24 bytes each) before its keys go to disk.  Small, so
#: that a short input reaches it too: ``validate``'s memory then does not depend on
#: its input's length.  With its three tables at 3 MB each, it peaked 9 MB higher
#: over 2 GB than over 200 MB (which did not spill; the largest of three runs); at
#: 768 KB, 2 to 7 MB higher, and 6 MB lower over 200 MB, at the same speed.
MAX_SLOTS = 1 << 15
#: 2**64 over the golden ratio: multiplying by it spreads a key's bits over the slot's
#: (keys are hashes, but a test's or a caller's may be small numbers).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
HALF = np.uint64(32)


def _home(hi: U64, lo: U64, mask: np.uint64) -> I64:
    """Each key's first slot (its bits mixed: keys are hashes, but a caller's may be small numbers)."""
    mixed = ((hi * GOLDEN) ^ lo) * GOLDEN  # arrays wrap around silently
    return ((mixed ^ (mixed >> HALF)) & mask).astype(np.int64)


def insert_rows(
    table_hi: U64, table_lo: U64, table_payload: I64, hi: U64, lo: U64, payload: I64
) -> tuple[I64, int]:
    """Insert rows ``(hi, lo, payload)``, as if one by one in order, into a table
    with free slots for them all (its length a power of two): each new key with
    its payload.  Returns the payload stored before each row (an earlier row of
    the batch counts), or -1 for a new key, and the number of keys added.

    Linear probing, a round for every key at once: a key finds its own in its
    slot (found), or an empty slot (the first row there in the batch takes it,
    the others look again at the same slot), or another key (it moves on)."""
    mask = np.uint64(len(table_hi) - 1)
    out = np.full(len(hi), EMPTY, np.int64)
    slot = _home(hi, lo, mask)
    rows = np.arange(len(hi))  # the rows still looking, in batch order
    added = 0
    while len(rows):
        at = slot[rows]
        there = table_payload[at]
        taken = there >= 0
        found = taken & (table_hi[at] == hi[rows]) & (table_lo[at] == lo[rows])
        out[rows[found]] = there[found]
        _, first = np.unique(at[~taken], return_index=True)  # the first row at each empty slot
        new, into = rows[~taken][first], at[~taken][first]
        table_hi[into], table_lo[into], table_payload[into] = hi[new], lo[new], payload[new]
        added += len(new)
        moving = rows[taken & ~found]
        slot[moving] = (slot[moving] + 1) & int(mask)
        waiting = np.ones(len(rows), bool)
        waiting[found] = False
        waiting[np.flatnonzero(~taken)[first]] = False
        rows = rows[waiting]
    return out, added


class KeyTable:
    """128-bit keys, each stored once with the payload (>= 0) it came with."""

    def __init__(self, capacity: int = 1024, max_slots: int = MAX_SLOTS) -> None:
        self.max_slots = max_slots
        self.spilled: DiskKeys | None = None
        self._empty(capacity)

    def _empty(self, capacity: int) -> None:
        size = 1 << max(capacity - 1, 1).bit_length()
        self.hi: U64 = np.zeros(size, np.uint64)
        self.lo: U64 = np.zeros(size, np.uint64)
        self.payload: I64 = np.full(size, EMPTY, np.int64)
        self.count = 0

    def __len__(self) -> int:
        return self.count + (len(self.spilled) if self.spilled is not None else 0)

    @property
    def nbytes(self) -> int:
        """The memory held (the keys gone to disk count their filter only)."""
        kept = self.hi.nbytes + self.lo.nbytes + self.payload.nbytes
        return kept + (self.spilled.nbytes if self.spilled is not None else 0)

    def insert_or_get(self, hi: U64, lo: U64, payload: Any) -> I64:
        """For each key in order: the payload stored with it, or -1 when it is new
        (it is then stored with its ``payload``; a key repeated in the batch finds
        its first occurrence's)."""
        rows = np.ascontiguousarray(payload, np.int64)
        if len(rows) and int(rows.min()) < 0:
            raise ValueError("a payload must be >= 0")
        hi, lo = np.asarray(hi, np.uint64), np.asarray(lo, np.uint64)
        self._make_room(len(rows))  # first: a spill it makes must be looked up below
        out = np.full(len(rows), EMPTY, np.int64)
        fresh: slice | I64 = slice(None)  # the keys not on disk: those the table answers
        if self.spilled is not None:
            found, stored = self.spilled.lookup(hi, lo)
            out[found] = stored[found, 0].view(np.int64)
            fresh = np.flatnonzero(~found)
        out[fresh], added = insert_rows(self.hi, self.lo, self.payload, hi[fresh], lo[fresh], rows[fresh])
        self.count += added
        return out

    def _make_room(self, coming: int) -> None:
        """Double the table until ``coming`` more keys keep it at most ``MAX_LOAD``
        full; past ``max_slots``, move its keys to disk and start again."""
        size = len(self.hi)
        while self.count + coming > MAX_LOAD * size:
            size *= 2
        if size == len(self.hi):
            return
        if size > self.max_slots and self.count:
            self._spill()
            self._make_room(coming)
            return
        old = self._stored()
        # one array replaced at a time: the old one is freed before the next is made
        self.hi = np.zeros(size, np.uint64)
        self.lo = np.zeros(size, np.uint64)
        self.payload = np.full(size, EMPTY, np.int64)
        insert_rows(self.hi, self.lo, self.payload, *old)

    def _stored(self) -> tuple[U64, U64, I64]:
        """The keys held in memory and their payloads (copies)."""
        stored = self.payload >= 0
        return self.hi[stored], self.lo[stored], self.payload[stored]

    def _spill(self) -> None:
        """Move the keys to disk, sorted in the table's own arrays, which then start
        again empty: no second table is made.  The spill's own memory is 0.8 of the
        table's at its budget (the keys' order, the filter's probes), against 1.4
        when it copied the keys out and made a new table."""
        from pipeline.diskkeys import DiskKeys

        if self.spilled is None:
            self.spilled = DiskKeys(width=1)
        n = self._sort_stored_to_front()
        self.spilled.add(self.hi[:n], self.lo[:n], self.payload[:n].view(np.uint64)[:, None], presorted=True)
        if len(self.hi) > self.max_slots:  # grown past its budget for one large batch
            self._empty(self.max_slots)
            return
        self.hi.fill(0)
        self.lo.fill(0)
        self.payload.fill(EMPTY)
        self.count = 0

    def _sort_stored_to_front(self) -> int:
        """Move the stored keys to the front of the arrays, in the order of their high
        halves (what :meth:`DiskKeys.add <pipeline.diskkeys.DiskKeys.add>` takes
        ``presorted``), one array at a time; returns how many there are."""
        stored = np.flatnonzero(self.payload >= 0)
        order = stored[np.argsort(self.hi[stored], kind="stable")]
        del stored
        for column in (self.hi, self.lo, self.payload):
            column[: len(order)] = column[order]
        return len(order)


def key128(data: str | bytes | memoryview) -> bytes:
    """128 bits of a text or of bytes (BLAKE2b); a text's lone surrogates are kept."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return blake2b(data, digest_size=16).digest()


def split_keys(data: bytes) -> tuple[U64, U64]:
    """Big-endian 16-byte keys, concatenated, as their high and low 64 bits."""
    words = np.frombuffer(data, ">u8").astype(np.uint64)
    return np.ascontiguousarray(words[0::2]), np.ascontiguousarray(words[1::2])
