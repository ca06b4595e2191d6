"""The record spec's own example games: the valid ones replay clean, each corrupted one
raises the code the spec gives it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.validate import check_games, read_inputs

EXAMPLES = Path(__file__).parent / "fixtures" / "spec-examples"


@pytest.mark.parametrize("name", ["euchre-cards4net.jsonl", "euchre-pagat.jsonl", "euchre-french.jsonl"])
def test_valid_examples_replay_clean(name: str) -> None:
    games = list(check_games(read_inputs([str(EXAMPLES / name)])))
    assert len(games) == 5
    assert [v.message for g in games for v in g.violations] == []


def test_corrupted_examples_raise_their_codes() -> None:
    expected = json.loads((EXAMPLES / "euchre-corrupt.expected.json").read_text())
    games = list(check_games(read_inputs([str(EXAMPLES / "euchre-corrupt.jsonl")])))
    assert {g.replay.game_id for g in games if g.replay} == set(expected)
    for game in games:
        assert game.replay is not None
        found = {v.code for v in game.violations}
        assert found & set(expected[game.replay.game_id].split("|")), (game.replay.game_id, found)
