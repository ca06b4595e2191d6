"""The JSON Schema of euchre/1 accepts the records the engine accepts, and rejects bad shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from euchre_fixtures import ALL_PASSED_HAND, ALONE_HAND, CALLED_HAND, ORDERED_HAND, game
from record_schema import RecordSchema
from test_euchre_properties import random_game

SCHEMA = json.loads((Path(__file__).parent.parent / "schemas" / "euchre-record.schema.json").read_text())
RECORDS = RecordSchema(SCHEMA)
errors = RECORDS.errors


def test_schema_is_valid() -> None:
    RECORDS.check()


@pytest.mark.parametrize("hand", [CALLED_HAND, ORDERED_HAND, ALONE_HAND, ALL_PASSED_HAND])
def test_fixture_records_conform(hand: dict[str, Any]) -> None:
    assert errors(game(hand)) == []


@pytest.mark.parametrize("seed", range(20))
def test_random_legal_games_conform(seed: int) -> None:
    assert errors(random_game(seed, ("cards4net", "pagat", "french")[seed % 3])) == []


def test_accepted_card_spellings() -> None:
    record = game(CALLED_HAND)
    record["hands"][0]["deal"][0] = ["jd", "A♦", "10C", "ac", "??"]
    assert errors(record) == []


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        (lambda r: r.pop("players"), "'players' is a required property"),
        (lambda r: r.__setitem__("format", "euchre/2"), "'euchre/1' was expected"),
        (lambda r: r["hands"][0].__setitem__("dealer", 4), "4 is greater than the maximum of 3"),
        (lambda r: r["hands"][0]["deal"][0].__setitem__(0, "1H"), "does not match"),
        (lambda r: r["hands"][0]["bids"][0].__setitem__("call", "hearts"), "is not one of"),
        (lambda r: r["rules"].__setitem__("stick", True), "Additional properties"),
    ],
)
def test_bad_shapes_are_rejected(change: Any, phrase: str) -> None:
    record = game(CALLED_HAND)
    RECORDS.assert_rejects(record, change, phrase)
