"""The byte scanner against orjson and the fast path's layout, line for line.

The scanner (``fast_scan``) must read a line only when ``orjson`` parses it to
a record that ``fast.layout`` lays out to the very same rows, game id, players
and rules; and it must read every plain (ASCII, unescaped) line the layout
takes, however it is spaced or ordered, or the fast path would do nothing.
Hypothesis then corrupts lines byte by byte -- a byte dropped, changed or
added, a number respelled, a key doubled, an escape -- and the first rule must
still hold.  Soundness against the reference replay is the fast path's own
test (``test_fast_path.py``), which checks ``scan`` too.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.euchre import fast
from pipeline.games.euchre.corrupt import FAULTS, reclaim
from pipeline.games.euchre.fast_rows import cleared_fingerprints
from pipeline.games.euchre.rules import PRESETS, Rules
from pipeline.games.euchre.simulate import simulate_game
from pipeline.record import is_timestamp
from pipeline.warehouse.tables import content_hash

pytest.importorskip("numba")
fast_scan = pytest.importorskip("pipeline.games.euchre.fast_scan")
S_ID, S_PLAYERS, S_RULES = fast_scan.S_ID, fast_scan.S_PLAYERS, fast_scan.S_RULES

Read = tuple[list[int], list[list[int]], str, list[str], Any]


def scanned(lines: list[bytes]) -> list[Read | None]:
    """What the scanner reads of each line: game row (less its first-hand index),
    hand rows, game id, players and rules object; None when it gives up (on the
    line, on its rules: another deck, an unknown option, or on a ``started_at``
    that is no timestamp, as :func:`fast_scan.scan` does)."""
    text, games, spans, hands = fast_scan.read_rows(fast_scan.scanner(), lines)
    out: list[Read | None] = []
    for row, span in zip(games.tolist(), spans.tolist(), strict=True):
        count, first = row[fast.G_HANDS], row[fast.G_FIRST]
        if not count:
            out.append(None)
            continue
        source = None if span[S_RULES] < 0 else text[span[S_RULES] : span[S_RULES + 1]]
        if fast_scan.rules_of(source) is None:  # rules the kernel does not model: given up too
            out.append(None)
            continue
        started = span[fast_scan.S_STARTED]
        if started >= 0 and not is_timestamp(text[started : span[fast_scan.S_STARTED + 1]].decode()):
            out.append(None)  # not a date the replay takes: not cleared either
            continue
        rules = None if source is None else orjson.loads(source)
        players = [text[span[p] : span[p + 1]].decode() for p in range(S_PLAYERS, S_PLAYERS + 8, 2)]
        game = [v for k, v in enumerate(row) if k not in (fast.G_FIRST, fast.G_RULES)]
        ident = text[span[S_ID] : span[S_ID + 1]].decode()
        out.append((game, hands[first : first + count].tolist(), ident, players, rules))
    return out


def laid_out(line: bytes) -> Read | None:
    """The same from ``orjson`` and ``fast.layout``; None when either refuses the line."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict):
        return None
    arrays = fast.layout([record])
    if arrays is None:
        return None
    games, hands, _ = arrays
    row = games[0].tolist()
    game = [v for k, v in enumerate(row) if k not in (fast.G_FIRST, fast.G_RULES)]
    return game, hands.tolist(), record["game_id"], record["players"], record.get("rules")


def plain(line: bytes) -> bool:
    """ASCII with no escape: the scanner's subset of JSON strings."""
    return line.isascii() and b"\\" not in line


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    """Clean games of every preset, each planted fault, and games with other options."""
    games = [simulate_game(n, seed=21, preset="mixed") for n in range(150)]
    games += [simulate_game(n, seed=22, preset=preset) for preset in PRESETS for n in range(30)]
    rng = random.Random(4)
    for fault in FAULTS:
        for record in games[:40]:
            candidate = copy.deepcopy(record)
            if fault.apply(candidate, rng):
                if fault.reclaim:
                    reclaim(candidate)
                games.append(candidate)
    for record in games[:60]:
        candidate = copy.deepcopy(record)
        candidate["rules"] = {"preset": rng.choice(list(PRESETS)), "target": rng.choice([5, 11])}
        if rng.random() < 0.3:
            candidate["rules"]["deck"] = rng.choice([24, 32])
        games.append(candidate)
    return games


def spellings(record: dict[str, Any]) -> list[bytes]:
    """One record written the ways exporters write JSON."""
    return [
        orjson.dumps(record),
        json.dumps(record).encode(),
        json.dumps(record, indent=1).replace("\n", " ").encode(),
        json.dumps(record, sort_keys=True, separators=(" ,", " : ")).encode(),
        b"  " + orjson.dumps(record) + b"\t ",
    ]


def test_reads_every_plain_line_the_layout_lays_out(records: list[dict[str, Any]]) -> None:
    lines = [line for record in records for line in spellings(record)]
    read = scanned(lines)
    chosen = [n for n, got in enumerate(read) if got is not None]
    digests = fast_scan.content_digests(lines, chosen)
    assert digests == [content_hash(orjson.loads(lines[n])) for n in chosen]
    for line, got in zip(lines, read, strict=True):
        expected = laid_out(line)
        if got is not None or (expected is not None and plain(line)):
            assert got == expected, line[:200]
    assert sum(r is not None for r in read) > len(lines) // 2


def test_scan_clears_exactly_what_fast_check_clears(records: list[dict[str, Any]]) -> None:
    lines = [orjson.dumps(r) for r in records]
    scan = fast_scan.scan(lines, min_games=0)
    assert scan is not None
    cleared = fast.fast_check(records, min_games=0)
    assert scan.lines == [n for n, ok in enumerate(cleared) if ok]
    assert scan.game_ids == [records[n]["game_id"] for n in scan.lines]
    assert scan.players == [records[n]["players"] for n in scan.lines]
    assert 0 < len(scan.lines) < len(lines)
    # the kernel's word on each cleared hand is the one the layout path gives
    replays = fast.fast_replays(records, min_games=0)
    checked = scan.checked
    built = fast.replays_of(
        scan.game_ids, checked.games[checked.game_rows], checked.hands, checked.results, checked.rules
    )
    for n, replay in zip(scan.lines, built, strict=True):
        reference = replays[n]
        assert reference is not None
        assert [vars_of(h) for h in replay.hands] == [vars_of(h) for h in reference.hands]
    # and so are the fingerprints validate's workers send
    prints = fast_scan.cleared_lines(lines)
    assert [p is not None for p in prints] == cleared
    expected = iter(cleared_fingerprints(fast.check_batch(records, 0)))  # type: ignore[arg-type]
    for mine in prints:
        if mine is not None:
            assert list(mine.fingerprints or []) == next(expected)


def vars_of(hand: Any) -> tuple[Any, ...]:
    return (hand.dealer, hand.trump, hand.maker, hand.points, hand.score, [list(t) for t in hand.tricks])


def test_lines_the_scanner_gives_up_on() -> None:
    record = simulate_game(0, seed=3, preset="cards4net")
    base = orjson.dumps(record)
    variants = {
        "escaped id": base.replace(b'"game_id":"', b'"game_id":"\\u0041', 1),
        "non-ASCII name": orjson.dumps({**record, "players": ["Zoé", "b", "c", "d"]}),
        "unknown key": orjson.dumps({**record, "comment": "x"}),
        "repeated key": base[:-1] + b',"game_id":"other"}',
        "float dealer": base.replace(b'"dealer":', b'"dealer":1.0,"x":', 1),
        "leading zero": base.replace(b'"dealer":', b'"dealer":0', 1),
        "two objects": base + b" {}",
        "cut short": base[:-1],
        "origin": orjson.dumps({**record, "origin": {"format": "egn"}}),
        "nested rules": orjson.dumps({**record, "rules": {"preset": {"x": 1}}}),
        "other format": base.replace(b"euchre/1", b"euchre/2"),
    }
    read = scanned(list(variants.values()))
    assert {name for name, got in zip(variants, read, strict=True) if got is not None} == set()
    assert scanned([base])[0] == laid_out(base)
    assert fast_scan.scan([variants["unknown key"]], min_games=0) is None


def _respell(line: bytes, data: st.DataObject) -> bytes:
    """One corruption of a line, chosen by hypothesis."""
    at = data.draw(st.integers(0, len(line) - 1))
    kind = data.draw(st.sampled_from(["drop", "change", "insert", "space", "number", "key", "escape"]))
    if kind == "drop":
        return line[:at] + line[at + 1 :]
    if kind == "change":
        return line[:at] + bytes([data.draw(st.integers(0, 255))]) + line[at + 1 :]
    if kind == "insert":
        return line[:at] + data.draw(st.binary(min_size=1, max_size=4)) + line[at:]
    if kind == "space":
        return (
            line[:at] + data.draw(st.sampled_from([b" ", b"\t", b"\r", b"\n", b"\x0b", b"\xa0"])) + line[at:]
        )
    if kind == "number":
        digit = next((i for i in range(at, len(line)) if 48 <= line[i] <= 57), None)
        if digit is None:
            return line
        spelled = data.draw(st.sampled_from([b".0", b"e0", b"E1", b"0", b"9999999999", b"-"]))
        return line[: digit + 1] + spelled + line[digit + 1 :]
    if kind == "key":
        key = data.draw(st.sampled_from([b'"dealer"', b'"seat"', b'"hands"', b'"alone"', b'"points"']))
        return line.replace(key + b":", key + b":0," + key + b":", 1)
    return line[:at] + data.draw(st.sampled_from([b"\\", b'\\"', b"\\u0041", b'"'])) + line[at:]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_bytes_are_read_as_orjson_reads_them(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    record = data.draw(st.sampled_from(records[:200]))
    line = data.draw(st.sampled_from(spellings(record)))
    for _ in range(data.draw(st.integers(1, 3))):
        line = _respell(line, data)
    got = scanned([line, orjson.dumps(record)])
    if got[0] is not None:
        assert got[0] == laid_out(line)
        assert fast_scan.content_digests([line], [0]) == [content_hash(orjson.loads(line))]
    assert got[1] == laid_out(orjson.dumps(record))  # a bad line does not spill into the next


def test_each_line_of_a_batch_gets_its_own_rows() -> None:
    record = simulate_game(1, seed=5, preset="cards4net")
    lines = [orjson.dumps(record)] * 3
    _, games, _, hands = fast_scan.read_rows(fast_scan.scanner(), lines)
    assert (games[:, fast.G_HANDS] == len(record["hands"])).all()
    assert len(hands) == 3 * len(record["hands"])
    assert np.array_equal(hands[: len(record["hands"])], fast.layout([record])[1])  # type: ignore[index]


def test_rules_are_read_by_the_rules_module(records: list[dict[str, Any]]) -> None:
    lines = [orjson.dumps(r) for r in records[:50]]
    scan = fast_scan.scan(lines, min_games=0)
    assert scan is not None
    checked = scan.checked
    indices = checked.games[checked.game_rows, fast.G_RULES].tolist()
    for n, index in zip(scan.lines, indices, strict=True):
        assert checked.rules[index] == Rules.from_record(records[n].get("rules"))


def test_check_records_gives_what_check_batch_gives(records: list[dict[str, Any]]) -> None:
    """Records read back by the scanner and the rest (names with accents, escapes)
    laid out in Python: the same verdicts, fingerprints and rows as all laid out."""
    from pipeline.games.euchre.fast_rows import cleared_rows

    mixed = [copy.deepcopy(r) for r in records]
    for record in mixed[::3]:
        record["players"] = ["Zoé", *record["players"][1:]]
    for record in mixed[1::5]:
        record["game_id"] += '"quoted"'
    ours = fast_scan.check_records(mixed, min_games=0)
    theirs = fast.check_batch(mixed, 0)
    assert ours is not None and theirs is not None
    assert ours.records.tolist() == theirs.records.tolist()
    assert cleared_fingerprints(ours) == cleared_fingerprints(theirs)
    a, b = cleared_rows(mixed, ours), cleared_rows(mixed, theirs)
    assert (a.records, a.facts, a.hands) == (b.records, b.facts, b.hands)
    assert a.tables.keys() == b.tables.keys()
    for table in a.tables:
        assert a.tables[table].equals(b.tables[table]), table


def test_a_repeated_key_has_no_canonical_bytes() -> None:
    """orjson keeps the last of repeated keys: such a line is hashed the slow way."""
    record = simulate_game(2, seed=5, preset="cards4net")
    assert b'"rules":{"preset":' in orjson.dumps(record)
    line = orjson.dumps(record).replace(b'"rules":{', b'"rules":{"preset":"pagat",', 1)
    assert scanned([line])[0] is not None
    assert fast_scan.content_digests([line], [0]) == [None]
    cleared = fast_scan.cleared_line_rows([line, orjson.dumps(record)])
    assert cleared is not None and cleared.rows.records == [1]
    assert cleared.digests == [content_hash(record)]
    assert cleared.records[0]["game_id"] == record["game_id"]


def test_a_helper_is_compiled_once_whatever_constants_it_is_given() -> None:
    """Three constants given to a helper make one compile, for an int64
    (``fast_scan_kernel._jit``), not one per constant."""
    from numba.core import types

    from pipeline.games.euchre import fast_scan_kernel

    text = types.Array(types.uint8, 1, "C", readonly=True)
    for ch in (91, 93, 123):
        fast_scan_kernel._byte.get_call_template(
            (text, types.int64, types.int64, types.IntegerLiteral(ch)), {}
        )
    assert [str(sig) for sig in fast_scan_kernel._byte.signatures] == [
        "(Array(uint8, 1, 'C', True, aligned=True), int64, int64, int64)"
    ]
