"""The fast path's columnar rows against the reference replay's rows.

For the games the fast path clears, the Euchre rows are built as Arrow columns
straight from the kernel's arrays (``fast_rows.py``) and each hand's
fingerprint from a compiled text writer.  Shown here: the fingerprints are
``hand_fingerprint``'s byte for byte, the columnar tables are exactly the
frames the row builder gives (values and Arrow types: they skip the per-row
pandera check), and a load with the fast path on gives the same warehouse,
table for table, as one with it off, on simulated games of every preset mixed
with planted faults, repeated lines and OpenSpiel imports in one batch.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_fast_path import _random_options
from warehouse_helpers import every_row

from pipeline.games import ClearedReplay
from pipeline.games.euchre import fast
from pipeline.games.euchre.fingerprint import hand_fingerprints
from pipeline.games.euchre.plugin import GAME
from pipeline.games.euchre.replay import replay_game
from pipeline.games.euchre.rules import PRESETS
from pipeline.games.euchre.simulate import simulate_game, write_simulation
from pipeline.warehouse.tables import RECORD, Batch

pytest.importorskip("numba")
fast_rows = pytest.importorskip("pipeline.games.euchre.fast_rows")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def games() -> list[dict[str, Any]]:
    """Simulated games of every preset (lone hands, lone defenders, thrown-in hands,
    discards among them), some carried in at a running score, some under random
    rule options (clean or not), and OpenSpiel imports."""
    records = [simulate_game(n, seed=21, preset="mixed") for n in range(300)]
    records += [simulate_game(n, seed=22 + k, preset=p) for k, p in enumerate(PRESETS) for n in range(60)]
    rng = random.Random(8)
    for record in records[:40]:
        carried = copy.deepcopy(record)
        carried["game_id"] += "-carried"
        carried["initial_score"] = [rng.randrange(5), rng.randrange(5)]
        carried.pop("final_score", None)
        for hand in carried["hands"]:
            hand.pop("claimed", None)
        records.append(carried)
    for record in records[:150]:
        varied = copy.deepcopy(record)
        varied["game_id"] += "-options"
        varied["rules"] = _random_options(rng)
        records.append(varied)
    return records + _openspiel_records()


def _openspiel_records() -> list[dict[str, Any]]:
    from pipeline.games.euchre.importers.openspiel import history_to_record

    out = []
    for i, line in enumerate((ROOT / "data/openspiel/sample.jsonl").read_bytes().splitlines()):
        value = orjson.loads(line)
        record, _ = history_to_record(value["game"], value["history"], game_id=f"os-{i}")
        if record is not None:
            out.append(record)
    return out


def _checked(records: list[dict[str, Any]]) -> fast.Checked:
    checked = fast.check_batch(records, min_games=0)
    assert checked is not None
    return checked


def test_the_games_cover_every_shape(games: list[dict[str, Any]]) -> None:
    hands = [h for g in games for h in replay_game(g).hands]
    assert len(hands) > 5000
    assert any(h.alone for h in hands) and any(h.defender_alone is not None for h in hands)
    assert any(h.thrown_in for h in hands) and any(h.discard is not None for h in hands)
    assert any(h.round == 2 for h in hands) and any(h.round == 1 for h in hands)


def test_fingerprints_are_hand_fingerprint_byte_for_byte(games: list[dict[str, Any]]) -> None:
    checked = _checked(games)
    assert len(checked.records) > 0.7 * len(games)
    assert any(games[i]["game_id"].endswith("-options") for i in checked.records.tolist())
    prints = fast_rows.cleared_fingerprints(checked)
    for i, found in zip(checked.records.tolist(), prints, strict=True):
        assert found == hand_fingerprints(replay_game(games[i])), games[i]["game_id"]


def test_fast_check_gives_the_fingerprints(
    games: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What validate's workers read: the cleared game's hands, deals known, and fingerprints."""
    monkeypatch.setattr(fast, "MIN_GAMES", 0)
    assert GAME.fast_check is not None
    for record, replay in zip(games, GAME.fast_check(games), strict=True):
        if replay is not None:
            assert isinstance(replay, ClearedReplay) and replay.fingerprints is not None
            assert [h.deal_known for h in replay.hands] == [True] * len(record["hands"])
            assert list(replay.fingerprints) == hand_fingerprints(replay_game(record))


def test_a_batch_with_nothing_cleared(games: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast, "MIN_GAMES", 0)
    broken = copy.deepcopy(games[:3])
    for record in broken:
        record["hands"][0]["dealer"] = (record["hands"][0]["dealer"] + 1) % 4
    assert GAME.fast_check is not None and GAME.fast_rows is not None
    assert GAME.fast_check(broken) == [None] * 3 and GAME.fast_rows(broken) is None
    checked = _checked(broken)
    assert fast_rows.cleared_fingerprints(checked) == []


def _sorted(table: Any) -> Any:
    keys = [
        c for c in ("game_id", "hand_no", "bid_no", "trick_no", "play_no", "seat") if c in table.column_names
    ]
    return table.sort_by([(k, "ascending") for k in keys])


def test_columnar_tables_are_the_row_builders_frames(games: list[dict[str, Any]]) -> None:
    """Values and Arrow types: what ``table_rows`` and ``Batch.frames`` give the replays."""
    checked = _checked(games)
    built = fast_rows.cleared_rows(games, checked)
    tables = GAME.tables() if GAME.tables else None
    assert tables is not None
    reference: dict[str, list[tuple[Any, ...]]] = {}
    for i in built.records:
        for table, rows in tables.rows(games[i], replay_game(games[i]), frozenset()).items():
            reference.setdefault(table, []).extend(rows)
    frames = Batch(0, reference).frames(tables.models)
    assert set(built.tables) == set(frames)
    for table, data in built.tables.items():
        expected = frames[table].to_arrow()
        got = data.drop_columns([RECORD])
        assert got.schema == expected.schema, table
        assert _sorted(got).equals(_sorted(expected)), table
        tables.models[table].validate(frames[table])
    for i, facts, hands in zip(built.records, built.facts, built.hands, strict=True):
        replay = replay_game(games[i])
        assert facts == tables.facts(replay) and hands == len(replay.hands)


def _input(tmp_path: Path, games: list[dict[str, Any]]) -> Path:
    """Simulated games with planted faults (malformed lines, repeated ids among them),
    the fixture's games, a repeated line and a line that is no game, shuffled."""
    path = tmp_path / "games.jsonl"
    write_simulation(path, 400, seed=5, preset="mixed", corrupt_rate=0.25)
    lines = path.read_bytes().splitlines()
    lines += [orjson.dumps(g) for g in games]
    lines += [lines[7], lines[-3], b"[1]", b"{}"]
    random.Random(3).shuffle(lines)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.mark.parametrize("jobs", [1, 2])
def test_load_with_columnar_rows_is_the_load_without_the_fast_path(
    games: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    from pipeline import parallel
    from pipeline.warehouse import dask_engine
    from pipeline.warehouse.api import load

    path = _input(tmp_path, games)
    monkeypatch.setattr(parallel, "CHUNK_LINES", 150)  # more than one: with two jobs, two processes
    monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", 10**15)
    reference = [load([str(path)], tmp_path / "off.duckdb", batch_size=300) for _ in range(2)]
    monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", 0)
    monkeypatch.setattr(fast, "MIN_GAMES", 0)
    cleared: list[int] = []
    bulk, from_bytes = dask_engine.clear_in_bulk, dask_engine.clear_lines_in_bulk

    def counted(items: Any) -> Any:
        found = bulk(items)
        cleared.append(len(found.facts))
        return found

    def counted_lines(lines: Any) -> Any:
        found = from_bytes(lines)
        cleared.append(len(found.found))
        return found

    monkeypatch.setattr(dask_engine, "clear_in_bulk", counted)
    monkeypatch.setattr(dask_engine, "clear_lines_in_bulk", counted_lines)
    on = [load([str(path)], tmp_path / "on.duckdb", batch_size=300, jobs=jobs) for _ in range(2)]
    assert [{**s.to_json(), "db": None} for s in on] == [{**s.to_json(), "db": None} for s in reference]
    assert on[0].quarantined > 0 and on[0].violations > 0 and on[1].already_present == on[1].lines
    if jobs == 1:  # in this process: the columnar rows were used
        assert sum(cleared) > len(games) // 2
    assert every_row(tmp_path / "on.duckdb") == every_row(tmp_path / "off.duckdb")
