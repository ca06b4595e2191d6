"""The replay and the EGN import never raise, whatever a record holds: any node replaced by any JSON value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from euchre_fixtures import ALONE_HAND, ORDERED_HAND, rotation_game
from fuzzing import any_node_replaced, json_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.euchre.codes import CODES
from pipeline.games.euchre.importers.egn import read_egn
from pipeline.games.euchre.importers.openspiel import read_openspiel
from pipeline.games.euchre.replay import replay_game

JSON = json_values(max_int=40)
BASES = [rotation_game(3), rotation_game(2, ORDERED_HAND), rotation_game(2, ALONE_HAND)]


@settings(max_examples=400, deadline=None)
@given(base=st.sampled_from(BASES), pick=st.integers(min_value=0), value=JSON)
def test_any_node_replaced_by_any_value_gives_violations_not_exceptions(
    base: dict[str, Any], pick: int, value: Any
) -> None:
    record = any_node_replaced(base, pick, value)
    replay = replay_game(record)
    assert all(v.code in CODES and v.message for v in replay.violations)


EGN_FIXTURES = Path(__file__).parent / "fixtures" / "egn"
EGN_BASES = [
    json.loads((EGN_FIXTURES / name).read_text())
    for name in ("standard.egn", "left-of-loner.egn", "match.emn")
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=st.sampled_from(EGN_BASES), pick=st.integers(min_value=0), value=JSON)
def test_egn_import_never_raises(tmp_path: Path, base: dict[str, Any], pick: int, value: Any) -> None:
    """Any node of a real-shaped EGN document replaced: items and violations, never an exception."""
    path = tmp_path / ("fuzz.emn" if "games" in base else "fuzz.egn")
    path.write_text(json.dumps(any_node_replaced(base, pick, value)))
    for item in read_egn(str(path)):
        assert item.record is not None or item.violations
        if item.record is not None:
            replay_game(item.record)


OPENSPIEL_LINE = st.fixed_dictionaries(
    {
        "game": st.sampled_from(
            ["euchre", "euchre()", "euchre(allow_lone_defender=True)", "euchre(nope=1)", "chess"]
        ),
        "history": st.lists(st.integers(-2, 40) | JSON, max_size=60),
    }
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(OPENSPIEL_LINE | JSON, min_size=1, max_size=5))
def test_openspiel_import_never_raises(tmp_path: Path, lines: list[Any]) -> None:
    """Any JSON Lines input read as OpenSpiel: one item a line, a record or a violation."""
    path = tmp_path / "fuzz.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    items = list(read_openspiel(str(path)))
    assert len(items) == len(lines)
    for item in items:
        assert item.record is not None or item.violations
        if item.record is not None:
            replay_game(item.record)
