"""Repeats and copies found a chunk at a time, in 128-bit keys, are exactly what the
plain dicts of every id, fingerprint and game found one game at a time (the
tracker ``validate`` used before, kept here as the model); and the tracker's
memory is tens of bytes a hand, with no Python object left per game or hand."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cli import files_capped_at
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import copies
from pipeline.copies import CopyTracker, GameHands, hand_keys
from pipeline.keytable import MAX_LOAD, MAX_SLOTS, key128
from pipeline.parallel import ReplayDigest
from pipeline.sources import SourceItem
from pipeline.validate import _with_repeats
from pipeline.violations import Violation

# -- the model: validate's dicts before the key tables -------------------------------------------

Who = str | tuple[str, str | None]


@dataclass(frozen=True, slots=True)
class _Seen:
    game_id: str
    hand: int
    file: str | None
    who: Who


@dataclass(slots=True)
class ModelTracker:
    hands: dict[str, _Seen] = field(default_factory=dict)
    games: dict[tuple[str | None, ...], tuple[str, str | None, Who]] = field(default_factory=dict)

    def check(
        self, game_id: str | None, file: str | None, line: int | None, prints: Sequence[str | None]
    ) -> list[Violation]:
        name = game_id or f"line {line}"
        who: Who = game_id if game_id is not None else (name, file)
        key = tuple(p for p in prints if p is not None)
        if not key:
            return []
        first = self.games.get(key)
        if first is not None and first[2] != who:
            message = (
                f"a copy of game {first[0]!r}{_in(first[1])}: its {len(key)} played hand(s) are the same play, "
                "in order; statistics count them once"
            )
            return [Violation("duplicate_game", message, game_id, None, "hands", file, line)]
        self.games.setdefault(key, (name, file, who))
        found = []
        for hand, fingerprint in enumerate(prints):
            if fingerprint is None:
                continue
            seen = self.hands.get(fingerprint)
            if seen is None:
                self.hands[fingerprint] = _Seen(name, hand, file, who)
            elif seen.who != who:
                message = (
                    f"hand {hand}: the same play as hand {seen.hand} of game {seen.game_id!r}{_in(seen.file)}; "
                    "statistics count it once"
                )
                found.append(
                    Violation("duplicate_hand", message, game_id, hand, f"hands[{hand}]", file, line)
                )
        return found


def _in(file: str | None) -> str:
    return f" ({file})" if file else ""


def model(games: Iterable[GameHands | None]) -> list[tuple[bool, list[Violation]]]:
    """Each game's duplicate flag and violations, one game at a time (None: a line that is no game)."""
    seen: set[str] = set()
    copies = ModelTracker()
    out: list[tuple[bool, list[Violation]]] = []
    for game in games:
        if game is None:
            out.append((False, []))
            continue
        game_id, file, line, prints = game
        if game_id is not None and game_id in seen:
            message = f"game_id {game_id!r} was already seen earlier in the input"
            out.append((True, [Violation("duplicate_game", message, game_id, None, "game_id", file, line)]))
            continue
        if game_id is not None:
            seen.add(game_id)
        out.append((False, copies.check(game_id, file, line, prints)))
    return out


# -- the games ------------------------------------------------------------------------------------

#: Fingerprints as the games' plugins give them, and others: uppercase hex (not the
#: same text as its lowercase), too short or long, not hex, empty, a lone surrogate.
PRINTS = [key128(str(n)).hex() for n in range(6)] + [
    key128("0").hex().upper(),
    "abc",
    "a" * 30 + "zz",
    "f" * 33,
    "",
    " " + "0" * 31,
    "\ud800",
]
FINGERPRINT = st.one_of(st.none(), st.sampled_from(PRINTS))
GAME = st.tuples(
    st.one_of(st.none(), st.sampled_from(["g1", "g2", "g3", "", "it's \ud800"])),
    st.sampled_from(["a.egn", "b.egn", "", None]),
    st.one_of(st.none(), st.integers(1, 2)),
    # hands drawn from a few sequences (whole copies) or from the pool (partial ones)
    st.one_of(
        st.sampled_from([[PRINTS[0], PRINTS[1]], [PRINTS[0], None, PRINTS[1]]]),
        st.lists(FINGERPRINT, max_size=4),
    ),
)
INPUT = st.lists(st.one_of(GAME, st.none()), max_size=40)


def replayed(games: list[GameHands | None]) -> list[tuple[SourceItem, ReplayDigest | None, list[Violation]]]:
    """The games as validate's replay gives them (a line that is no game: no replay)."""
    out: list[tuple[SourceItem, ReplayDigest | None, list[Violation]]] = []
    for n, game in enumerate(games):
        if game is None:
            out.append((SourceItem("x.jsonl", n, b"?", None), None, []))
        else:
            game_id, file, line, prints = game
            item = SourceItem(file, line, None, None)  # type: ignore[arg-type]  # a file None too
            out.append((item, ReplayDigest(game_id, [], [], [], list(prints)), []))
    return out


def checked(games: list[GameHands | None], chunk: int) -> list[tuple[bool, list[Violation]]]:
    return [(g.duplicate, g.violations) for g in _with_repeats(replayed(games), chunk)]


@contextmanager
def games_in_memory(rows: int, block: int) -> Iterator[None]:
    """The kept games of the trackers made meanwhile go to their files past ``rows``."""
    kept = copies.GAMES_IN_MEMORY, copies.GAMES_BLOCK
    copies.GAMES_IN_MEMORY, copies.GAMES_BLOCK = rows, block
    try:
        yield
    finally:
        copies.GAMES_IN_MEMORY, copies.GAMES_BLOCK = kept


@pytest.mark.parametrize("chunk", [1, 3, 2000])
@pytest.mark.parametrize("kept", [(copies.GAMES_IN_MEMORY, copies.GAMES_BLOCK), (4, 2), (2, 1)])
@settings(max_examples=200)
@given(games=INPUT)
def test_finds_what_the_dicts_found(chunk: int, kept: tuple[int, int], games: list[GameHands | None]) -> None:
    """Whether the games that can be first copies are in memory or in files, a block
    of rows at a time (of two, or one, in memory before)."""
    with games_in_memory(*kept):
        assert checked(games, chunk) == model(games)


def test_every_kind_of_copy_is_found_within_one_chunk_and_across_chunks() -> None:
    a, b, c = PRINTS[:3]
    games: list[GameHands | None] = [
        ("g1", "a.egn", 1, [a, b]),
        ("g2", "b.egn", 1, [a, b]),  # a copy of g1
        ("g1", "b.egn", 2, [c]),  # a repeated id: not checked for copies
        (None, "a.egn", 5, [None, c, a]),  # hand 2 is g1's hand 0
        None,
        (None, "a.egn", 5, [None, c, a]),  # the same file read twice: the same game (but hand 2 is g1's)
        (None, "b.egn", 5, [c, a]),  # a copy of line 5 of a.egn
        ("g3", "c.egn", 1, [None]),  # nothing to compare
    ]
    expected = model(games)
    assert [[v.code for v in found] for _, found in expected] == [
        [],
        ["duplicate_game"],
        ["duplicate_game"],
        ["duplicate_hand"],
        [],
        ["duplicate_hand"],
        ["duplicate_game"],
        [],
    ]
    for chunk in (1, 2, 100):
        assert checked(games, chunk) == expected


def test_hex_fingerprints_are_their_own_keys_and_others_are_hashed() -> None:
    hexes = PRINTS[:2]
    assert hand_keys(hexes) == bytes.fromhex("".join(hexes))
    mixed = hand_keys([hexes[0], "abc", hexes[0].upper()])
    assert mixed[:16] == bytes.fromhex(hexes[0]) and mixed[16:32] == key128("abc")
    assert mixed[32:] == key128(hexes[0].upper())


def synthetic_chunk(start: int, games: int, hands: int) -> list[GameHands]:
    """Distinct games of distinct hands (numbered from ``start``), one in ten without an id."""
    return [
        (
            None if n % 10 == 0 else f"game-{n}",
            "input.jsonl",
            n,
            [f"{n * hands + h:032x}" for h in range(hands)],
        )
        for n in range(start, start + games)
    ]


def test_memory_is_tens_of_bytes_a_hand() -> None:
    """50,000 distinct games of 10 hands: the tracker's arrays, and all the memory
    it keeps once its chunks are done (no Python object per game or hand; the
    hands past its tables' budget on disk)."""
    tracker = CopyTracker()
    tracker.check(synthetic_chunk(0, 10, 10))  # the first arrays made
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for start in range(10, 50_010, 2000):
        assert not tracker.check(synthetic_chunk(start, 2000, 10))
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    hands = 50_000 * 10
    assert tracker.nbytes / hands < 40
    assert kept / hands < 40
    # the games that can be first copies: the latest in memory, the rest in files
    assert tracker.games.spilled >= 40_000 and tracker.games.held <= copies.GAMES_IN_MEMORY
    assert tracker.games.nbytes < 50 * copies.GAMES_IN_MEMORY


def test_games_that_cannot_go_to_their_file_are_a_clear_error(tmp_path: Path) -> None:
    """A file size limit (as a full disk does): the error says where and what to do,
    and the files, which have no name, leave nothing behind."""
    script = (
        "import sys\n"
        "from pipeline.copies import CopyTracker, GAMES_IN_MEMORY\n"
        "from pipeline.violations import TricklogError\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from test_copies import synthetic_chunk\n"
        "tracker = CopyTracker()\n"
        "try:\n"
        "    for start in range(0, GAMES_IN_MEMORY + 2000, 2000):\n"
        "        tracker.check(synthetic_chunk(start, 2000, 1))\n"
        "except TricklogError as e:\n"
        "    print(e)\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        preexec_fn=files_capped_at(4096),
    ).stdout
    assert out.startswith(f"cannot keep the games seen in {tmp_path} (File too large)"), out
    assert "point TMPDIR at a folder with room" in out
    assert list(tmp_path.iterdir()) == []


def test_the_tables_take_their_budget_at_the_start() -> None:
    """The same memory from the first chunk to the last: a table that grew with the
    input would double (holding both sizes at once) on a long input, not a short one."""
    tracker = CopyTracker()
    tables = (tracker.whos, tracker.sequences, tracker.hands)
    assert [t.nbytes for t in tables] == [24 * MAX_SLOTS] * 3
    kept = int(MAX_LOAD * MAX_SLOTS) // 2000 * 2000  # as many as stay in memory
    for start in range(0, kept, 2000):
        assert not tracker.check(synthetic_chunk(start, 2000, 1))
    assert [len(t) for t in tables] == [kept] * 3
    assert [t.nbytes for t in tables] == [24 * MAX_SLOTS] * 3
