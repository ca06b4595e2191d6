"""The game ids a load has seen, in 32 bytes a game, on disk past 512 KB.

A load routes each line by its ``game_id``: a new id is loaded, a known one is
already present (same content) or quarantined (other content).  A dict of every
id and content hash cost about 200 bytes a game: 90 MB for the 449k games of a
2 GB input, growing with every file.  :class:`KnownIds` keeps the games of the
batch not yet committed in a dict, and every committed game as two 128-bit
numbers -- a hash of its id and the first half of its content hash -- in a few
sorted numpy arrays (:class:`KeyRuns`), looked up for a whole chunk of lines at
once (:meth:`KnownIds.ask`).  Past ``MAX_ROWS`` of them (512 KB) the arrays go to
disk (:class:`~pipeline.diskkeys.DiskKeys`, 2 to 4 bytes a game left in memory), so a
load's memory does not grow with its input.

Two ids, or two contents, are told apart by 128 bits: the first pair to share a
hash is expected after some 10**19 games.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pipeline.keytable import key128

if TYPE_CHECKING:
    import duckdb
    import numpy as np

    from pipeline.diskkeys import DiskKeys

    Array = np.ndarray[Any, Any]


#: The most rows kept in memory (32 bytes each for a game id); past that they go to disk.
#: Small, so that a short input reaches it too: at 4 MB, a Dask load's client
#: peaked 10 to 11 MB higher over 2 GB than over 200 MB (which never spilled),
#: at 512 KB 6 to 7, at the same speed.
MAX_ROWS = 1 << 14


def content_key(digest: str) -> bytes:
    """128 bits of a content hash (the first half of its hex SHA-256)."""
    return bytes.fromhex(digest[:32])


def words(data: bytes, width: int) -> Array:
    """Big-endian bytes as rows of ``width`` uint64 words."""
    import numpy as np

    return np.frombuffer(data, ">u8").reshape(-1, width).astype(np.uint64)


class KeyRuns:
    """128-bit keys, each with ``width`` uint64 words of payload: sorted runs of
    ``(n, 2 + width)`` arrays, merged as they come to similar sizes (so there are
    about log2 of the number of additions of them); past ``max_rows``, every
    run goes to disk.  A key is added once.

    >>> runs = KeyRuns(1)
    >>> runs.add([key128("a"), key128("b")], [[7], [8]])
    >>> runs.add([key128("c")], [[9]])
    >>> found, payloads = runs.lookup([key128("b"), key128("z"), key128("c")])
    >>> found.tolist(), payloads[:, 0].tolist()
    ([True, False, True], [8, 0, 9])
    """

    def __init__(self, width: int, max_rows: int = MAX_ROWS) -> None:
        self.width = width
        self.max_rows = max_rows
        self.runs: list[Array] = []
        self.spilled: DiskKeys | None = None

    def __len__(self) -> int:
        return sum(len(r) for r in self.runs) + (len(self.spilled) if self.spilled is not None else 0)

    def add(self, keys: Sequence[bytes], payloads: Any) -> None:
        if keys:
            self.add_rows(words(b"".join(keys), 2), payloads)

    def add_rows(self, keys: Array, payloads: Any) -> None:
        """:meth:`add`, the keys given as ``(n, 2)`` uint64 rows (high, low)."""
        import numpy as np

        from pipeline.diskkeys import merge_runs

        if not len(keys):
            return
        rows = np.concatenate([np.asarray(keys, np.uint64), np.asarray(payloads, np.uint64)], axis=1)
        self.runs.append(_sorted(rows))
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            last = self.runs.pop()
            self.runs[-1] = merge_runs(self.runs[-1], last)
        if sum(len(r) for r in self.runs) > self.max_rows:
            self._spill()

    def _spill(self) -> None:
        """Move every key to disk (:class:`~pipeline.diskkeys.DiskKeys`), run by run:
        each is sorted already, so no copy of the keys is made (the disk merges them)."""
        from pipeline.diskkeys import DiskKeys

        if self.spilled is None:
            self.spilled = DiskKeys(self.width)
        while self.runs:
            run = self.runs.pop(0)
            self.spilled.add(run[:, 0], run[:, 1], run[:, 2:], presorted=True)

    def lookup(self, keys: Sequence[bytes]) -> tuple[Array, Array]:
        """Whether each key is present, and its payload (zeros where it is not): vectorised."""
        import numpy as np

        return self.lookup_rows(words(b"".join(keys), 2) if keys else np.empty((0, 2), np.uint64))

    def lookup_rows(self, wanted: Array) -> tuple[Array, Array]:
        """:meth:`lookup`, the keys given as ``(n, 2)`` uint64 rows (high, low)."""
        import numpy as np

        found = np.zeros(len(wanted), bool)
        payloads = np.zeros((len(wanted), self.width), np.uint64)
        if not len(wanted) or not len(self):
            return found, payloads
        if self.spilled is not None:
            found, payloads = self.spilled.lookup(wanted[:, 0].copy(), wanted[:, 1].copy())
        for run in self.runs:
            at = np.minimum(np.searchsorted(run[:, 0], wanted[:, 0]), len(run) - 1)
            high = run[at, 0] == wanted[:, 0]
            hit = high & (run[at, 1] == wanted[:, 1])
            found |= hit
            payloads[hit] = run[at[hit], 2:]
            for i in np.flatnonzero(high & ~hit).tolist():  # another key shares the high half: look past it
                j = _row_of(run, int(at[i]), wanted[i, 0], wanted[i, 1])
                if j >= 0:
                    found[i], payloads[i] = True, run[j, 2:]
        return found, payloads

    def keys(self) -> Array:
        """Every key, as ``(n, 2)`` rows sorted by their high halves."""
        import numpy as np

        spilled = list(self.spilled.rows()) if self.spilled is not None else []
        if not self.runs and not spilled:
            return np.empty((0, 2), np.uint64)
        return _sorted(np.concatenate([run[:, :2] for run in [*self.runs, *spilled]]))


def _row_of(rows: Array, at: int, high: Any, low: Any) -> int:
    """The row of key (high, low) among sorted rows, looking from ``at`` (the first
    row whose high half is not below it) over the rows sharing its high half; -1."""
    while at < len(rows) and rows[at, 0] == high:
        if rows[at, 1] == low:
            return at
        at += 1
    return -1


def _sorted(rows: Array) -> Array:
    """Rows in the order of their keys' high halves (the lookups scan the few rows
    sharing one, so the low halves need no order: half the time of a full sort)."""
    import numpy as np

    return rows[np.argsort(rows[:, 0], kind="stable")]


class KnownIds:
    """The content of each game id seen -- stored, or added since the last
    :meth:`committed` -- as far as :meth:`ask` was told of the ids about to be routed.

    >>> known = KnownIds()
    >>> known.add("g1", "aa" * 32)  # admitted into the batch
    >>> known.committed()  # the batch is in the warehouse
    >>> known.ask(["g1", "g2"])
    >>> ("g1" in known, "g2" in known, known.same_content("g1", "aa" * 32), known.same_content("g1", "bb" * 32))
    (True, False, True, False)
    >>> len(known)
    1
    """

    def __init__(self) -> None:
        self.stored = KeyRuns(2)
        #: Added since the last commit.
        self.uncommitted: dict[str, str] = {}
        #: What the last ask found, and what was committed since.
        self.answers: dict[str, bytes] = {}
        #: The keys of the ids of the last ask.
        self.keys: dict[str, bytes] = {}

    @classmethod
    def in_warehouse(cls, con: duckdb.DuckDBPyConnection) -> KnownIds:
        """The games of a warehouse, read in batches (never all at once as strings)."""
        known = cls()
        reader = con.sql("select game_id, content_hash from games").to_arrow_reader(100_000)
        assert reader is not None
        for batch in reader:
            ids, digests = batch.column(0).to_pylist(), batch.column(1).to_pylist()
            known.store(ids, digests)
        return known

    def __len__(self) -> int:
        return len(self.stored) + len(self.uncommitted)

    def ask(self, ids: Iterable[str | None]) -> None:
        """Learn which of ``ids`` are known (the ids of the lines about to be routed)."""
        wanted = list({i for i in ids if i is not None and i not in self.uncommitted})
        self.keys = dict(zip(wanted, map(key128, wanted), strict=True))
        found, payloads = self.stored.lookup(list(self.keys.values()))
        contents = payloads.astype(">u8")
        self.answers = {wanted[i]: contents[i].tobytes() for i in found.nonzero()[0].tolist()}

    def __contains__(self, game_id: object) -> bool:
        return game_id in self.uncommitted or game_id in self.answers

    def same_content(self, game_id: str, digest: str) -> bool:
        """Whether a known id's game has this content hash."""
        stored = (
            content_key(self.uncommitted[game_id]) if game_id in self.uncommitted else self.answers[game_id]
        )
        return stored == content_key(digest)

    def add(self, game_id: str, digest: str) -> None:
        self.uncommitted[game_id] = digest

    def forget(self, game_id: str) -> None:
        """An admitted game taken out of the batch before its commit."""
        self.uncommitted.pop(game_id, None)

    def committed(self) -> None:
        """The batch is in the warehouse: its ids join the stored ones."""
        self.store(list(self.uncommitted), list(self.uncommitted.values()))
        self.answers.update((i, content_key(d)) for i, d in self.uncommitted.items())
        self.uncommitted = {}

    def store(self, ids: list[str], digests: list[str]) -> None:
        """Games in the warehouse (none of them known yet), kept compact: what
        :meth:`ask` then finds, without passing through :meth:`add`."""
        keys = [self.keys.get(i) or key128(i) for i in ids]
        self.stored.add(keys, words(b"".join(map(content_key, digests)), 2))

    def ids(self) -> KnownIdSet:
        """The known ids as a set a worker can test lines against (keys only)."""
        import numpy as np

        keys = self.stored.keys()
        if self.uncommitted:
            keys = _sorted(np.concatenate([keys, words(b"".join(map(key128, self.uncommitted)), 2)]))
        return KnownIdSet(keys)


class KnownIdSet:
    """Game ids as sorted 128-bit keys: ``game_id in ids``, one line at a time.

    >>> known = KnownIds()
    >>> known.add("g1", "aa" * 32)
    >>> ids = known.ids()
    >>> ("g1" in ids, "g2" in ids, len(ids))
    (True, False, 1)
    """

    def __init__(self, keys: Array) -> None:
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, game_id: object) -> bool:
        if not isinstance(game_id, str) or not len(self.keys):
            return False
        import numpy as np

        high, low = words(key128(game_id), 2)[0]
        return _row_of(self.keys, int(np.searchsorted(self.keys[:, 0], high)), high, low) >= 0
