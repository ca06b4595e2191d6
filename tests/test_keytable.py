"""The key table answers as a dict of its keys would, as it grows, and tells
apart keys that share their high or their low 64 bits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.keytable import MAX_LOAD, KeyTable, key128, split_keys

#: Few high and low halves: keys share one half or the other all the time, and
#: small numbers hash to neighbouring slots unless the table mixes their bits.
HALVES = st.sampled_from([0, 1, 2, 2**63, 2**64 - 1, 12345])
BATCH = st.lists(st.tuples(HALVES, HALVES, st.integers(0, 2**62)), max_size=40)


def model_insert(model: dict[tuple[int, int], int], batch: list[tuple[int, int, int]]) -> list[int]:
    """What ``insert_or_get`` answers, by a dict."""
    out = []
    for hi, lo, payload in batch:
        out.append(model.get((hi, lo), -1))
        model.setdefault((hi, lo), payload)
    return out


def insert(table: KeyTable, batch: list[tuple[int, int, int]]) -> list[int]:
    columns = np.array(batch, np.uint64).reshape(-1, 3).T
    return table.insert_or_get(columns[0], columns[1], columns[2].astype(np.int64)).tolist()


@settings(max_examples=300)
@given(batches=st.lists(BATCH, max_size=8), capacity=st.integers(1, 8))
def test_answers_as_a_dict(batches: list[list[tuple[int, int, int]]], capacity: int) -> None:
    table, model = KeyTable(capacity), {}
    for batch in batches:
        assert insert(table, batch) == model_insert(model, batch)
        assert len(table) == len(model) <= MAX_LOAD * len(table.hi)
    stored = table.payload >= 0
    found = zip(
        table.hi[stored].tolist(), table.lo[stored].tolist(), table.payload[stored].tolist(), strict=True
    )
    assert {(hi, lo): payload for hi, lo, payload in found} == model


def test_grows_by_doubling_and_keeps_every_key() -> None:
    table = KeyTable(capacity=2)
    keys = np.arange(5000, dtype=np.uint64)
    for start in range(0, 5000, 700):
        part = keys[start : start + 700]
        assert (table.insert_or_get(part, part, part.astype(np.int64)) == -1).all()
    assert (len(table), len(table.hi)) == (5000, 8192)
    assert table.insert_or_get(keys, keys, np.zeros(5000, np.int64)).tolist() == list(range(5000))
    assert table.insert_or_get(keys, keys + np.uint64(1), np.zeros(5000, np.int64)).tolist() == [-1] * 5000


def test_a_negative_payload_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        KeyTable().insert_or_get(np.zeros(1, np.uint64), np.zeros(1, np.uint64), np.array([-1]))


def test_keys_are_read_big_endian() -> None:
    hi, lo = split_keys(bytes(range(16)) + key128("a"))
    assert (hi[0], lo[0]) == (0x0001020304050607, 0x08090A0B0C0D0E0F)
    assert key128("a") == key128(b"a") and key128("\ud800") != key128("\ud801")
