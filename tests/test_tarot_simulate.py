"""The Tarot simulator, the planted faults, and the spec's own example games."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
import pytest

from pipeline.games.tarot.corrupt import FAULT_CODES
from pipeline.games.tarot.replay import replay_game
from pipeline.games.tarot.simulate import simulate_game, write_simulation
from pipeline.sources import parse_line
from pipeline.violations import TricklogError

EXAMPLES = Path(__file__).parent / "fixtures" / "tarot" / "spec-examples"


def test_same_seed_same_file(tmp_path: Path) -> None:
    a = write_simulation(tmp_path / "a.jsonl", 6, seed=5)
    b = write_simulation(tmp_path / "b.jsonl", 6, seed=5, workers=2)
    assert (b.games, b.hands) == (a.games, a.hands)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (a.games, a.corrupted, a.corruptions_path) == (6, 0, None)
    assert a.hands == sum(
        len(json.loads(line)["hands"]) for line in (tmp_path / "a.jsonl").read_text().splitlines()
    )
    write_simulation(tmp_path / "c.jsonl", 6, seed=6)
    assert (tmp_path / "c.jsonl").read_bytes() != (tmp_path / "a.jsonl").read_bytes()


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(TricklogError):
        write_simulation(tmp_path / "x.jsonl", 1, seed=0, preset="nope")
    with pytest.raises(TricklogError):
        write_simulation(tmp_path / "x.jsonl", 1, seed=0, corrupt_rate=2.0)


def test_the_bots_play_every_contract_and_announce() -> None:
    seen: Counter[str] = Counter()
    for n in range(120):
        for hand in replay_game(simulate_game(n, seed=1)).hands:
            seen[hand.contract or str(hand.thrown_in)] += 1
            seen.update(f"poignee_{name}" for _, name in hand.poignees)
            if hand.petit_au_bout:
                seen["petit_au_bout"] += 1
    for key in ("prise", "garde", "garde_sans", "all_passed", "poignee_simple", "petit_au_bout"):
        assert seen[key] > 0, seen
    assert seen["prise"] + seen["garde"] > 10 * (seen["garde_sans"] + seen["garde_contre"])


def test_every_code_is_planted_and_found(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = write_simulation(path, 90, seed=3, corrupt_rate=0.6)
    assert result.corruptions_path == tmp_path / "games.corruptions.json"
    entries = json.loads(result.corruptions_path.read_text())
    assert {e["code"] for e in entries} == set(FAULT_CODES)
    assert all(set(e) == {"game_id", "code", "fault", "line", "hand", "trick", "seat"} for e in entries)
    lines = path.read_bytes().splitlines()
    seen_ids: set[str] = set()
    by_line = {e["line"]: e for e in entries}
    for number, line in enumerate(lines, start=1):
        item = parse_line(str(path), number, line)
        entry = by_line.get(number)
        if item.record is None:
            assert entry is not None and entry["code"] == "malformed_json"
            continue
        game_id = item.record["game_id"]
        codes = {v.code for v in replay_game(item.record).violations}
        if game_id in seen_ids:
            codes.add("duplicate_game")
        seen_ids.add(game_id)
        if entry is None:
            assert codes == set(), (number, codes)
        else:
            assert codes == {entry["code"]}, (number, entry, codes)
            if entry["code"] not in ("duplicate_game", "malformed_json"):
                first = next(v for v in replay_game(item.record).violations if v.code == entry["code"])
                assert (first.hand, first.trick, first.seat) == (entry["hand"], entry["trick"], entry["seat"])


def test_spec_valid_examples_replay_clean() -> None:
    for line in (EXAMPLES / "tarot-fft.jsonl").read_text().splitlines():
        game = replay_game(orjson.loads(line))
        assert game.violations == [], game.game_id
        claimed = [h["claimed"]["totals"] for h in orjson.loads(line)["hands"]]
        assert list(game.hands[-1].totals) == claimed[-1]


def test_spec_corrupt_examples_give_their_codes() -> None:
    expected = json.loads((EXAMPLES / "tarot-corrupt.expected.json").read_text())
    for line in (EXAMPLES / "tarot-corrupt.jsonl").read_text().splitlines():
        game = replay_game(orjson.loads(line))
        assert game.game_id is not None
        codes = [v.code for v in game.violations]
        assert len(codes) == 1 and codes[0] in expected[game.game_id].split("|"), (game.game_id, codes)


def test_spec_examples_hold_a_defence_chelem_and_a_failed_announced_chelem() -> None:
    games = {
        g.game_id: g
        for g in (
            replay_game(orjson.loads(line))
            for line in (EXAMPLES / "tarot-fft.jsonl").read_text().splitlines()
        )
    }
    failed = games["tarot-905-0"].hands[1]
    assert (failed.contract, failed.chelem_announced, failed.chelem_made, failed.made) == (
        "garde_contre",
        True,
        False,
        False,
    )
    # 26 points and no bout: down by 30 in garde contre, -(25 + 30) x 6, and the chelem failed: -200
    assert failed.contract_score == -(25 + 30) * 6 - 200 == -530
    defence = games["tarot-905-2"].hands[1]
    assert (defence.contract, defence.taker_tricks, defence.defence_chelem) == ("garde_sans", 0, True)
    assert defence.taker_points == 3.0  # the unseen chien, counted for the taker in garde sans
