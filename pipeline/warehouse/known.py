"""The game ids a load has seen, in 32 bytes a game.

A load routes each line by its ``game_id``: a new id is loaded, a known one is
already present (same content) or quarantined (other content).  A dict of every
id and content hash cost about 200 bytes a game: 90 MB for the 449k games of a
2 GB input, growing with every file.  :class:`KnownIds` keeps the games of the
batch not yet committed in a dict, and every committed game as two 128-bit
numbers -- a hash of its id and the first half of its content hash -- in a few
sorted numpy arrays, looked up for a whole chunk of lines at once
(:meth:`KnownIds.ask`).

Two ids, or two contents, are told apart by 128 bits: the first pair to share a
hash is expected after some 10**19 games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import numpy as np


def id_key(game_id: str) -> bytes:
    """128 bits of a game id (BLAKE2b)."""
    return hashlib.blake2b(game_id.encode(), digest_size=16).digest()


def content_key(digest: str) -> bytes:
    """128 bits of a content hash (the first half of its SHA-256)."""
    return bytes.fromhex(digest[:32])


class _Runs:
    """Sorted runs of (id key, content key) pairs, as ``(n, 4)`` arrays of uint64
    (id high, id low, content high, content low) sorted by id; runs of similar size
    are merged, so there are about log2(n / batch) of them."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray[Any, Any]] = []

    def __len__(self) -> int:
        return sum(len(r) for r in self.runs)

    def add(self, pairs: list[tuple[bytes, bytes]]) -> None:
        import numpy as np

        if not pairs:
            return
        data = np.frombuffer(b"".join(i + c for i, c in pairs), ">u8").reshape(-1, 4).astype(np.uint64)
        self.runs.append(_sorted(data))
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            last = self.runs.pop()
            self.runs[-1] = _sorted(np.concatenate([self.runs[-1], last]))

    def find(self, keys: list[bytes]) -> list[bytes | None]:
        """The content key of each id key, or None."""
        import numpy as np

        found: list[bytes | None] = [None] * len(keys)
        if not keys or not self.runs:
            return found
        wanted = np.frombuffer(b"".join(keys), ">u8").reshape(-1, 2).astype(np.uint64)
        for run in self.runs:
            at = np.searchsorted(run[:, 0], wanted[:, 0])
            at[at == len(run)] = len(run) - 1
            for i in np.flatnonzero(run[at, 0] == wanted[:, 0]).tolist():
                j = int(at[i])
                while j < len(run) and run[j, 0] == wanted[i, 0]:  # ids sharing the high half
                    if run[j, 1] == wanted[i, 1]:
                        found[i] = run[j, 2:].astype(">u8").tobytes()
                        break
                    j += 1
        return found


def _sorted(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    import numpy as np

    return data[np.lexsort((data[:, 1], data[:, 0]))]


class KnownIds:
    """The content of each game id the warehouse holds or the batch admits, as far
    as :meth:`ask` was told of the ids about to be routed.

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
        self.stored = _Runs()
        #: Admitted since the last commit.
        self.uncommitted: dict[str, str] = {}
        #: What the last ask found, and what was committed since.
        self.answers: dict[str, bytes] = {}

    @classmethod
    def in_warehouse(cls, con: duckdb.DuckDBPyConnection) -> KnownIds:
        """The games of a warehouse, read in batches (never all at once as strings)."""
        known = cls()
        reader = con.sql("select game_id, content_hash from games").to_arrow_reader(100_000)
        assert reader is not None
        for batch in reader:
            ids, digests = batch.column(0).to_pylist(), batch.column(1).to_pylist()
            known.stored.add([(id_key(i), content_key(d)) for i, d in zip(ids, digests, strict=True)])
        return known

    def __len__(self) -> int:
        return len(self.stored) + len(self.uncommitted)

    def ask(self, ids: Iterable[str | None]) -> None:
        """Learn which of ``ids`` are known (the ids of the lines about to be routed)."""
        wanted = list({i for i in ids if i is not None and i not in self.uncommitted})
        found = self.stored.find([id_key(i) for i in wanted])
        self.answers = {i: c for i, c in zip(wanted, found, strict=True) if c is not None}

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
        pairs = [(id_key(i), content_key(d)) for i, d in self.uncommitted.items()]
        self.stored.add(pairs)
        self.answers.update((i, c) for i, (_, c) in zip(self.uncommitted, pairs, strict=True))
        self.uncommitted = {}

    def ids(self) -> KnownIdSet:
        """The known ids as a set a worker can test lines against (id keys only)."""
        import numpy as np

        keys = [run[:, :2] for run in self.stored.runs]
        merged = np.concatenate(keys) if keys else np.empty((0, 2), np.uint64)
        extra = [id_key(i) for i in self.uncommitted]
        if extra:
            merged = np.concatenate([merged, np.frombuffer(b"".join(extra), ">u8").reshape(-1, 2)])
        return KnownIdSet(_sorted(merged.astype(np.uint64)))


class KnownIdSet:
    """Game ids as sorted 128-bit keys: ``game_id in ids``, one line at a time.

    >>> known = KnownIds()
    >>> known.add("g1", "aa" * 32)
    >>> ids = known.ids()
    >>> ("g1" in ids, "g2" in ids, len(ids))
    (True, False, 1)
    """

    def __init__(self, keys: np.ndarray[Any, Any]) -> None:
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, game_id: object) -> bool:
        if not isinstance(game_id, str) or not len(self.keys):
            return False
        import numpy as np

        high, low = np.frombuffer(id_key(game_id), ">u8").astype(np.uint64)
        at = int(np.searchsorted(self.keys[:, 0], high))
        while at < len(self.keys) and self.keys[at, 0] == high:
            if self.keys[at, 1] == low:
                return True
            at += 1
        return False
