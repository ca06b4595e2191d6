"""128-bit keys with payloads, kept on disk once they outgrow a memory budget.

``validate`` remembers every game and every distinct hand it has seen, and a
load every game id; in memory each key costs 24 to 69 bytes, so a run over a
hundred million hands would need gigabytes.  Past a budget, the in-memory
tables (:class:`~pipeline.keytable.KeyTable`,
:class:`~pipeline.warehouse.known.KeyRuns`) hand their keys to
:class:`DiskKeys`: sorted runs of rows in files of a temporary folder (it
follows ``TMPDIR``), merged as they come to similar sizes.  What stays in
memory is 2 to 3 bytes a key: a Bloom filter that rules out, without reading the
disk, every key never added but about one in two thousand, and each run's
first key of every block of rows.

Keys are looked up a batch at a time, in numpy calls over the whole batch; the
disk is read only for the keys the filter lets through (a key added before, or
a rare false positive), one block of rows for each.

>>> keys = DiskKeys(width=1)
>>> hi, lo = np.array([3, 1, 2], np.uint64), np.array([30, 10, 20], np.uint64)
>>> keys.add(hi, lo, np.array([[300], [100], [200]], np.uint64))
>>> found, payloads = keys.lookup(np.array([2, 9], np.uint64), np.array([20, 90], np.uint64))
>>> found.tolist(), payloads[:, 0].tolist(), len(keys)
([True, False], [200, 0], 3)
>>> keys.close()
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pipeline.atomic import scratch_error, scratch_folder

U64 = npt.NDArray[np.uint64]
Rows = npt.NDArray[np.uint64]

#: Rows of a run between two keys kept in memory: a lookup reads at most this many (or twice).
BLOCK = 256
#: A run is read whole when a lookup's keys fall in more than this share of its blocks.
SCAN_SHARE = 1 / 16
#: Rows read at a time when runs are merged, scanned or the filter is rebuilt.
CHUNK = 1 << 14
#: Bits of the Bloom filter a key (at most 1.5 times that many when it has just grown), and probes a key.
BITS_PER_KEY = 16
PROBES = 11
#: A filter outgrown is made again for this many times the keys it was made for (or for all the keys, if more).
GROWTH = 1.5
#: Keys probed at a time (the probes of a key take 88 bytes while they are worked out):
#: at 4,096, the probes of a 768 KB key table's spill took twice the table.
SLICE = 1024
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIXER = np.uint64(0xBF58476D1CE4E5B9)


class Bloom:
    """A Bloom filter over 128-bit keys (already hashes: their halves make the probes).

    >>> bloom = Bloom(100)
    >>> bloom.add(np.array([1, 2], np.uint64), np.array([7, 8], np.uint64))
    >>> bloom.may_hold(np.array([1, 2, 1], np.uint64), np.array([7, 8, 8], np.uint64)).tolist()
    [True, True, False]
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(capacity, 1024)
        # bits, whole bytes: not rounded up to a power of two, which took up to twice the memory
        size = -(-self.capacity * BITS_PER_KEY // 8) * 8
        self.bits = np.zeros(size // 8, np.uint8)
        self.size = np.uint64(size)

    @classmethod
    def holding_anything(cls) -> Bloom:
        """A small filter that may hold every key (all its bits set): a lookup through
        it goes to the disk.

        >>> Bloom.holding_anything().may_hold(np.array([7], np.uint64), np.array([9], np.uint64)).tolist()
        [True]
        """
        bloom = cls(0)
        bloom.bits.fill(0xFF)
        return bloom

    def _probes(self, hi: U64, lo: U64) -> U64:
        """Each key's bit positions, ``(PROBES, n)`` (double hashing)."""
        first = (hi * GOLDEN) ^ (lo >> np.uint64(29))
        step = ((lo * MIXER) ^ (hi >> np.uint64(31))) | np.uint64(1)
        steps = np.arange(PROBES, dtype=np.uint64)[:, None]
        probes: U64 = (first[None, :] + steps * step[None, :]) % self.size  # arrays wrap around silently
        return probes

    def add(self, hi: U64, lo: U64) -> None:
        for at in range(0, len(hi), SLICE):
            where, bit = _byte_and_bit(self._probes(hi[at : at + SLICE], lo[at : at + SLICE]).ravel())
            np.bitwise_or.at(self.bits, where, bit)

    def may_hold(self, hi: U64, lo: U64) -> npt.NDArray[np.bool_]:
        held = np.empty(len(hi), bool)
        for at in range(0, len(hi), SLICE):
            where, bit = _byte_and_bit(self._probes(hi[at : at + SLICE], lo[at : at + SLICE]))
            held[at : at + SLICE] = np.all(self.bits[where] & bit != 0, axis=0)
        return held


def merge_runs(first: Rows, then: Rows) -> Rows:
    """Two runs of rows, each in the order of its keys' high halves (the first
    column), as one in that order, the first's rows before the other's among equal
    halves -- what a stable sort of both together gives, without sorting again:
    one copy of the rows, and no order of them all.

    >>> merge_runs(np.array([[1, 10], [3, 30]], np.uint64), np.array([[1, 11], [2, 20]], np.uint64)).tolist()
    [[1, 10], [1, 11], [2, 20], [3, 30]]
    """
    rows = np.empty((len(first) + len(then), first.shape[1]), first.dtype)
    at = np.searchsorted(first[:, 0], then[:, 0], "right") + np.arange(len(then))
    placed = np.zeros(len(rows), bool)
    placed[at] = True
    rows[at] = then
    rows[~placed] = first
    return rows


def _byte_and_bit(probes: U64) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint8]]:
    """Where each probed bit is: its byte of the filter, and its mask in that byte."""
    byte = (probes >> np.uint64(3)).astype(np.intp)
    return byte, np.left_shift(np.uint8(1), (probes & np.uint64(7)).astype(np.uint8))


def _close(fds: set[int], folder: tempfile.TemporaryDirectory[str]) -> None:
    for fd in fds:
        os.close(fd)
    fds.clear()
    folder.cleanup()


def _write_all(fd: int, data: memoryview) -> None:
    while data:
        data = data[os.write(fd, data) :]


@dataclass
class _Run:
    """One sorted run on disk: its file, its length, and the first key of every block of rows."""

    fd: int
    path: str
    rows: int
    firsts: U64


class DiskKeys:
    """Keys, each added once with ``width`` uint64 words of payload, in sorted runs
    on disk; the runs are ordered by their keys' high halves only (the rows
    sharing one are few and scanned)."""

    def __init__(
        self,
        width: int,
        folder: str | None = None,
        block: int = BLOCK,
        chunk: int = CHUNK,
        scan_share: float = SCAN_SHARE,
    ) -> None:
        self.width = width
        self.folder = folder
        self.block, self.chunk, self.scan_share = block, chunk, scan_share
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self.runs: list[_Run] = []
        self.bloom = Bloom(0)
        self.count = 0
        self._made = 0
        #: The runs' open files, closed with the folder removed by ``_closing``.
        self._fds: set[int] = set()
        self._closing: Callable[[], Any] = lambda: None

    def __len__(self) -> int:
        return self.count

    @property
    def nbytes(self) -> int:
        """The memory held (the filter and the runs' block keys; the rows are on disk)."""
        return self.bloom.bits.nbytes + sum(run.firsts.nbytes for run in self.runs)

    def add(self, hi: U64, lo: U64, payloads: Any, *, presorted: bool = False) -> None:
        """Add keys not held yet (the caller looked them up), with their payloads
        (``(n, width)``), as a new run: written ``chunk`` rows at a time, so that
        no copy of them all is made (nor of their order, when they come
        ``presorted`` by their high halves)."""
        if not len(hi):
            return
        payloads = np.asarray(payloads, np.uint64).reshape(len(hi), self.width)
        self._grow_bloom(self.count + len(hi))
        self.bloom.add(hi, lo)
        order = None if presorted else np.argsort(hi, kind="stable")

        def pieces() -> Any:
            for at in range(0, len(hi), self.chunk):
                rows = slice(at, at + self.chunk) if order is None else order[at : at + self.chunk]
                yield np.concatenate([hi[rows, None], lo[rows, None], payloads[rows]], axis=1)

        self.runs.append(self._write(pieces()))
        self.count += len(hi)
        while len(self.runs) > 1 and self.runs[-2].rows <= 2 * self.runs[-1].rows:
            last = self.runs.pop()
            self.runs[-1] = self._merged(self.runs[-1], last)

    def lookup(self, hi: U64, lo: U64) -> tuple[npt.NDArray[np.bool_], Rows]:
        """Whether each key is held, and its payload (zeros where it is not)."""
        found = np.zeros(len(hi), bool)
        payloads = np.zeros((len(hi), self.width), np.uint64)
        if not self.count or not len(hi):
            return found, payloads
        hi, lo = np.asarray(hi, np.uint64), np.asarray(lo, np.uint64)
        asked = np.flatnonzero(self.bloom.may_hold(hi, lo))
        for run in self.runs:
            asked = asked[~found[asked]]
            if not len(asked):
                break
            self._look_in(run, hi, lo, asked, found, payloads)
        return found, payloads

    def _look_in(
        self, run: _Run, hi: U64, lo: U64, asked: npt.NDArray[np.intp], found: Any, payloads: Rows
    ) -> None:
        """Find keys ``asked`` (their indices) in one run: each in the blocks that
        may hold its high half (one, or two when a run of equal halves spans a
        border); or, when they are in more than ``scan_share`` of its blocks (a
        file loaded again: every id known), by reading the whole run."""
        first = np.maximum(np.searchsorted(run.firsts, hi[asked], "left") - 1, 0)
        last = np.maximum(np.searchsorted(run.firsts, hi[asked], "right") - 1, 0)
        spans = np.stack([first, last], axis=1)
        unique, which = np.unique(spans, axis=0, return_inverse=True)
        if len(unique) > self.scan_share * len(run.firsts):
            self._scan(run, hi, lo, asked, found, payloads)
            return
        for span, (a, b) in enumerate(unique.tolist()):
            rows = self._read(run, a * self.block, (b + 1) * self.block)
            keys = asked[which.ravel() == span]
            match = (rows[None, :, 0] == hi[keys, None]) & (rows[None, :, 1] == lo[keys, None])
            hit = match.any(axis=1)
            found[keys[hit]] = True
            payloads[keys[hit]] = rows[match[hit].argmax(axis=1), 2:]

    def _scan(
        self, run: _Run, hi: U64, lo: U64, asked: npt.NDArray[np.intp], found: Any, payloads: Rows
    ) -> None:
        """Find keys ``asked`` in one run read a chunk at a time: each key among the
        rows sharing its high half in each chunk (one row, but for a rare few)."""
        for start in range(0, run.rows, self.chunk):
            rows = self._read(run, start, start + self.chunk)
            column = np.ascontiguousarray(rows[:, 0])
            here = asked[(hi[asked] >= column[0]) & (hi[asked] <= column[-1])]
            at = np.searchsorted(column, hi[here], "left")
            count = np.searchsorted(column, hi[here], "right") - at
            one, where = here[count == 1], at[count == 1]
            hit = rows[where, 1] == lo[one]
            found[one[hit]] = True
            payloads[one[hit]] = rows[where[hit], 2:]
            many = count > 1
            for key, a, n in zip(here[many].tolist(), at[many].tolist(), count[many].tolist(), strict=True):
                same = np.flatnonzero(rows[a : a + n, 1] == lo[key])
                if len(same):
                    found[key], payloads[key] = True, rows[a + same[0], 2:]

    def rows(self) -> Any:
        """Every row, a chunk at a time (run by run)."""
        for run in self.runs:
            for start in range(0, run.rows, self.chunk):
                yield self._read(run, start, start + self.chunk)

    def close(self) -> None:
        """Remove the runs (also done when the object is collected, or at exit)."""
        self._closing()
        self.runs = []
        self._dir = None

    def _grow_bloom(self, keys: int) -> None:
        """A filter for ``keys`` keys: when it outgrows the one it has, a filter
        :data:`GROWTH` times as big, given every key held again (read back from the runs).  The old one
        is let go first, so that the two are never held at once; until the new one
        is whole (or if the runs cannot be read back), a small filter that may hold
        every key stands in: lookups then go to the disk, and find what is there."""
        if keys <= self.bloom.capacity:
            return
        capacity = max(keys, int(GROWTH * self.bloom.capacity))
        self.bloom = Bloom.holding_anything()
        bloom = Bloom(capacity)
        for rows in self.rows():
            bloom.add(np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 1]))
        self.bloom = bloom

    def _read(self, run: _Run, start: int, stop: int) -> Rows:
        stop = min(stop, run.rows)
        size = (2 + self.width) * 8
        data = os.pread(run.fd, (stop - start) * size, start * size)
        return np.frombuffer(data, np.uint64).reshape(-1, 2 + self.width)

    def _write(self, pieces: Any) -> _Run:
        """A new run of sorted ``pieces`` (an iterable of row arrays, in order)."""
        path = self._new_path()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        self._fds.add(fd)
        firsts: list[U64] = []
        written = 0
        try:
            for piece in pieces:
                # a copy, not a view: a view would keep every piece in memory
                firsts.append(piece[(-written) % self.block :: self.block, 0].copy())
                _write_all(fd, np.ascontiguousarray(piece).data.cast("B"))
                written += len(piece)
        except OSError as e:
            self._drop(fd, path)
            raise scratch_error("the keys of the games seen", os.path.dirname(path), e) from e
        return _Run(fd, path, written, np.concatenate(firsts) if firsts else np.empty(0, np.uint64))

    def _merged(self, a: _Run, b: _Run) -> _Run:
        run = self._write(self._merge(a, b))
        for old in (a, b):
            self._drop(old.fd, old.path)
        return run

    def _drop(self, fd: int, path: str) -> None:
        self._fds.discard(fd)
        os.close(fd)
        os.unlink(path)

    def _merge(self, a: _Run, b: _Run) -> Any:
        """The rows of two runs in order, ``chunk`` rows of each read at a time: each
        step gives every row up to the smaller of the two chunks' last keys."""
        at = [0, 0]
        runs = (a, b)
        while at[0] < a.rows or at[1] < b.rows:
            chunks = [self._read(run, at[i], at[i] + self.chunk) for i, run in enumerate(runs)]
            ends = [int(c[-1, 0]) for c in chunks if len(c)]
            cut = np.uint64(min(ends))
            taken = []
            for i, chunk in enumerate(chunks):
                upto = int(np.searchsorted(chunk[:, 0], cut, "right"))
                taken.append(chunk[:upto])
                at[i] += upto
            yield merge_runs(*taken)

    def _new_path(self) -> str:
        if self._dir is None:
            try:
                self._dir = scratch_folder("keys", self.folder)
            except OSError as e:
                raise scratch_error(
                    "the keys of the games seen", self.folder or tempfile.gettempdir(), e
                ) from e
            self._closing = weakref.finalize(self, _close, self._fds, self._dir)
        self._made += 1
        return os.path.join(self._dir.name, f"run-{self._made}.u64")
