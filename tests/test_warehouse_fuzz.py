"""Fuzz: byte-level mutations of valid lines never crash the loader, and every line is accounted for.

(Loading twice is tested in test_warehouse_load.py; here one load per example keeps it fast.)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from warehouse_helpers import counts, valid_lines

from pipeline.warehouse.api import load

LINES = valid_lines()[:3]


@st.composite
def mutated_line(draw: st.DrawFn) -> bytes:
    """A valid game line with a few bytes flipped, inserted, deleted or the tail cut."""
    data = bytearray(draw(st.sampled_from(LINES)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if kind == "flip":
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        else:
            del data[at:]
        if not data:
            data = bytearray(b"x")
    return bytes(data)


@pytest.fixture(scope="module")
def shared_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One warehouse for every example (a fresh file each time would dominate the run time)."""
    return tmp_path_factory.mktemp("fuzz") / "w.duckdb"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(mutated_line(), min_size=1, max_size=6))
def test_mutated_lines_are_all_accounted_for(shared_db: Path, lines: list[bytes]) -> None:
    source = Path(tempfile.mkdtemp(dir=shared_db.parent)) / "fuzz.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    expected = sum(1 for line in source.read_bytes().split(b"\n") if line.strip())
    before = counts(shared_db) if shared_db.exists() else {"games": 0, "quarantine": 0}

    first = load([str(source)], shared_db)
    assert first.lines == expected
    assert first.accounted
    after = counts(shared_db)
    assert after["games"] - before["games"] == first.games_loaded
    assert after["quarantine"] - before["quarantine"] == first.quarantined
