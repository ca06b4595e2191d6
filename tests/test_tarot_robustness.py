"""The Tarot replay and the TarotClub import never raise, whatever a record holds:
any node replaced by any JSON value gives violations with a known code, not exceptions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fuzzing import any_node_replaced, json_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.tarot.codes import CODES
from pipeline.games.tarot.importers.tarotclub import deal_to_record
from pipeline.games.tarot.replay import replay_game

FIXTURES = Path(__file__).parent / "fixtures" / "tarot"
JSON = json_values(max_int=80)


def _spec_game(game_id: str) -> dict[str, Any]:
    for line in (FIXTURES / "spec-examples" / "tarot-fft.jsonl").read_text().splitlines():
        record: dict[str, Any] = json.loads(line)
        if record["game_id"] == game_id:
            record["hands"] = record["hands"][:2]
            return record
    raise KeyError(game_id)


BASES = [
    json.loads((FIXTURES / "one-hand.json").read_text()),
    _spec_game("tarot-905-0"),
    _spec_game("tarot-905-2"),
]
DEALS = [json.loads(p.read_text()) for p in sorted(FIXTURES.glob("tarotclub-*.json"))]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(BASES), pick=st.integers(min_value=0), value=JSON)
def test_any_node_replaced_by_any_value_gives_violations_not_exceptions(
    base: dict[str, Any], pick: int, value: Any
) -> None:
    record = any_node_replaced(base, pick, value)
    replay = replay_game(record)
    assert all(v.code in CODES and v.message for v in replay.violations)
    for hand in replay.hands:
        assert hand.valid == all(v.hand != hand.index for v in replay.violations)


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_any_value_as_a_whole_record(value: Any) -> None:
    replay = replay_game(value if isinstance(value, dict) else {"hands": value})
    assert all(v.code in CODES for v in replay.violations)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(DEALS), pick=st.integers(min_value=0), value=JSON)
def test_any_tarotclub_node_replaced_gives_a_record_or_violations(
    base: dict[str, Any], pick: int, value: Any
) -> None:
    deal = any_node_replaced(base, pick, value)
    record, problems = deal_to_record(deal, game_id="fuzz")
    assert (record is None) == bool(problems)
    assert all(v.code in CODES for v in problems)
    if record is not None:
        assert all(v.code in CODES for v in replay_game(record).violations)


def test_rules_of_any_shape_are_a_schema_violation() -> None:
    base = json.loads((FIXTURES / "one-hand.json").read_text())
    for rules in (
        {"preset": []},
        {"preset": "fft", "poignee_to": []},
        [],
        "fft",
        {"misere": "yes"},
        {"x": 1},
    ):
        record = dict(base, rules=rules)
        codes = [v.code for v in replay_game(record).violations]
        assert codes == ["schema"], (rules, codes)


def test_rules_round_trip() -> None:
    from pipeline.games.tarot.rules import Rules

    local = Rules.from_record({"preset": "fft", "poignee_values": [20, 40, 60], "excuse_last_trick": "lost"})
    assert Rules.from_record(local.as_dict()) == local
    assert local.as_dict()["poignee_values"] == [20, 40, 60] and local.preset == "fft"
