"""Routing the lines of a load spread over workers: loaded, already present or quarantined.

A worker prepares a split's lines and ends with a :class:`LineFact` for each;
the client then routes every split, in input order, by the rules of a load
into an empty warehouse: the first loadable line of a ``game_id`` is loaded; a
later line of that id is already present (same content) or quarantined as a
``duplicate_game``; a line that cannot be loaded is quarantined.  A line is
quarantined once: the same content at the same line number again (a file given
twice, or with its compressed copy) is already present, as in a load into
DuckDB.  The content of a line that is a game is the game's content hash, as
for games; of any other line, its bytes.

The client routes for every worker, so its work per line bounds a cluster: a
split's facts cross to it as columns (:class:`Facts`), each id and content hash
made a 128-bit key on the worker, and :class:`Router` decides a whole split in
numpy operations.  Routing them one by one in Python, with the keys made by the
client, took 2.5 us a line (one client kept up with some 400,000 lines a second).

>>> summary = LoadSummary(1, "example")
>>> a, b, c = "aa" * 32, "bb" * 32, "cc" * 32
>>> router = Router(summary)
>>> first = router.route(Facts.of([LineFact(1, True, "g1", a, True, 0), LineFact(2, False, None, c, False, 1)]))
>>> later = router.route(Facts.of([LineFact(3, True, "g1", a, True, 0), LineFact(4, True, "g1", b, True, 0)]))
>>> sorted(later.dropped), later.duplicates[4][0]
([3, 4], 'g1')
>>> summary.games_loaded, summary.already_present, summary.quarantined, summary.violations, summary.accounted
(1, 1, 2, 2, True)

The same two files again: every line is already present.

>>> again = [router.route(Facts.of([LineFact(1, True, "g1", a, True, 0), LineFact(2, False, None, c, False, 1)]))]
>>> again.append(router.route(Facts.of([LineFact(3, True, "g1", a, True, 0), LineFact(4, True, "g1", b, True, 0)])))
>>> [sorted(r.dropped) for r in again], again[1].duplicates
([[1, 2], [3, 4]], {})
>>> summary.already_present, summary.quarantined, summary.violations, summary.accounted
(5, 2, 2, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from pipeline.keytable import key128
from pipeline.warehouse.known import KeyRuns, content_key, words
from pipeline.warehouse.load import LoadSummary, other_content

if TYPE_CHECKING:
    import numpy as np

    Array = np.ndarray[Any, Any]

#: The key of a line without an id, or without content (its bits are never looked at).
NO_KEY = bytes(16)


class LineFact(NamedTuple):
    """What routing needs to know of one line: its number, whether it is a game, its
    id and content hash (of a line that is no game: the SHA-256 of its bytes),
    whether it could be loaded, and its violations.  A line that could be loaded
    has an id and a content hash."""

    line: int
    is_game: bool
    game_id: str | None
    digest: str | None
    loadable: bool
    violations: int


@dataclass(frozen=True, slots=True, eq=False)
class Facts:
    """A split's :class:`LineFact`, as columns: what crosses from a worker to the
    client.  ``ids`` and ``contents`` are ``(n, 2)`` uint64 rows, the 128-bit keys
    of each line's id and content hash (zeros where it has none); ``game_ids`` are
    the ids themselves, which only the message of a duplicate names."""

    lines: Array
    named: Array  # a game with an id
    loadable: Array
    violations: Array
    ids: Array
    contents: Array
    game_ids: list[str | None]

    @classmethod
    def of(cls, facts: Sequence[LineFact]) -> Facts:
        """The columns of a split's facts, in their order (on the worker: it makes the keys)."""
        import numpy as np

        n = len(facts)
        if any(f.loadable and (f.game_id is None or f.digest is None) for f in facts):
            raise ValueError("a loadable line has an id and a content hash")
        game_ids = [f.game_id if f.is_game else None for f in facts]
        return cls(
            lines=np.fromiter((f.line for f in facts), np.int64, n),
            named=np.fromiter((i is not None for i in game_ids), bool, n),
            loadable=np.fromiter((f.loadable for f in facts), bool, n),
            violations=np.fromiter((f.violations for f in facts), np.int64, n),
            ids=words(b"".join([NO_KEY if i is None else key128(i) for i in game_ids]), 2),
            contents=words(
                b"".join([NO_KEY if f.digest is None else content_key(f.digest) for f in facts]), 2
            ),
            game_ids=game_ids,
        )

    def __len__(self) -> int:
        return len(self.lines)

    def __eq__(self, other: object) -> bool:
        import numpy as np

        if not isinstance(other, Facts):
            return NotImplemented
        columns = ("lines", "named", "loadable", "violations", "ids", "contents")
        same = all(np.array_equal(getattr(self, c), getattr(other, c)) for c in columns)
        return same and self.game_ids == other.game_ids


@dataclass(slots=True)
class Routing:
    """What the client decided for one split: lines whose rows go, and lines
    quarantined as a repeated id with other content (game id, message)."""

    dropped: set[int] = field(default_factory=set)
    duplicates: dict[int, tuple[str, str]] = field(default_factory=dict)


def route(facts_by_split: Sequence[Facts], summary: LoadSummary) -> list[Routing]:
    """The routing of each split, its facts given in input order."""
    router = Router(summary)
    return [router.route(facts) for facts in facts_by_split]


class Router:
    """Routes the splits' facts one split at a time, in input order, keeping each
    loaded id's key and content key (32 bytes), and a key of each quarantined
    line's number and content (16 bytes; each on disk past a few hundred KB,
    :class:`~pipeline.warehouse.known.KeyRuns`): the client's memory stays flat
    over a large input."""

    def __init__(self, summary: LoadSummary) -> None:
        self.summary = summary
        self.loaded = KeyRuns(2)
        self.quarantined = KeyRuns(0)

    def route(self, facts: Facts) -> Routing:
        """The next split's routing (splits must come in input order)."""
        import numpy as np

        named = np.flatnonzero(facts.named)
        repeated, same = self._repeats(facts, named)
        routed = np.ones(len(facts), bool)  # not a repeat: loaded or quarantined on its own account
        routed[named[repeated]] = False
        loaded = routed & facts.loadable
        duplicate = np.zeros(len(facts), bool)
        duplicate[named[repeated & ~same]] = True
        own = routed & ~facts.loadable
        again = self._quarantined_before(facts, own | duplicate)
        duplicate &= ~again
        own &= ~again
        routing = Routing(dropped=set(facts.lines[~loaded & ~own].tolist()))
        for i in np.flatnonzero(duplicate).tolist():
            game_id = facts.game_ids[i]
            assert game_id is not None
            routing.duplicates[int(facts.lines[i])] = (game_id, other_content(game_id))
        self.loaded.add_rows(facts.ids[loaded], facts.contents[loaded])
        summary = self.summary
        summary.lines += len(facts)
        summary.already_present += int((repeated & same).sum()) + int(again.sum())
        summary.quarantined += int(duplicate.sum()) + int(own.sum())
        summary.violations += int(duplicate.sum()) + int(facts.violations[loaded | own].sum())
        summary.games_loaded += int(loaded.sum())
        return routing

    def _quarantined_before(self, facts: Facts, quarantined: Array) -> Array:
        """Of the lines to quarantine (``quarantined``), those whose content at their
        line number was quarantined before: by an earlier split, or an earlier line
        of this one; the others are noted."""
        import numpy as np

        at = np.flatnonzero(quarantined)
        again = np.zeros(len(facts), bool)
        if not len(at):
            return again
        keys = _line_keys(facts.lines[at], facts.contents[at])
        before, _ = self.quarantined.lookup_rows(keys)
        _, first = np.unique(_one_value_a_key(keys), return_index=True)
        later = np.ones(len(at), bool)
        later[first] = False
        again[at] = before | later
        new = ~again[at]
        self.quarantined.add_rows(keys[new], np.empty((int(new.sum()), 0), np.uint64))
        return again

    def _repeats(self, facts: Facts, named: Array) -> tuple[Array, Array]:
        """For each line with an id (at ``named``): whether its id was loaded before
        it (by an earlier split, or an earlier line of this one), and whether with
        the same content."""
        import numpy as np

        ids, contents = facts.ids[named], facts.contents[named]
        before, stored = self.loaded.lookup_rows(ids)
        if not len(named):
            return before, before
        first = _first_loadable(ids, facts.loadable[named])
        repeated = before | (np.arange(len(named)) > first)
        earlier = np.where(before[:, None], stored, contents[np.minimum(first, len(named) - 1)])
        return repeated, (earlier == contents).all(axis=1)


#: Odd, so that multiplying by it mixes a line number into a key one-to-one.
_LINE_MIX = 0x9E3779B97F4A7C15


def _line_keys(lines: Array, contents: Array) -> Array:
    """A 128-bit key of each (line number, content key): the content key with the
    line number mixed into its high half.  Two lines share one only when their
    numbers and contents do (or their contents' low halves collide)."""
    import numpy as np

    mixed = lines.astype(np.uint64) * np.uint64(_LINE_MIX)
    return np.ascontiguousarray(np.stack([contents[:, 0] ^ mixed, contents[:, 1]], axis=1))


def _one_value_a_key(keys: Array) -> Array:
    """``(n, 2)`` uint64 keys as n 16-byte values, which ``np.unique`` compares whole."""
    import numpy as np

    return np.ascontiguousarray(keys).view(np.dtype((np.void, 16))).ravel()


def _first_loadable(ids: Array, loadable: Array) -> Array:
    """For each row: the index of the first loadable row with its key (``len(ids)`` if none)."""
    import numpy as np

    n = len(ids)
    _, group = np.unique(_one_value_a_key(ids), return_inverse=True)
    group = group.ravel()
    first = np.full(int(group.max()) + 1, n, np.int64)
    np.minimum.at(first, group[loadable], np.flatnonzero(loadable))
    return first[group]
