"""Clean euchre/1 lines cleared straight from their bytes.

:func:`scan` hands a batch of raw JSON Lines to a compiled scanner
(:mod:`pipeline.games.euchre.fast_scan_kernel`) that reads the usual shape of
a euchre/1 record straight into the fast path's rows -- no Python object per
hand, card or bid -- and then to the fast path's kernel
(:func:`pipeline.games.euchre.fast.check_rows`).  A line the scanner gives up
on (anything unusual: an escape in a string, an unknown key, a fraction) or
the kernel does not clear is simply not in the result: the caller parses it
and replays it as before.  Python only reads each game's id, players and
rules object (one dictionary lookup per game for the rules).

>>> from pipeline.games.euchre.replay import _DOCTEST_GAME
>>> scan([_DOCTEST_GAME.encode()], min_games=0).lines   # a renege: not cleared
[]
>>> cleared_lines([_DOCTEST_GAME.encode().replace(b'"game_id"', b'"game_id":"x","y"')])  # not read
[None]
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from pipeline.games import ClearedReplay
from pipeline.games.euchre.fast import (
    G_HANDS,
    G_INIT,
    G_RULES,
    G_WIDTH,
    MIN_GAMES,
    TOKENS,
    WIDTH,
    Checked,
    check_batch,
    check_rows,
    kernel,
    merged,
    rules_row,
)
from pipeline.games.euchre.fast_rows import cleared_replays, cleared_rows
from pipeline.games.euchre.rules import Rules, RulesError
from pipeline.record import is_timestamp
from pipeline.warehouse.tables import ClearedLines

Ints = npt.NDArray[np.int64]
FORMAT = "euchre/1"
# What the scanner says of a line besides its rows: the spans of its strings,
# (start, end) pairs; the rules' (-1, -1) when absent or null.
S_ID, S_RULES, S_PLAYERS, S_SOURCE, S_STARTED = 0, 2, 4, 12, 14
S_WIDTH = 16
#: Bytes of JSON a hand takes at least (a deal alone is over 100): the scanner's room.
_MIN_HAND_BYTES = 100


@dataclass(slots=True)
class Scanned:
    """The games of a batch cleared from their bytes: what the kernel found
    (``checked.records``: each cleared line's position in the batch), and each
    cleared game's id and players."""

    checked: Checked
    game_ids: list[str]
    players: list[list[str]]
    #: The position of each line the scanner read (cleared or not), ascending.
    read: list[int]
    #: The lines' text, and the spans of each line's strings (``S_*``).
    text: bytes
    spans: Ints

    @property
    def lines(self) -> list[int]:
        cleared: list[int] = self.checked.records.tolist()
        return cleared


def scan(lines: Sequence[bytes], *, min_games: int | None = None) -> Scanned | None:
    """The lines of a batch the scanner reads and the fast path clears (None
    without numba, for a batch of fewer than ``min_games`` lines, or when the
    scanner reads no line)."""
    compiled = _compiled()
    limit = MIN_GAMES if min_games is None else min_games
    if compiled is None or len(lines) < max(limit, 1):
        return None
    scanner, check = compiled
    text, games, spans, hands = read_rows(scanner, lines)
    read, rules = _with_rules(text, games, spans)
    if not read:
        return None
    games = games[read]
    ok, results = check_rows(check, games, hands, np.array([rules_row(r) for r in rules]))
    game_rows = np.flatnonzero(ok)
    game_rows = game_rows[_dated(text, spans, np.array(read, dtype=np.int64)[game_rows])]
    kept = np.array(read, dtype=np.int64)[game_rows]
    return Scanned(
        Checked(kept, game_rows, games, hands, results, rules),
        [_text(text, spans[n, S_ID], spans[n, S_ID + 1]) for n in kept.tolist()],
        [
            [_text(text, spans[n, p], spans[n, p + 1]) for p in range(S_PLAYERS, S_PLAYERS + 8, 2)]
            for n in kept.tolist()
        ],
        read,
        text,
        spans,
    )


def _dated(text: bytes, spans: Ints, lines: Ints) -> npt.NDArray[np.bool_]:
    """For each of the lines, whether its ``started_at`` (a plain string, when the
    scanner read it) is a timestamp the replay takes, or absent."""
    starts, ends = spans[lines, S_STARTED].tolist(), spans[lines, S_STARTED + 1].tolist()
    dated = (s < 0 or is_timestamp(_text(text, s, e)) for s, e in zip(starts, ends, strict=True))
    return np.fromiter(dated, dtype=np.bool_, count=len(starts))


def check_records(records: Sequence[dict[str, Any]], min_games: int | None = None) -> Checked | None:
    """What :func:`pipeline.games.euchre.fast.check_batch` gives of parsed records,
    sooner: each record written back as JSON (about a microsecond a hand) and
    read by the scanner; only those it does not read (a name with an accent,
    say) are laid out in Python."""
    scanned = scan([orjson.dumps(r) for r in records], min_games=min_games)
    if scanned is None:
        return check_batch(records, min_games)
    read = set(scanned.read)
    rest = [i for i in range(len(records)) if i not in read]
    others = check_batch([records[i] for i in rest], 0) if rest else None
    if others is None:
        return scanned.checked
    return merged(scanned.checked, replace(others, records=np.array(rest, dtype=np.int64)[others.records]))


def cleared_lines(lines: Sequence[bytes]) -> list[ClearedReplay | None]:
    """For each line, its replay when the scanner reads it and the fast path
    clears it (with its hands' fingerprints), else None (the plugin's ``fast_lines``)."""
    scanned = scan(lines)
    if scanned is None:
        return [None] * len(lines)
    return cleared_replays(scanned.checked, scanned.game_ids, len(lines))


def cleared_line_rows(lines: Sequence[bytes]) -> ClearedLines | None:
    """The load's fast path straight from the bytes (the plugin's ``fast_line_rows``):
    the rows of the lines the scanner reads and the kernel clears, each with a
    record of its core fields and its content hash, none parsed into Python objects."""
    scanned = scan(lines)
    if scanned is None or not scanned.lines:
        return None
    digests = content_digests(lines, scanned.lines, text=scanned.text)
    keep = [k for k, digest in enumerate(digests) if digest is not None]
    checked = scanned.checked
    checked = replace(checked, records=checked.records[keep], game_rows=checked.game_rows[keep])
    records: list[dict[str, Any]] = [{}] * len(lines)
    positions = scanned.lines
    for k in keep:
        records[positions[k]] = _core_record(scanned, k, positions[k])
    rows = cleared_rows(records, checked)
    return ClearedLines(rows, [records[n] for n in rows.records], [digests[k] or "" for k in keep])


def _core_record(scanned: Scanned, k: int, n: int) -> dict[str, Any]:
    """What a cleared line's record holds besides its hands and rules (``k``: its
    rank among the cleared lines, ``n``: its position in the batch)."""
    record: dict[str, Any] = {"format": FORMAT, "game_id": scanned.game_ids[k], "players": scanned.players[k]}
    for key, at in (("source", S_SOURCE), ("started_at", S_STARTED)):
        if scanned.spans[n, at] >= 0:
            record[key] = _text(scanned.text, scanned.spans[n, at], scanned.spans[n, at + 1])
    row = scanned.checked.games[scanned.checked.game_rows[k]]
    if row[G_INIT] or row[G_INIT + 1]:
        record["initial_score"] = [int(row[G_INIT]), int(row[G_INIT + 1])]
    return record


def content_digests(
    lines: Sequence[bytes], chosen: Sequence[int], *, text: bytes | None = None
) -> list[str | None]:
    """The content hash (``warehouse.tables.content_hash``) of each chosen line the
    scanner read, from its canonical bytes written by the compiled kernel (None:
    the line repeats a key, which orjson would drop).  ``text``: the lines joined,
    when the caller has them already (:attr:`Scanned.text`)."""
    _compiled()
    starts, ends = _bounds(lines)
    picked = np.array(chosen, dtype=np.int64)
    out = np.empty(int((ends[picked] - starts[picked]).sum()) + 1, dtype=np.uint8)
    offsets = np.zeros(len(picked) + 1, dtype=np.int64)
    joined = b"".join(lines) if text is None else text
    _KERNEL.canonical_lines(np.frombuffer(joined, dtype=np.uint8), starts, ends, picked, out, offsets)
    bounds = offsets.tolist()
    sha256 = hashlib.sha256
    data = out.tobytes()
    return [sha256(data[a:b]).hexdigest() if b > a else None for a, b in itertools.pairwise(bounds)]


def _bounds(lines: Sequence[bytes]) -> tuple[Ints, Ints]:
    """Where each line starts and ends in the lines joined."""
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    ends = np.cumsum(lengths)
    return ends - lengths, ends


def read_rows(scanner: Any, lines: Sequence[bytes]) -> tuple[bytes, Ints, Ints, Ints]:
    """What the scanner reads of each line: the lines' text, a game row per line
    (``G_HANDS`` 0 when it gave up on the line), the spans of its strings
    (``fast_scan_kernel.S_*``) and the hand rows."""
    text = b"".join(lines)
    starts, ends = _bounds(lines)
    games = np.zeros((len(lines), G_WIDTH), dtype=np.int64)
    spans = np.empty((len(lines), S_WIDTH), dtype=np.int64)
    hands = np.empty((len(text) // _MIN_HAND_BYTES + 1, WIDTH), dtype=np.int64)
    buffer = np.frombuffer(text, dtype=np.uint8)
    used = scanner(buffer, starts, ends, _NAMES, _OFFSETS, _CARDS, games, spans, hands)
    return text, games, spans, hands[:used]


def scanner() -> Any:
    """The compiled scanner (None without numba)."""
    compiled = _compiled()
    return None if compiled is None else compiled[0]


def _with_rules(text: bytes, games: Ints, spans: Ints) -> tuple[list[int], list[Rules]]:
    """The lines read whose rules the kernel models, each game row given its rules' index."""
    read: list[int] = []
    rules: list[Rules] = []
    index: dict[Rules, int] = {}
    for n in np.flatnonzero(games[:, G_HANDS]).tolist():
        start, end = int(spans[n, S_RULES]), int(spans[n, S_RULES + 1])
        rule_set = rules_of(text[start:end] if start >= 0 else None)
        if rule_set is None:
            continue
        if rule_set not in index:
            index[rule_set] = len(rules)
            rules.append(rule_set)
        games[n, G_RULES] = index[rule_set]
        read.append(n)
    return read, rules


_RULES: dict[bytes | None, Rules | None] = {}


def rules_of(source: bytes | None) -> Rules | None:
    """The rules a ``rules`` object asks for, when the kernel models them (the 24-card deck)."""
    try:
        return _RULES[source]
    except KeyError:
        pass
    try:
        rules: Rules | None = Rules.from_record(None if source is None else orjson.loads(source))
    except (RulesError, orjson.JSONDecodeError):
        rules = None
    if rules is not None and rules.deck != 24:
        rules = None
    if len(_RULES) < 1024:
        _RULES[source] = rules
    return rules


def _text(text: bytes, start: Any, end: Any) -> str:
    return text[start:end].decode("ascii")


_KERNEL: Any = None
_NAMES: Any = None
_OFFSETS: Any = None
#: Two ASCII bytes -> card (-1: not a card token of the 24-card deck).
_CARDS: Any = None


def _compiled() -> tuple[Any, Any] | None:
    """The scanner and the fast path's kernel (None without numba)."""
    global _KERNEL, _NAMES, _OFFSETS, _CARDS
    check = kernel()
    if check is None:
        return None
    if _KERNEL is None:
        from pipeline.games.euchre import fast_scan_kernel

        _NAMES, _OFFSETS = fast_scan_kernel.key_table()
        _CARDS = np.full(128 * 128, -1, dtype=np.int64)
        for token, card in TOKENS.items():
            raw = token.encode() if isinstance(token, str) else b""
            if len(raw) == 2 and raw.isascii():
                _CARDS[raw[0] * 128 + raw[1]] = card
        _KERNEL = fast_scan_kernel
    return _KERNEL.scan_lines, check
