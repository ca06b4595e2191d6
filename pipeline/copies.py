"""Recognising repeats and copies while validating: a game id seen before, the
same hands recorded in another game.

Each game gives its hands' fingerprints (``Game.fingerprints``: the recorded
play, so a copy in another file, format or game id has the same ones).  A game
whose fingerprinted hands are exactly another game's, in order, is a
``duplicate_game``; otherwise each hand seen before in another game (a fragment,
an annotated subset) is a ``duplicate_hand`` naming the first copy.  Hands with
no fingerprint (no card played) are never matched.  A game whose id was seen
before is a ``duplicate_game`` too, and is not checked for copies.

Nothing is kept per game or hand as a Python object: a run may see millions of
each, and a dict of strings cost about 200 bytes a hand.  The tracker works a
chunk of games at a time, with three :class:`~pipeline.keytable.KeyTable` of
128-bit keys -- every game's identity, every distinct sequence of fingerprints,
every distinct hand -- looked up and added in a few numpy calls each, in input
order, so a copy within the chunk is found as it would be game by game.  Only
what a message needs of a game that can be a first copy (checked, and no copy
itself: its name, file and identity) is kept, packed in arrays.  Each table
holds 768 KB of keys in memory (taken at the start) and the rest on disk, with 2 to 4 bytes a key
left in memory (:class:`~pipeline.diskkeys.DiskKeys`): past a few hundred
thousand hands, about 10 bytes a distinct hand in all (of 10-hand games),
where the dicts took 200.

>>> t = CopyTracker()
>>> t.check([("a", "a.egn", None, ["x", "y"]), ("b", "b.egn", None, ["x", "y"])])[1].violations[0].code
'duplicate_game'
>>> [(v.code, v.hand) for v in t.check([("c", "c.egn", None, ["x", None, "z"])])[0].violations]
[('duplicate_hand', 0)]
>>> found = t.check([(None, "d.egn", 3, ["w"]), (None, "e.egn", 3, ["w"]), ("a", "f.egn", 1, [])])
>>> found[1].violations[0].message[:33], found[2].duplicate
("a copy of game 'line 3' (d.egn): ", True)
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

import numpy as np

from pipeline.games import game_for_record
from pipeline.keytable import I64, MAX_SLOTS, KeyTable, key128, split_keys
from pipeline.violations import Violation

#: What the tracker is told of a game: its id, file, line and its hands' fingerprints.
GameHands = tuple[str | None, str | None, int | None, Sequence[str | None]]

#: A fingerprint that is its own 128-bit key (both games' plugins give these).
_HEX = re.compile("[0-9a-f]{32}")


def fingerprints_of(record: dict[str, Any] | None, replay: Any) -> list[str | None]:
    """The fingerprints of a replayed game's hands (given by a worker's digest, or
    computed by the record's game; empty when its game gives none)."""
    given = getattr(replay, "fingerprints", None)
    if given is not None:
        return list(given)
    game = game_for_record(record) if record is not None else None
    if game is None or game.fingerprints is None or not hasattr(replay, "hands"):
        return []
    return list(game.fingerprints(replay))


def hand_keys(prints: list[str]) -> bytes:
    """The 16-byte key of each fingerprint, concatenated: 32 lowercase hex digits
    are their own key (read for the whole list at once), anything else (another
    game's plugin) is hashed."""
    joined = "".join(prints)
    if set(map(len, prints)) <= {32} and joined == joined.lower():
        try:
            keys = bytes.fromhex(joined)
        except ValueError:
            keys = b""
        if len(keys) == 16 * len(prints):
            return keys
    return b"".join([bytes.fromhex(p) if _HEX.fullmatch(p) else key128(p) for p in prints])


def who_key(game_id: str | None, file: str | None, line: int | None) -> bytes:
    """The key of a game's identity: its id, or where it is when it has none (line 5
    of a.egn is not line 5 of b.egn, but the same file read twice is the same game)."""
    return key128("id:" + game_id if game_id is not None else f"at:{line}\0{file!r}")


@dataclass(frozen=True, slots=True)
class Found:
    """What the tracker found of one game."""

    #: Its id was seen before (then ``violations`` is that ``duplicate_game`` alone).
    duplicate: bool
    violations: list[Violation]


@dataclass(slots=True)
class _Checked:
    """The games of a chunk checked for copies (not repeats, with a fingerprint)."""

    games: list[int]
    #: Fingerprints of each game, and its number of hands.
    counts: list[int]
    sizes: list[int]
    #: Each fingerprint's hand number in its game, and its key.
    positions: list[int]
    keys: bytes


class CopyTracker:
    """Every game's identity, every distinct fingerprint sequence and every
    distinct hand seen, as 128-bit keys; and what a message names of the games
    that could be the first copy of something (:class:`_Games`)."""

    def __init__(self) -> None:
        # Each table takes its whole budget at the start: a run's memory is then the
        # same from its first chunk on, where a table growing with the input would
        # double (holding both sizes at once) at some point of a long input and not
        # of a short one.
        #: Identity -> the number of the first game with it (its ordinal in the run).
        self.whos = KeyTable(MAX_SLOTS)
        #: Fingerprint sequence -> the first game with it (its ordinal).
        self.sequences = KeyTable(MAX_SLOTS)
        #: Hand -> its first copy (its number in ``games.first_hand`` numbering).
        self.hands = KeyTable(MAX_SLOTS)
        self.games = _Games()
        self.seen = 0

    @property
    def nbytes(self) -> int:
        """The memory held, in bytes (the arrays; the tracker holds nothing else that grows)."""
        return self.whos.nbytes + self.sequences.nbytes + self.hands.nbytes + self.games.nbytes

    def check(self, games: Sequence[GameHands]) -> dict[int, Found]:
        """What is wrong with each game of a chunk (by its index; a game not in
        the result is neither a repeat nor a copy), as if they came one by one;
        remembers them for the games after them."""
        found: dict[int, Found] = {}
        who = self._identities(games, found)
        checked = _to_check(games, found)
        if not checked.games:
            return found
        whose = who[checked.games].tolist()
        start = self.seen - len(games)
        firsts = self._first_games(checked, start)
        copied = [first >= 0 and self._who(first, who, start) != whose[k] for k, first in enumerate(firsts)]
        first_hands = self.games.add(games, checked, start, whose, copied)
        self._copied_games(games, checked, firsts, copied, found)
        self._hands(games, checked, first_hands, copied, whose, found)
        return found

    def _who(self, ordinal: int, who: I64, start: int) -> int:
        """The identity of a game kept earlier, or of this chunk (``start``: its first ordinal)."""
        return int(who[ordinal - start]) if ordinal >= start else self.games.who[self.games.row(ordinal)]

    def _identities(self, games: Sequence[GameHands], found: dict[int, Found]) -> I64:
        """Each game's identity (the number of the first game with it); a repeated id is found."""
        hi, lo = split_keys(b"".join([who_key(game_id, file, line) for game_id, file, line, _ in games]))
        ordinals = np.arange(self.seen, self.seen + len(games), dtype=np.int64)
        self.seen += len(games)
        before = self.whos.insert_or_get(hi, lo, ordinals)
        for i in np.flatnonzero(before >= 0).tolist():
            game_id, file, line, _ = games[i]
            if game_id is not None:  # without an id, the same file read again: not a repeat
                message = f"game_id {game_id!r} was already seen earlier in the input"
                found[i] = Found(
                    True, [Violation("duplicate_game", message, game_id, None, "game_id", file, line)]
                )
        return np.where(before >= 0, before, ordinals)

    def _first_games(self, checked: _Checked, start: int) -> list[int]:
        """For each checked game, the ordinal of the first game with its sequence of
        fingerprints (-1: it is the first; its sequence is kept with its ordinal)."""
        ends = np.cumsum(checked.counts) * 16
        view = memoryview(checked.keys)
        keys = b"".join(
            [
                blake2b(view[a:b], digest_size=16).digest()
                for a, b in zip([0, *ends[:-1].tolist()], ends.tolist(), strict=True)
            ]
        )
        ordinals = np.array(checked.games, np.int64) + start
        firsts: list[int] = self.sequences.insert_or_get(*split_keys(keys), ordinals).tolist()
        return firsts

    def _copied_games(
        self,
        games: Sequence[GameHands],
        checked: _Checked,
        firsts: list[int],
        copied: list[bool],
        found: dict[int, Found],
    ) -> None:
        """A ``duplicate_game`` for each checked game that copies an earlier game of another identity."""
        for k in [k for k, c in enumerate(copied) if c]:
            i = checked.games[k]
            name, file = self.games.named(self.games.row(firsts[k]))
            message = (
                f"a copy of game {name!r}{_in(file)}: its {checked.counts[k]} played hand(s) are the same play, "
                "in order; statistics count them once"
            )
            found[i] = Found(
                False, [Violation("duplicate_game", message, games[i][0], None, "hands", *games[i][1:3])]
            )

    def _hands(
        self,
        games: Sequence[GameHands],
        checked: _Checked,
        first_hands: I64,
        copied: list[bool],
        whose: list[int],
        found: dict[int, Found],
    ) -> None:
        """Each hand of the checked games that are not copies: a hand first seen in
        a game of another identity is found; a new one is kept."""
        kept = ~np.array(copied, bool)
        keep = np.repeat(kept, checked.counts)
        owner = np.repeat(np.arange(len(checked.games)), checked.counts)[keep]
        positions = np.array(checked.positions, np.int64)[keep]
        hi, lo = split_keys(checked.keys)
        numbers = np.repeat(first_hands, np.array(checked.counts)[kept]) + positions
        before = self.hands.insert_or_get(hi[keep], lo[keep], numbers)
        for j in np.flatnonzero(before >= 0).tolist():
            first, k = int(before[j]), int(owner[j])
            game = self.games.of_hand(first)
            if self.games.who[game] == whose[k]:
                continue
            i, hand = checked.games[k], int(positions[j])
            game_id, file, line, _ = games[i]
            name, first_file = self.games.named(game)
            message = (
                f"hand {hand}: the same play as hand {first - self.games.first_hand[game]} of game {name!r}"
                f"{_in(first_file)}; statistics count it once"
            )
            violation = Violation("duplicate_hand", message, game_id, hand, f"hands[{hand}]", file, line)
            found.setdefault(i, Found(False, [])).violations.append(violation)


def _to_check(games: Sequence[GameHands], found: dict[int, Found]) -> _Checked:
    """The games of a chunk to check for copies: not found repeated, with some
    fingerprint; their fingerprints' hand numbers and keys."""
    checked = _Checked([], [], [], [], b"")
    prints: list[str] = []
    for i, (_, _, _, hands) in enumerate(games):
        if i in found or not hands:
            continue
        if None in hands:
            positions = [h for h, p in enumerate(hands) if p is not None]
            if not positions:
                continue
            prints += [hands[h] for h in positions]  # type: ignore[misc]  # not None there
            checked.positions += positions
            checked.counts.append(len(positions))
        else:
            prints += hands  # type: ignore[arg-type]  # no None in them
            checked.positions += range(len(hands))
            checked.counts.append(len(hands))
        checked.games.append(i)
        checked.sizes.append(len(hands))
    checked.keys = hand_keys(prints) if prints else b""
    return checked


class _Games:
    """What a message names of each game that could be the first copy of
    something (checked for copies, and no copy itself) -- its name (id, or
    ``line N``), file, identity -- with its ordinal in the run and the number
    of its first hand (hands are numbered across these games), packed: one
    bytearray of the names' UTF-8, arrays of numbers, and each file once."""

    def __init__(self) -> None:
        self.ordinal = array("q")
        self.names = bytearray()
        self.name_ends = array("q")
        self.files: list[str | None] = []
        self.file_numbers: dict[str | None, int] = {}
        self.file = array("i")
        self.who = array("q")
        self.first_hand = array("q")
        self.hands = 0

    @property
    def nbytes(self) -> int:
        columns = (self.ordinal, self.name_ends, self.file, self.who, self.first_hand)
        return len(self.names) + sum(c.itemsize * len(c) for c in columns)

    def add(
        self, games: Sequence[GameHands], checked: _Checked, start: int, whose: list[int], copied: list[bool]
    ) -> I64:
        """Keep the checked games of a chunk that are no copies (``start``: the
        chunk's first ordinal); returns the numbers of their first hands."""
        kept = [k for k, c in enumerate(copied) if not c]
        chosen = [checked.games[k] for k in kept]
        names = [
            (game_id or f"line {line}").encode("utf-8", "surrogatepass")
            for game_id, _, line, _ in (games[i] for i in chosen)
        ]
        self.ordinal.extend([start + i for i in chosen])
        self.name_ends.extend(np.cumsum([len(self.names), *map(len, names)])[1:].tolist())
        self.names += b"".join(names)
        self.file.extend([self._file_number(games[i][1]) for i in chosen])
        self.who.extend([whose[k] for k in kept])
        first_hands = np.cumsum([self.hands, *(checked.sizes[k] for k in kept)])
        self.first_hand.extend(first_hands[:-1].tolist())
        self.hands = int(first_hands[-1])
        return first_hands[:-1]

    def row(self, ordinal: int) -> int:
        """Where a kept game is, by its ordinal in the run."""
        return bisect_left(self.ordinal, ordinal)

    def _file_number(self, file: str | None) -> int:
        number = self.file_numbers.get(file)
        if number is None:
            number = self.file_numbers[file] = len(self.files)
            self.files.append(file)
        return number

    def named(self, game: int) -> tuple[str, str | None]:
        """A kept game's name and file (``game``: its row)."""
        start = self.name_ends[game - 1] if game else 0
        name = self.names[start : self.name_ends[game]].decode("utf-8", "surrogatepass")
        return name, self.files[self.file[game]]

    def of_hand(self, hand: int) -> int:
        """The row of the game a hand (numbered across kept games) belongs to."""
        return bisect_right(self.first_hand, hand) - 1


def _in(file: str | None) -> str:
    return f" ({file})" if file else ""
