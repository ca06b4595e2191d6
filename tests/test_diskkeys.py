"""Keys on disk answer as a dict of them would, whatever their runs, blocks and
merges; the tables that spill to them (validate's key tables, a load's known
ids) answer as before; memory stays bounded; a disk that refuses the keys is a
clear error."""

from __future__ import annotations

import gc
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from cli import files_capped_at
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.diskkeys import GROWTH, Bloom, DiskKeys, merge_runs
from pipeline.keytable import MAX_LOAD, MAX_SLOTS, KeyTable, key128
from pipeline.violations import TricklogError
from pipeline.warehouse.known import KeyRuns, _sorted

#: Few high halves: runs of rows sharing one cross block borders.
HIGH = st.sampled_from([0, 1, 7, 2**63, 2**64 - 1])
KEY = st.tuples(HIGH, st.integers(0, 2**64 - 1))


@settings(max_examples=200, deadline=None)
@given(
    batches=st.lists(st.lists(KEY, max_size=30), max_size=10),
    asked=st.lists(KEY, max_size=30),
    scan_share=st.sampled_from([0.0, 1 / 16, 2.0]),  # always, sometimes, never read whole runs
)
def test_disk_keys_answer_as_a_dict(
    batches: list[list[tuple[int, int]]], asked: list[tuple[int, int]], scan_share: float
) -> None:
    keys, model = DiskKeys(width=2, block=4, chunk=8, scan_share=scan_share), {}  # every path on small inputs
    try:
        for batch in batches:
            new = list(dict.fromkeys(k for k in batch if k not in model))
            payloads = [[hash(k) % 2**63, len(model) + i] for i, k in enumerate(new)]
            rows = np.array(new, np.uint64).reshape(-1, 2)
            keys.add(rows[:, 0], rows[:, 1], np.array(payloads, np.uint64).reshape(-1, 2))
            model.update(zip(new, payloads, strict=True))
            probe = np.array(asked + list(model), np.uint64).reshape(-1, 2)
            found, stored = keys.lookup(probe[:, 0], probe[:, 1])
            for key, hit, payload in zip(asked + list(model), found.tolist(), stored.tolist(), strict=True):
                assert hit == (key in model)
                assert payload == model.get(key, [0, 0])
        assert len(keys) == len(model)
        assert len(keys.runs) <= max(1, len(model).bit_length())
        stored_rows = [tuple(r) for chunk in keys.rows() for r in chunk[:, :2].tolist()]
        assert sorted(stored_rows) == sorted(model)
    finally:
        keys.close()


def test_the_bloom_filter_never_forgets_and_rarely_lets_a_stranger_through() -> None:
    rng = np.random.default_rng(7)
    hi, lo = rng.integers(0, 2**64, (2, 100_000), dtype=np.uint64)
    bloom = Bloom(100_000)
    bloom.add(hi, lo)
    assert bloom.may_hold(hi, lo).all()
    others = rng.integers(0, 2**64, (2, 100_000), dtype=np.uint64)
    assert bloom.may_hold(*others).mean() < 0.001  # about 1 in 2000 at 16 bits a key
    assert bloom.bits.nbytes == 100_000 * 16 // 8  # the bits it was made for, no more


@settings(max_examples=150, deadline=None)
@given(
    batches=st.lists(
        st.lists(st.tuples(HIGH, st.integers(0, 3), st.integers(0, 2**62)), max_size=40), max_size=8
    )
)
def test_a_table_that_spills_answers_as_a_dict(batches: list[list[tuple[int, int, int]]]) -> None:
    table, model, biggest = KeyTable(capacity=2, max_slots=8), {}, 0
    for batch in batches:
        biggest = max(biggest, len(batch))
        want = []
        for hi, lo, payload in batch:
            want.append(model.get((hi, lo), -1))
            model.setdefault((hi, lo), payload)
        columns = np.array(batch, np.uint64).reshape(-1, 3).T
        assert table.insert_or_get(columns[0], columns[1], columns[2].astype(np.int64)).tolist() == want
        assert len(table) == len(model)
        assert len(table.hi) <= max(8, 2 * biggest / 0.7)  # over the budget only for a batch bigger than it


@settings(max_examples=100, deadline=None)
@given(batches=st.lists(st.lists(st.text(max_size=3), max_size=20), max_size=10))
def test_known_ids_that_spill_answer_as_a_dict(batches: list[list[str]]) -> None:
    runs, model = KeyRuns(2, max_rows=5), {}
    for batch in batches:
        new = [k for k in dict.fromkeys(batch) if k not in model]
        runs.add([key128(k) for k in new], [[len(model) + i, 7] for i in range(len(new))])
        model.update({k: [len(model) + i, 7] for i, k in enumerate(new)})
        asked = [*batch, "never-added", *model]
        found, payloads = runs.lookup([key128(k) for k in asked])
        assert found.tolist() == [k in model for k in asked]
        assert payloads.tolist() == [model.get(k, [0, 0]) for k in asked]
        assert sum(len(r) for r in runs.runs) <= 5 or len(runs.runs) == 1
    assert len(runs) == len(model) and len(runs.keys()) == len(model)


def test_a_table_holds_its_budget_whatever_it_is_given() -> None:
    table = KeyTable()
    keys = np.arange(600_000, dtype=np.uint64)
    for start in range(0, len(keys), 20_000):
        part = keys[start : start + 20_000]
        assert (table.insert_or_get(part * np.uint64(3), part, part.astype(np.int64)) == -1).all()
    assert table.spilled is not None and len(table) == len(keys)
    # the table's slots, and at most 4 bytes a key of filter and block keys
    assert table.nbytes <= 24 * MAX_SLOTS + 4 * len(keys)
    again = table.insert_or_get(keys * np.uint64(3), keys, np.zeros(len(keys), np.int64))
    assert again.tolist() == keys.astype(np.int64).tolist()


def test_runs_are_removed_on_close_and_when_collected(tmp_path: Path) -> None:
    rows = np.arange(10, dtype=np.uint64)
    keys = DiskKeys(width=1, folder=str(tmp_path))
    keys.add(rows, rows, np.zeros((10, 1), np.uint64))
    assert len(list(tmp_path.rglob("run-*"))) == 1
    keys.close()
    assert list(tmp_path.iterdir()) == []
    keys = DiskKeys(width=1, folder=str(tmp_path))
    keys.add(rows, rows, np.zeros((10, 1), np.uint64))
    del keys
    gc.collect()
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    keys = DiskKeys(width=1, folder=str(tmp_path / "missing"))
    with pytest.raises(TricklogError, match="TMPDIR"):
        keys.add(np.zeros(1, np.uint64), np.zeros(1, np.uint64), np.zeros((1, 1), np.uint64))


def test_a_full_disk_is_a_clear_error_and_leaves_no_half_run(tmp_path: Path) -> None:
    """A file size limit (as a full disk does, the write fails part way):
    the error says where and what to do; no partial run is left behind."""
    script = (
        "import sys\n"
        "import numpy as np\n"
        "from pipeline.diskkeys import DiskKeys\n"
        "from pipeline.violations import TricklogError\n"
        "keys = DiskKeys(width=1, folder=sys.argv[1])\n"
        "n = np.arange(100_000, dtype=np.uint64)\n"
        "try:\n"
        "    keys.add(n, n, n[:, None])\n"
        "except TricklogError as e:\n"
        "    print(e)\n"
        "import os\n"
        "print(sorted(os.listdir(keys._dir.name)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=files_capped_at(4096),
    ).stdout
    message, files = out.splitlines()
    assert "cannot keep the keys of the games seen" in message and "TMPDIR" in message
    assert str(tmp_path) in message
    assert files == "[]"


def test_a_spill_makes_no_second_table() -> None:
    """A table at its budget spills its keys from its own arrays, sorted in place,
    and starts again in them: the spilling call's peak stays under one table (0.8:
    the keys' order and the filter's probes, 1,024 keys at a time).  Freeing the full table before the
    keys went to disk and making an empty one after, it was 1.4; holding the old
    and the new table together, more."""
    table = KeyTable(MAX_SLOTS)
    full = int(MAX_LOAD * MAX_SLOTS) // 1000 * 1000
    keys = np.arange(full + 1000, dtype=np.uint64)
    for start in range(0, full, 1000):
        batch = keys[start : start + 1000]
        table.insert_or_get(batch, batch + np.uint64(1), batch.astype(np.int64))
    size, last = table.nbytes, keys[full:]
    tracemalloc.start()
    table.insert_or_get(last, last + np.uint64(1), last.astype(np.int64))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert table.spilled is not None and len(table.spilled) == full
    assert table.nbytes < 1.1 * size  # the same arrays, and the filter
    assert peak < 1.0 * size
    found, payloads = table.spilled.lookup(keys[:full], keys[:full] + np.uint64(1))
    assert found.all() and payloads[:, 0].tolist() == keys[:full].tolist()


def test_a_filter_that_grows_lets_the_old_one_go_first() -> None:
    """Outgrown, the filter is made again GROWTH times as big from the runs on disk: the
    growing call's peak is the new filter and a chunk of rows read back, not the
    old and new filters together; every key is found after, and while it grows
    (or if it cannot) a filter that may hold every key stands in."""
    keys = DiskKeys(width=1)
    try:
        first = np.arange(1, 1 + 2**20, dtype=np.uint64)  # a filter of 2 MB, against a chunk's 0.4
        tracemalloc.start()  # before the first filter is made: its memory is traced, and its freeing
        keys.add(first, first, first[:, None], presorted=True)
        old = keys.bloom.bits.nbytes
        one = np.array([2**40], np.uint64)
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        keys.add(one, one, one[:, None])
        grown = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
        new = keys.bloom.bits.nbytes
        assert (
            new == int(GROWTH * old) and grown < new - old / 2
        )  # holding both, it grew by the whole new one and more
        every = np.concatenate([first[::997], one])
        found, payloads = keys.lookup(every, every)
        assert found.all() and payloads[:, 0].tolist() == every.tolist()
        keys.bloom = Bloom.holding_anything()  # the stand-in: lookups go to the runs
        found, _ = keys.lookup(np.array([5, 2**41], np.uint64), np.array([5, 2**41], np.uint64))
        assert found.tolist() == [True, False]
    finally:
        keys.close()


run_rows = st.lists(st.tuples(*[st.integers(0, 6)] * 3), max_size=30)


@settings(max_examples=300, deadline=None)
@given(run_rows, run_rows)
def test_two_runs_merge_as_they_would_sort_together(
    first: list[tuple[int, ...]], then: list[tuple[int, ...]]
) -> None:
    """Runs share high halves often here (seven values): the first run's rows stay first among them."""
    a, b = (_sorted(np.array(rows, np.uint64).reshape(-1, 3)) for rows in (first, then))
    assert merge_runs(a, b).tolist() == _sorted(np.concatenate([a, b])).tolist()
