"""The simulator and its injected faults, checked against the replay.

Simulated games of every preset must replay clean; every fault must be
reported with its code (and a kept corruption with that code only); the same
seed must give the same bytes; and the bots must play like people: about one
contract in six euchred, most trumps made in round one, lone hands rare.
"""

from __future__ import annotations

import importlib.util
import random
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.euchre.codes import CODES
from pipeline.games.euchre.corrupt import (
    FAULT_CODES,
    FAULTS,
    Fault,
    codes_of,
    copy_record,
    corrupt_game,
    reclaim,
)
from pipeline.games.euchre.replay import replay_game
from pipeline.games.euchre.rules import PRESETS
from pipeline.games.euchre.simulate import (
    corruptions_path_for,
    simulate_game,
    simulate_games,
    write_simulation,
)
from pipeline.sources import parse_line
from pipeline.validate import check_inputs
from pipeline.violations import TricklogError

SEEDS = st.integers(min_value=0, max_value=2**32)
PRESET_NAMES = st.sampled_from([*PRESETS, "mixed"])
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------
# Clean games


@FAST
@given(seed=SEEDS, preset=PRESET_NAMES, n=st.integers(min_value=0, max_value=50))
def test_simulated_games_replay_clean(seed: int, preset: str, n: int) -> None:
    record = simulate_game(n, seed=seed, preset=preset)
    game = replay_game(record)
    assert game.violations == []
    assert game.ended_at == len(record["hands"]) - 1
    assert list(game.score) == record["final_score"]
    assert game.rules is not None and max(game.score) >= game.rules.target


@FAST
@given(seed=SEEDS, preset=st.sampled_from(list(PRESETS)))
def test_records_carry_every_field(seed: int, preset: str) -> None:
    record = simulate_game(0, seed=seed, preset=preset)
    assert record["format"] == "euchre/1"
    assert record["game_id"] == f"sim-{seed}-0"
    assert record["rules"] == {"preset": preset}
    assert record["source"] == "tricklog-simulate"
    assert record["started_at"].endswith("Z")
    assert len(set(record["players"])) == 4
    for hand in record["hands"]:
        assert {"dealer", "deal", "upcard", "kitty", "bids", "claimed"} <= hand.keys()
        assert ("tricks" in hand) != ("thrown_in" in hand)
        assert "score" in hand["claimed"] and "points" in hand["claimed"]


def test_mixed_rotates_the_presets() -> None:
    presets = [g["rules"]["preset"] for g in simulate_games(6, seed=1, preset="mixed")]
    assert presets == ["cards4net", "pagat", "french"] * 2


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(TricklogError, match="unknown preset 'bridge'"):
        next(simulate_games(1, preset="bridge"))


# --------------------------------------------------------------------------
# Faults


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, preset=st.sampled_from(list(PRESETS)))
def test_every_fault_is_reported_with_its_code(fault: Fault, seed: int, preset: str) -> None:
    record = simulate_game(0, seed=seed, preset=preset)
    broken = copy_record(record)
    if not fault.apply(broken, random.Random(seed)):
        return  # the fault does not fit this game (say, no lone hand)
    if fault.reclaim:
        reclaim(broken)
    assert fault.code in codes_of(broken)


@pytest.mark.parametrize("code", FAULT_CODES)
@settings(max_examples=4, deadline=None)
@given(seed=SEEDS, preset=st.sampled_from(list(PRESETS)))
def test_a_kept_corruption_raises_exactly_its_code(code: str, seed: int, preset: str) -> None:
    record = simulate_game(1, seed=seed, preset=preset)
    corruption = corrupt_game(record, code, random.Random(seed), line=2, previous_id=f"sim-{seed}-0")
    if corruption is None:
        return
    assert corruption.code == code
    assert _codes_of_line(corruption.text, seen={f"sim-{seed}-0"}) == {code}


def test_fault_codes_are_every_spec_code_but_unsupported() -> None:
    assert set(FAULT_CODES) == set(CODES) - {"unsupported"}
    assert {f.code for f in FAULTS} | {"malformed_json", "duplicate_game"} == set(FAULT_CODES)


def _codes_of_line(text: bytes, seen: set[str]) -> set[str]:
    """What a validator reports for one line, given the game ids seen before it."""
    item = parse_line("t.jsonl", 1, text)
    if item.record is None:
        return {v.code for v in item.violations}
    codes = codes_of(item.record)
    if item.record.get("game_id") in seen:
        codes.add("duplicate_game")
    return codes


# --------------------------------------------------------------------------
# Files


def _validate(path: Path) -> set[tuple[int, str]]:
    """(line, code) for every violation of a games file."""
    found: set[tuple[int, str]] = set()
    seen: set[str] = set()
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        found |= {(number, code) for code in _codes_of_line(line, seen)}
        item = parse_line(str(path), number, line)
        if item.record is not None:
            seen.add(item.record["game_id"])
    return found


def test_corrupted_file_reports_exactly_its_corruptions(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = write_simulation(path, 120, seed=4, preset="mixed", corrupt_rate=0.3)
    assert result.games == 120 and result.corruptions_path == corruptions_path_for(path)
    entries: list[dict[str, Any]] = orjson.loads(result.corruptions_path.read_bytes())
    assert entries == [c.to_json() for c in result.corruptions]
    assert {e["code"] for e in entries} == set(FAULT_CODES)
    assert _validate(path) == {(e["line"], e["code"]) for e in entries}


#: Codes whose planted faults have a seat at fault (the others are the log's, or the deck's).
SEATED_CODES = {
    "schema",
    "dealer_rotation",
    "bid_turn",
    "bid_illegal",
    "discard",
    "lead",
    "play_turn",
    "not_held",
    "renege",
    "sitting_out",
}


def test_every_planted_fault_is_reported_at_its_hand_trick_and_seat(tmp_path: Path) -> None:
    """The fault planter knows where it struck; the validator must say the same place."""
    path = tmp_path / "games.jsonl"
    result = write_simulation(path, 300, seed=12, preset="mixed", corrupt_rate=0.5, workers=1)
    assert result.corruptions_path is not None
    entries: list[dict[str, Any]] = orjson.loads(result.corruptions_path.read_bytes())
    found = {
        (v.line, v.code, v.hand, v.trick, v.seat)
        for checked in check_inputs([str(path)])
        for v in checked.violations
    }
    seated = [e for e in entries if e["seat"] is not None]
    assert {e["code"] for e in seated} == SEATED_CODES
    for e in entries:
        if e["hand"] is None and e["seat"] is None:
            continue
        assert any(
            (line, code, hand) == (e["line"], e["code"], e["hand"])
            and (e["trick"] is None or trick == e["trick"])
            and (e["seat"] is None or seat == e["seat"])
            for line, code, hand, trick, seat in found
        ), e


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a, b, c = (tmp_path / f"{name}.jsonl" for name in "abc")
    write_simulation(a, 30, seed=9, preset="mixed", corrupt_rate=0.2)
    write_simulation(b, 30, seed=9, preset="mixed", corrupt_rate=0.2)
    write_simulation(c, 30, seed=10, preset="mixed", corrupt_rate=0.2)
    assert a.read_bytes() == b.read_bytes()
    assert corruptions_path_for(a).read_bytes() == corruptions_path_for(b).read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_no_corruption_map_without_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "clean.jsonl"
    result = write_simulation(path, 5, seed=0, preset="pagat")
    assert result.corruptions == [] and result.corruptions_path is None
    assert not corruptions_path_for(path).exists()
    assert _validate(path) == set()


# --------------------------------------------------------------------------
# Statistics: the bots play like people


def _hand_stats(records: list[dict[str, Any]]) -> Counter[str]:
    stats: Counter[str] = Counter()
    for record in records:
        for hand in record["hands"]:
            if "thrown_in" in hand:
                stats["thrown_in"] += 1
                continue
            call = next(b for b in hand["bids"] if b["call"] != "pass")
            team = call["seat"] % 2
            tricks = sum(w % 2 == team for w in hand["claimed"]["trick_winners"])
            stats["contracts"] += 1
            stats["round_one"] += call["call"] == "order"
            stats["euchred"] += tricks < 3
            stats["alone"] += bool(call.get("alone"))
            stats["defender_alone"] += "defender_alone" in hand
    return stats


def test_bots_play_like_people() -> None:
    stats = _hand_stats(list(simulate_games(2000, seed=2024, preset="mixed")))
    contracts = stats["contracts"]
    assert 0.10 <= stats["euchred"] / contracts <= 0.25
    assert stats["round_one"] / contracts > 0.5
    assert 0 < stats["alone"] / contracts < 0.05
    assert 0 < stats["defender_alone"] / contracts < 0.01


# --------------------------------------------------------------------------
# The committed sample

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"
MAKE_SAMPLE = SAMPLE.parent / "make_sample.py"


def test_committed_sample_reports_exactly_its_corruptions() -> None:
    entries: list[dict[str, Any]] = orjson.loads((SAMPLE / "corrupt.corruptions.json").read_bytes())
    assert {e["code"] for e in entries} == set(FAULT_CODES)
    assert _validate(SAMPLE / "corrupt.jsonl") == {(e["line"], e["code"]) for e in entries}
    for name in ("cards4net", "pagat", "french"):
        assert _validate(SAMPLE / f"{name}.jsonl") == set(), name


def test_committed_sample_is_what_make_sample_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_sample", MAKE_SAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(tmp_path) == 0
    for path in sorted(tmp_path.iterdir()):
        same = path.read_bytes() == (SAMPLE / path.name).read_bytes()
        assert same, f"data/sample/{path.name} is stale: run data/make_sample.py"


def test_worker_processes_write_the_same_file(tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    write_simulation(one, 25, seed=6, preset="mixed", corrupt_rate=0.2, workers=1)
    write_simulation(two, 25, seed=6, preset="mixed", corrupt_rate=0.2, workers=2)
    assert one.read_bytes() == two.read_bytes()


def test_simulate_to_stdout_writes_the_file_it_would_write(tmp_path: Path) -> None:
    """``-o -`` is stdout (it wrote a file named ``-``); --corrupt, which lists its
    faults beside the games, needs a file name."""
    from cli import run

    file = tmp_path / "games.jsonl"
    assert run("simulate", "--games", "5", "--seed", "3", "-o", str(file)).returncode == 0
    piped = run("simulate", "--games", "5", "--seed", "3", "-o", "-", cwd=tmp_path)
    assert piped.returncode == 0
    assert piped.stdout == file.read_text()
    assert piped.stderr.strip() == "wrote 5 games to stdout"
    assert not (tmp_path / "-").exists()
    corrupt = run("simulate", "--games", "5", "--corrupt", "0.5", "-o", "-", cwd=tmp_path)
    assert corrupt.returncode == 2 and "give -o a file name" in corrupt.stderr
