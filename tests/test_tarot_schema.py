"""The JSON Schema of tarot/1 accepts the records the replay accepts, rejects bad shapes,
and bounds every number so that it fits a 32-bit column."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from record_schema import RecordSchema

from pipeline.games.tarot.simulate import simulate_game

FIXTURES = Path(__file__).parent / "fixtures" / "tarot"
SCHEMA = json.loads(resources.files("pipeline.games.tarot").joinpath("record.schema.json").read_text())
RECORDS = RecordSchema(SCHEMA)
errors = RECORDS.errors


def base() -> dict[str, Any]:
    return json.loads((FIXTURES / "one-hand.json").read_text())  # type: ignore[no-any-return]


def test_schema_is_valid() -> None:
    RECORDS.check()


@pytest.mark.parametrize("seed", range(10))
def test_simulated_games_conform(seed: int) -> None:
    assert errors(simulate_game(seed, seed=seed)) == []


def test_spec_examples_conform() -> None:
    for name in ("tarot-fft.jsonl", "tarot-corrupt.jsonl"):
        for line in (FIXTURES / "spec-examples" / name).read_text().splitlines():
            record = json.loads(line)
            if record["game_id"] != "tarot-906-6-deck":  # a card dealt twice breaks uniqueItems
                assert errors(record) == [], record["game_id"]


def test_every_number_is_bounded() -> None:
    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            if node.get("type") in ("integer", "number"):
                assert "maximum" in node and "minimum" in node, path
                assert node["minimum"] >= -(2**31) and node["maximum"] <= 2**31 - 1, path
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")

    walk(SCHEMA, "$")


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        (lambda r: r.pop("players"), "'players' is a required property"),
        (lambda r: r.__setitem__("format", "tarot/2"), "'tarot/1' was expected"),
        (lambda r: r["hands"][0].__setitem__("dealer", 4), "4 is greater than the maximum of 3"),
        (lambda r: r["hands"][0]["deal"][0].__setitem__(0, "T22"), "does not match"),
        (lambda r: r["hands"][0]["deal"][0].__setitem__(0, "11H"), "does not match"),
        (lambda r: r["hands"][0]["bids"][0].__setitem__("call", "garde_avec"), "is not one of"),
        (
            lambda r: r["hands"][0]["claimed"].__setitem__("scores", [2**40, 0, 0, 0]),
            "is greater than the maximum",
        ),
        (lambda r: r["hands"][0]["claimed"].__setitem__("taker_points", 44.25), "is not a multiple of 0.5"),
        (lambda r: r.__setitem__("rules", {"preset": "fft", "poignee": 1}), "Additional properties"),
        (lambda r: r["hands"][0]["chien"].pop(), "is too short"),
    ],
)
def test_bad_shapes_are_rejected(change: Any, phrase: str) -> None:
    record = base()
    RECORDS.assert_rejects(record, change, phrase)
