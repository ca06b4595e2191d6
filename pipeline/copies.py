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
itself: its name, file and identity) is kept, a row of numbers and a name
each, the latest 16,384 in memory and the rest on disk (:class:`_Games`).
Each table holds 768 KB of keys in memory (taken at the start) and the rest
on disk, with 2 to 3 bytes a key left in memory (a Bloom filter:
:class:`~pipeline.diskkeys.DiskKeys`): past a few hundred thousand hands,
what grows is 2 to 3 bytes a distinct hand and game, where the dicts took 200.

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

import os
import re
import tempfile
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from hashlib import blake2b
from typing import IO, Any, Literal

import numpy as np

from pipeline.atomic import scratch_error
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
        return int(who[ordinal - start]) if ordinal >= start else self.games.who(self.games.row(ordinal))

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
            if self.games.who(game) == whose[k]:
                continue
            i, hand = checked.games[k], int(positions[j])
            game_id, file, line, _ = games[i]
            name, first_file = self.games.named(game)
            message = (
                f"hand {hand}: the same play as hand {first - self.games.first_hand(game)} of game {name!r}"
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


#: Kept games held in memory (40 bytes and a name each, taken at the start) before
#: they go to a file, and rows of that file read at a time to find one there.
GAMES_IN_MEMORY = 1 << 14
GAMES_BLOCK = 256
#: A kept game: its ordinal in the run, its first hand's number, its identity,
#: where its name is among all names (UTF-8) and how long, and its file's number.
GAME_ROW = np.dtype(
    [
        ("ordinal", "<i8"),
        ("first_hand", "<i8"),
        ("who", "<i8"),
        ("name_at", "<i8"),
        ("name_len", "<i4"),
        ("file", "<i4"),
    ]
)


class _Games:
    """What a message names of each game that could be the first copy of
    something (checked for copies, and no copy itself) -- its name (id, or
    ``line N``), file, identity -- with its ordinal in the run and the number
    of its first hand (hands are numbered across these games), each a row of
    :data:`GAME_ROW` (each file named once).

    The latest ``GAMES_IN_MEMORY`` rows and their names are in memory; the ones
    before in two temporary files (rows, names), with the first ordinal and
    first hand of each block of ``GAMES_BLOCK`` rows kept in memory to find a
    row's block.  Held in memory, they took 50 bytes a game, the most of
    ``validate``'s growth over distinct games after the Bloom filters.  A row
    is read back only for a copy found (one block, the last blocks read kept)."""

    def __init__(self) -> None:
        if GAMES_IN_MEMORY % GAMES_BLOCK:
            raise ValueError("GAMES_IN_MEMORY must be a multiple of GAMES_BLOCK")
        self.block = GAMES_BLOCK
        self.rows = np.zeros(GAMES_IN_MEMORY, GAME_ROW)
        self.held = 0
        self.names = bytearray()
        #: Rows and bytes of names in the files (the rows in memory come after).
        self.spilled = 0
        self.names_spilled = 0
        self.block_ordinals = array("q")
        self.block_hands = array("q")
        self.files: list[str | None] = []
        self.file_numbers: dict[str | None, int] = {}
        self.hands = 0
        self._files: tuple[IO[bytes], IO[bytes]] | None = None
        self._block = lru_cache(maxsize=32)(self._read_block)

    @property
    def nbytes(self) -> int:
        index = self.block_ordinals.itemsize * (len(self.block_ordinals) + len(self.block_hands))
        return self.rows.nbytes + len(self.names) + index

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
        lengths = np.array([len(name) for name in names], np.int64)
        first_hands = np.cumsum([self.hands, *(checked.sizes[k] for k in kept)])
        rows = np.zeros(len(kept), GAME_ROW)
        rows["ordinal"] = np.array(chosen, np.int64) + start
        rows["first_hand"] = first_hands[:-1]
        rows["who"] = [whose[k] for k in kept]
        rows["name_at"] = self.names_spilled + len(self.names) + np.cumsum(lengths) - lengths
        rows["name_len"] = lengths
        rows["file"] = [self._file_number(games[i][1]) for i in chosen]
        self.names += b"".join(names)
        self.hands = int(first_hands[-1])
        at = 0
        while at < len(rows):
            if self.held == len(self.rows):
                self._spill()
            taken = rows[at : at + len(self.rows) - self.held]
            self.rows[self.held : self.held + len(taken)] = taken
            self.held += len(taken)
            at += len(taken)
        return first_hands[:-1]

    def row(self, ordinal: int) -> int:
        """Where a kept game is (its row), by its ordinal in the run."""
        return self._find("ordinal", self.block_ordinals, ordinal, "left")

    def of_hand(self, hand: int) -> int:
        """The row of the game a hand (numbered across kept games) belongs to."""
        return self._find("first_hand", self.block_hands, hand, "right") - 1

    def who(self, row: int) -> int:
        return int(self._row(row)["who"])

    def first_hand(self, row: int) -> int:
        return int(self._row(row)["first_hand"])

    def named(self, row: int) -> tuple[str, str | None]:
        """A kept game's name and file."""
        found = self._row(row)
        at, length = int(found["name_at"]), int(found["name_len"])
        if at >= self.names_spilled:
            name = bytes(self.names[at - self.names_spilled : at - self.names_spilled + length])
        else:
            name = os.pread(self._spill_files()[1].fileno(), length, at)
        return name.decode("utf-8", "surrogatepass"), self.files[int(found["file"])]

    def _find(self, column: str, firsts: array[int], value: int, side: Literal["left", "right"]) -> int:
        """The row where ``value`` goes in ``column`` (in order across rows), as
        ``np.searchsorted`` gives it: in memory, or in the block on file that holds it."""
        if self.held and value >= self.rows[column][0]:
            return self.spilled + int(np.searchsorted(self.rows[column][: self.held], value, side))
        block = bisect_right(firsts, value) - 1
        return block * self.block + int(np.searchsorted(self._block(block)[column], value, side))

    def _row(self, row: int) -> Any:
        if row >= self.spilled:
            return self.rows[row - self.spilled]
        block, at = divmod(row, self.block)
        return self._block(block)[at]

    def _read_block(self, block: int) -> Any:
        size = self.block * GAME_ROW.itemsize
        return np.frombuffer(os.pread(self._spill_files()[0].fileno(), size, block * size), GAME_ROW)

    def _spill(self) -> None:
        """The rows in memory (all of them: whole blocks) and their names go to the files."""
        last = self.rows[self.held - 1]
        names = int(last["name_at"]) + int(last["name_len"]) - self.names_spilled
        rows_file, names_file = self._spill_files()
        try:
            rows_file.write(self.rows[: self.held].tobytes())
            names_file.write(self.names[:names])
            rows_file.flush()
            names_file.flush()
        except OSError as e:
            raise scratch_error("the games seen", tempfile.gettempdir(), e) from e
        self.block_ordinals.extend(self.rows["ordinal"][: self.held : self.block].tolist())
        self.block_hands.extend(self.rows["first_hand"][: self.held : self.block].tolist())
        self.spilled += self.held
        self.held = 0
        del self.names[:names]
        self.names_spilled += names

    def _spill_files(self) -> tuple[IO[bytes], IO[bytes]]:
        """Two files of no name (gone when closed, or when the process ends however it ends)."""
        if self._files is None:
            try:
                self._files = (
                    tempfile.TemporaryFile(prefix="tricklog-games-"),  # noqa: SIM115  # kept open with the rows
                    tempfile.TemporaryFile(prefix="tricklog-names-"),  # noqa: SIM115
                )
            except OSError as e:
                raise scratch_error("the games seen", tempfile.gettempdir(), e) from e
        return self._files

    def _file_number(self, file: str | None) -> int:
        number = self.file_numbers.get(file)
        if number is None:
            number = self.file_numbers[file] = len(self.files)
            self.files.append(file)
        return number


def _in(file: str | None) -> str:
    return f" ({file})" if file else ""
