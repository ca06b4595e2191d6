"""``load --engine dask`` on a real LocalCluster of two workers gives what one machine gives.

One small input (simulated games, some corrupted, a repeated game, a repeated
id with other content, a line that is no JSON), cut in many splits so that a
repeat crosses a split: the same tables (every row), the same accounting, the
same ``summary.json`` from ``report`` (floats up to the order of summation),
and ``sql`` and ``export`` read the data set as they read a DuckDB file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import platform
import random
import socket
import threading
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.games.euchre.simulate import write_simulation
from pipeline.violations import TricklogError
from pipeline.warehouse.api import Warehouse, load
from pipeline.warehouse.dask_engine import (
    MARKER,
    UNHASHED,
    InputReading,
    _client,
    _staged_in_order,
    hashed_inputs,
    is_dataset,
    load_dask,
    move_into_place,
    numbered,
    numbered_as_read,
    prepare_split,
    sized_inputs,
    split_lines,
    splits_of,
    write_split,
)
from pipeline.warehouse.ddl import WarehouseError, table_names
from pipeline.warehouse.load import NEWLINE_BLOCK, READ_BLOCKS, LoadSummary
from pipeline.warehouse.parts import PARTS
from pipeline.warehouse.routing import route

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dask")
    path = folder / "games.jsonl"
    write_simulation(path, 160, seed=4, preset="mixed", corrupt_rate=0.3)
    lines = path.read_bytes().splitlines()
    first = orjson.loads(lines[0])
    other = dict(first, final_score=[0, 0])
    lines += [lines[0], orjson.dumps(other), b"{not json", b"", lines[5]]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.fixture(scope="module")
def client() -> Any:
    # The workers take the fast path however small the input (the single-machine
    # load it is compared with replays every game).
    os.environ["TRICKLOG_FAST_PATH_MIN_BYTES"] = "0"
    try:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
    finally:
        del os.environ["TRICKLOG_FAST_PATH_MIN_BYTES"]
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_splits_read_every_line_once_with_its_number(games: Path, tmp_path: Path) -> None:
    """Splits start on blocks of 64 KiB; a line that begins a block belongs to the split
    starting there, one that crosses it to the split before, and each keeps its number."""
    from pipeline.sources import iter_lines

    block = 1 << 16
    edges = tmp_path / "edges.jsonl"
    lines = [b"x" * (block - 1), b"y" * 10, b"", b"z" * (block - 13), b"w" * (3 * block)]
    edges.write_bytes(b"\n".join(lines) + b"\n")  # a line begins at each of the first blocks
    for path in (games, edges):
        files, newlines = hashed_inputs([str(path)])
        for size in (1, block + 1, 1 << 20):
            splits = numbered(splits_of(files, size), newlines)
            assert all(s.start % block == 0 for s in splits)
            got = [pair for s in splits for pair in split_lines(s)]
            assert got == list(iter_lines(str(path)))
        assert len(splits_of(files, 1)) > 3


def _identified(lines: list[tuple[int, bytes]]) -> list[tuple[Any, ...]]:
    """Numbered lines with what identifies a long one whole (its first bytes alone compare equal)."""
    return [(n, line, *(getattr(line, k, None) for k in ("length", "offset", "sha256"))) for n, line in lines]


def test_a_line_over_the_limit_is_read_in_chunks_by_its_split_and_skipped_by_the_others(
    tmp_path: Path,
) -> None:
    """A line longer than the limit, across a hundred splits, comes from the split it
    starts in as ``iter_lines`` gives it (a ``LongLine``: its length, offset and
    SHA-256), and no split holds it, neither that one nor those that start inside it."""
    import tracemalloc

    from pipeline.sources import LongLine, iter_lines

    path = tmp_path / "long.jsonl"
    long = b'{"game_id": "' + b"x" * (8 << 20) + b'"}'
    path.write_bytes(b"\n".join([b'{"a": 1}', long, b'{"b": 2}', b"\r", b"z" * 100]) + b"\n")
    files, newlines = hashed_inputs([str(path)])
    splits = numbered(splits_of(files, 1 << 16, max_line_bytes=1 << 16), newlines)
    assert len(splits) > 100
    tracemalloc.start()
    try:
        got = [pair for s in splits for pair in split_lines(s)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert _identified(got) == _identified(list(iter_lines(str(path), 1 << 16)))
    assert isinstance(got[1][1], LongLine) and got[1][1].length == len(long)
    assert peak < 4 << 20  # a chunk of a MiB at a time, never the 8 MiB line


def test_dask_load_quarantines_a_long_line_as_the_single_machine_load(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """``--max-line-bytes`` reaches the workers: a line over it is quarantined alike."""
    from pipeline.sources import line_limit

    lines = games.read_bytes().splitlines()
    path = tmp_path / "with_long.jsonl"
    path.write_bytes(b"\n".join([*lines[:9], b'{"game_id": "' + b"x" * 300_000 + b'"}', *lines[9:]]) + b"\n")
    db = tmp_path / "one.duckdb"
    with line_limit(100_000):
        single = load([str(path)], db)
    dataset = tmp_path / "dataset"
    spread = load_dask([str(path)], dataset, client=client, split_bytes=50_000, max_line_bytes=100_000)
    assert single.to_json() | {"db": "", "batches": 0} == spread.to_json() | {"db": "", "batches": 0}
    with Warehouse.open(db) as a, Warehouse.open(dataset) as b:
        for table in ("quarantine", "violations"):
            assert _rows(a, table) == _rows(b, table), table
        assert "over the limit of 100000" in str(
            b.sql("select message from quarantine where line = 10").rows()
        )


def test_a_dask_load_takes_its_input_as_it_stood_and_stops_if_it_is_cut_short(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """Lines appended during a load are the next load's; an input cut short during
    it stops it, naming the input, and no data set is left."""
    from pipeline.sources import InputChanged

    path = tmp_path / "live.jsonl"
    path.write_bytes(games.read_bytes())
    stood = path.stat().st_size

    def grow(lines: int, size: int) -> None:
        with path.open("ab") as out:
            out.write(b'{"game_id": "late"}\n')

    grown = load_dask([str(path)], tmp_path / "grown", client=client, split_bytes=20_000, on_split=grow)
    assert grown.batches > 8 and path.stat().st_size > stood
    assert (
        grown.to_json()["files"][0]["bytes"] == stood
        and grown.lines == len(games.read_bytes().splitlines()) - 1
    )

    def cut(lines: int, size: int) -> None:
        path.write_bytes(b"")

    path.write_bytes(games.read_bytes())
    with pytest.raises(InputChanged, match=f"{stood:,} bytes when the load began") as failed:
        load_dask([str(path)], tmp_path / "cut", client=client, split_bytes=20_000, on_split=cut)
    assert not (tmp_path / "cut").exists()
    # The error's traceback holds the futures of the splits sent ahead: they were
    # cancelled, and the cluster (not the load's own) forgets them.
    assert failed.traceback and _idle(client), "a failed load left its tasks on the cluster"


def _idle(client: Any, timeout: float = 20) -> bool:
    """Whether the cluster's scheduler holds no task (waits for those ending to end)."""
    deadline = time.monotonic() + timeout
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _in_thread(work: Any, timeout: float = 60) -> Any:
    """``work()``'s result or error, on a thread of its own; fails rather than hangs."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(("ok", work()))
        except Exception as e:  # handed to the test
            out.append(("error", e))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert out, f"still waiting after {timeout} s"
    kind, value = out[0]
    if kind == "error":
        raise value
    return value


def test_splits_numbered_as_read_are_numbered_alike(games: Path, tmp_path: Path) -> None:
    """The client numbers each split as the reading of its inputs counts on
    (``numbered_as_read``): the numbers are those of counting every input first
    (``numbered``), over files, split sizes and a compressed input; and the first
    split comes before any of its file is read."""
    import gzip

    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(games.read_bytes()))
    edges = tmp_path / "edges.jsonl"
    edges.write_bytes(b"\n".join([b"x" * (NEWLINE_BLOCK - 1), b"", b"y" * (3 * NEWLINE_BLOCK)]) + b"\n")
    paths = [str(games), str(packed), str(edges), str(games)]
    files, newlines = hashed_inputs(paths)
    assert [(f.path, f.size) for f in sized_inputs(paths)] == [(f.path, f.size) for f in files]
    for size in (1, NEWLINE_BLOCK + 1, 1 << 20):
        splits = splits_of(sized_inputs(paths), size, 2)
        reading = InputReading(sized_inputs(paths))
        reader = threading.Thread(target=reading.read)
        reader.start()
        assert list(numbered_as_read(splits, reading)) == numbered(splits, newlines)
        reader.join()
    unread = InputReading(sized_inputs(paths))
    first = _in_thread(lambda: next(numbered_as_read(splits_of(unread.files, 1), unread)))
    assert (first.start, first.first_line) == (0, 1) and not unread.counts


def test_a_reading_that_fails_stops_the_numbering_with_its_error(games: Path, tmp_path: Path) -> None:
    """An input gone once sized: the splits past its first wait for a count that
    will not come; they get the reading's error, which the load reports, rather
    than wait for ever."""
    path = tmp_path / "gone.jsonl"
    path.write_bytes(games.read_bytes())
    reading = InputReading(sized_inputs([str(path)]))
    path.unlink()
    splits = splits_of(reading.files, NEWLINE_BLOCK)
    assert len(splits) > 2
    numbering = numbered_as_read(splits, reading)
    assert next(numbering).first_line == 1
    with pytest.raises(TricklogError, match=r"gone\.jsonl: cannot open"):
        reading.read()
    with pytest.raises(TricklogError, match=r"gone\.jsonl: cannot open"):
        _in_thread(lambda: next(numbering))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files in /proc")
def test_inputs_are_read_with_one_file_open_at_a_time(tmp_path: Path) -> None:
    """A folder of many inputs: each is hashed and counted, then closed, so a load
    of thousands of files neither runs out of file handles nor holds a read
    buffer for each."""
    paths = []
    for i in range(40):
        path = tmp_path / f"part-{i}.jsonl"
        path.write_bytes(b"".join(b'{"n": %d}' % n + b" " * 90 + b"\n" for n in range(2_000)))
        paths.append(str(path))
    reading = InputReading(sized_inputs(paths))
    opened: list[int] = []
    watching = threading.Event()

    def inputs_open() -> int:
        """The inputs open now (not other threads' files: a Dask cluster's sockets)."""
        found = 0
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # closed meanwhile
                found += os.readlink(f"/proc/self/fd/{fd}").startswith(str(tmp_path))
        return found

    def watch() -> None:
        while not watching.is_set():
            opened.append(inputs_open())

    watcher = threading.Thread(target=watch)
    watcher.start()
    numbered_splits = []
    try:
        reader = threading.Thread(target=reading.read)
        reader.start()
        numbered_splits = list(numbered_as_read(splits_of(reading.files, 1), reading))
        reader.join()
    finally:
        watching.set()
        watcher.join()
    assert len(numbered_splits) > 2 * len(paths)
    assert opened and max(opened) <= 1  # the file being read, if any, and only it


def test_splits_get_finer_towards_the_end(tmp_path: Path) -> None:
    """Guided: a split is at most the input left from its start shared among the
    workers (whole blocks, down to MIN_SPLIT_BYTES), so that two workers run out
    of work together rather than one waiting for the other's last full split;
    one worker gets full splits to the end.  Every line is still read once."""
    from pipeline.sources import iter_lines
    from pipeline.warehouse.dask_engine import MIN_SPLIT_BYTES

    path = tmp_path / "big.jsonl"
    path.write_bytes(b"".join(b'{"n": %d}' % n + b" " * 80 + b"\n" for n in range(300_000)))
    files, newlines = hashed_inputs([str(path)])
    size = files[0].size
    full = 8 << 20
    for workers in (1, 2, 3):
        splits = splits_of(files, full, workers)
        sizes = [(size if s.end == -1 else s.end) - s.start for s in splits]
        for split, length in zip(splits, sizes, strict=True):
            left = size - split.start
            share = -(-(left // workers) // NEWLINE_BLOCK) * NEWLINE_BLOCK
            assert length <= min(full, max(share, MIN_SPLIT_BYTES))
        assert sizes[:-1] == sorted(sizes[:-1], reverse=True)
        if workers == 1:
            assert sizes[:-1] == [full] * (len(sizes) - 1)
        else:
            assert sizes[-2] <= MIN_SPLIT_BYTES < full
        got = [pair for s in numbered(splits, newlines) for pair in split_lines(s)]
        assert got == list(iter_lines(str(path)))


def test_a_worker_stages_splits_without_importing_pandas(games: Path, tmp_path: Path) -> None:
    """A worker uses no pandas, and importing it took 0.35 CPU seconds of its first
    split: pyarrow imports it to convert a column to numpy, or to build an array
    whose type it must infer, and pandera at its first check, unless set up
    without it (``pipeline.without_pandas``).  Staged and finished (its quarantine
    rows rewritten with their file's hash, and checked), then the data set
    completed (its ``ingest_runs``, whose zoned times pyarrow would infer with pandas)."""
    import subprocess
    import sys

    code = (
        "import sys, pipeline.without_pandas\n"
        "from pipeline.warehouse.dask_engine import *\n"
        f"files = sized_inputs([{str(games)!r}])\n"
        "reading = InputReading(files)\n"
        "hashed = reading.read()\n"
        "for split in numbered_as_read(splits_of(files, 50_000), reading):\n"
        f"    staged = stage_split(split, {str(tmp_path)!r})\n"
        f"    finish_split(staged, Routing(), {str(tmp_path)!r}, file=hashed[0])\n"
        f"summary = LoadSummary(1, {str(tmp_path)!r}, hashed)\n"
        f"complete_dataset({str(tmp_path)!r}, summary, dt.datetime.now(dt.UTC))\n"
        "print('pandas' in sys.modules)"
    )
    for fast in ("0", str(1 << 40)):  # the fast path's rows, and the reference replay's
        env = {**os.environ, "TRICKLOG_FAST_PATH_MIN_BYTES": fast}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert done.stdout.strip() == "False"


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_a_split_prepared_piece_by_piece_is_the_split_prepared_whole(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compressed: bool
) -> None:
    """A worker prepares a split a piece at a time (its memory follows the piece,
    not the split: a compressed input is one split) and writes a table's rows in
    row groups as they come.  Staged or prepared, it gives the facts of the whole
    split at once, and the same rows of each table from the same lines (in
    another order: a piece's replayed rows come before its cleared ones).
    Pieces of one line and row groups of seven rows, with the fast path and
    without, over the first 30 games and the odd lines after them (a piece a
    line costs a second a game)."""
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline import parallel
    from pipeline.warehouse import dask_engine

    def rows(data: pa.Table) -> list[str]:
        return sorted(repr(sorted(row.items())) for row in data.to_pylist())

    lines = games.read_bytes().splitlines()
    assert len(lines) == 165  # 160 games, then a copy, a changed copy, bad JSON, a blank and a copy
    text = b"\n".join(lines[:30] + lines[160:]) + b"\n"
    path = tmp_path / "games.jsonl"
    path.write_bytes(text)
    if compressed:
        path = tmp_path / "games.jsonl.gz"
        path.write_bytes(gzip.compress(text))
    files = sized_inputs([str(path)])
    [split] = numbered_as_read(splits_of(files, 1 << 30), InputReading(files))
    for fast in (0, 1 << 40):
        monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", fast)
        facts, tables = {}, {}
        for name, piece, group in (("whole", 1 << 40, 1 << 40), ("pieces", 1, 7)):
            monkeypatch.setattr(dask_engine, "PIECE_BYTES", piece)
            monkeypatch.setattr(dask_engine, "ROW_GROUP_ROWS", group)
            folder = tmp_path / str(fast) / name
            folder.mkdir(parents=True)
            staged = dask_engine.stage_split(split, str(folder))
            prepared = prepare_split(split)
            facts[name] = [staged.facts, prepared.facts]
            tables[name] = {"prepared": {t: rows(data) for t, data in prepared.tables.items()}}
            for table, (lines, counts) in staged.runs.items():
                part = pq.ParquetFile(dask_engine._part(str(folder), table, split.index))
                groups = [part.metadata.row_group(i).num_rows for i in range(part.metadata.num_row_groups)]
                assert len(groups) == 1 if name == "whole" else min(groups[:-1], default=7) >= 7
                if name == "pieces" and table == "euchre.plays":
                    assert len(groups) > 1
                with_lines = part.read().append_column("_line", pa.array(lines.repeat(counts), pa.int64()))
                tables[name].setdefault("staged", {})[table] = rows(with_lines)
        assert facts["pieces"] == facts["whole"] == [facts["whole"][0]] * 2
        assert tables["pieces"] == tables["whole"]
        assert tables["whole"]["staged"] == tables["whole"]["prepared"]
        assert {"games", "quarantine", "euchre.plays"} <= tables["whole"]["staged"].keys()


def test_the_command_s_own_process_imports_none_of_what_builds_rows(games: Path, tmp_path: Path) -> None:
    """``load --engine dask`` builds its rows on the workers: the command's own
    process imports neither pandera nor polars nor pyarrow (0.4 CPU seconds
    while its cluster starts, as its worker server imports them)."""
    import subprocess
    import sys

    argv = ["tricklog", "load", str(games), "--engine", "dask", "--jobs", "1", "--db", str(tmp_path / "d")]
    code = (
        "import sys\n"
        "from pipeline.cli import main\n"
        f"sys.argv = {[*argv, '--json']!r}\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    print(e.code, sorted(m for m in ('pandera', 'polars', 'pyarrow') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "1 []", done.stderr  # 1: the input holds violations


def _rows(wh: Warehouse, table: str) -> list[tuple[Any, ...]]:
    frame = wh.table(table)
    if table == "ingest_runs":
        frame = frame.drop(["started_at", "ended_at", "batches"])
    return sorted(map(repr, frame.rows()))  # type: ignore[arg-type]


def _close(a: Any, b: Any) -> bool:
    """JSON values equal, floats up to the order of summation."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_dask_load_is_the_single_machine_load(games: Path, tmp_path: Path, client: Any) -> None:
    db = tmp_path / "one.duckdb"
    single = load([str(games)], db)
    dataset = tmp_path / "dataset"
    spread = load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    assert spread.batches > 4  # many splits: the repeats cross them
    one, many = single.to_json(), spread.to_json()
    for key in ("db", "batches"):
        one.pop(key), many.pop(key)
    assert one == many
    assert spread.accounted and spread.already_present == 2 and spread.quarantined > 2
    with Warehouse.open(db) as a, Warehouse.open(dataset) as b:
        assert a.tables() == b.tables()
        for table in table_names():
            assert _rows(a, table) == _rows(b, table), table
    runner = CliRunner()
    for source, out in ((db, tmp_path / "r1"), (dataset, tmp_path / "r2")):
        result = runner.invoke(app, ["report", "--db", str(source), "--out", str(out)])
        assert result.exit_code == 0, result.output
    assert _close(
        json.loads((tmp_path / "r1/summary.json").read_text()),
        json.loads((tmp_path / "r2/summary.json").read_text()),
    )
    query = "select count(*) as n, sum(maker_tricks) as t from euchre.hands"
    outputs = [
        runner.invoke(app, ["sql", query, "--db", str(source), "--format", "csv"]).output
        for source in (db, dataset)
    ]
    assert outputs[0] == outputs[1] and outputs[0].count("\n") == 2
    result = runner.invoke(app, ["export", "--db", str(dataset), "--parquet", str(tmp_path / "pq")])
    assert result.exit_code == 0, result.output


def test_a_file_given_twice_or_with_its_compressed_copy_is_quarantined_once(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """The second copy's bad lines (the same bytes at the same line numbers) are
    already present, as in a load into DuckDB: each is quarantined once."""
    import gzip

    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(games.read_bytes()))
    alone = load_dask([str(games)], tmp_path / "alone", client=client, split_bytes=50_000)
    for inputs, name in (([games, games], "twice"), ([games, packed], "packed")):
        db = tmp_path / f"{name}.duckdb"
        single = load([str(p) for p in inputs], db)
        spread = load_dask([str(p) for p in inputs], tmp_path / name, client=client, split_bytes=50_000)
        one, many = single.to_json(), spread.to_json()
        for key in ("db", "batches"):
            one.pop(key), many.pop(key)
        assert one == many, name
        assert spread.quarantined == alone.quarantined and spread.violations == alone.violations
        assert spread.lines == 2 * alone.lines and spread.accounted
        with Warehouse.open(db) as a, Warehouse.open(tmp_path / name) as b:
            for table in table_names():
                assert _rows(a, table) == _rows(b, table), (name, table)
    others = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]  # other bytes at the same line: not a copy
    others[0].write_bytes(b"{not json\n")
    others[1].write_bytes(b"{nor this\n")
    spread = load_dask([str(p) for p in others], tmp_path / "others", client=client)
    assert (spread.quarantined, spread.already_present) == (2, 0)


def test_the_client_asks_for_no_finish_of_a_split_it_would_not_change(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A split of clean games, none dropped, no quarantine rows awaiting their file's
    hash: its staged parts are final, and no ``finish_split`` task is run for it
    (the data set is the single-machine load's all the same); a split with lines
    to drop or quarantine rows is finished."""
    from distributed import get_task_stream

    assert _idle(client)  # the stream counts every task the cluster runs
    clean = tmp_path / "clean.jsonl"
    write_simulation(clean, 40, seed=7, preset="mixed", corrupt_rate=0.0)
    finishes = []
    for source, name in ((clean, "clean"), (games, "mixed")):
        with get_task_stream(client) as stream:
            summary = load_dask([str(source)], tmp_path / name, client=client, split_bytes=50_000)
        keys = [str(task["key"]) for task in stream.data]
        finishes.append(sum("finish_split" in key for key in keys))
        assert sum("stage_split" in key for key in keys) == summary.batches > 4
    assert finishes[0] == 0 and finishes[1] > 0
    single = tmp_path / "one.duckdb"
    load([str(clean)], single)
    with Warehouse.open(single) as a, Warehouse.open(tmp_path / "clean") as b:
        for table in table_names():
            assert _rows(a, table) == _rows(b, table), table


def test_a_dataset_is_loaded_again_in_place_and_a_folder_that_is_not_one_is_refused(
    games: Path, tmp_path: Path, client: Any
) -> None:
    dataset = tmp_path / "dataset"
    first = load_dask([str(games)], dataset, client=client)
    second = load_dask([str(games)], dataset, client=client)
    assert first.to_json() == second.to_json()
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("mine")
    result = CliRunner().invoke(app, ["load", str(games), "--engine", "dask", "--db", str(other)])
    assert result.exit_code != 0 and "not a tricklog data set" in result.output
    assert (other / "x.txt").read_text() == "mine"
    # a file named load.json alone makes no data set: the folder is not replaced
    (other / "load.json").write_text('{"my": "config"}')
    result = CliRunner().invoke(app, ["load", str(games), "--engine", "dask", "--db", str(other)])
    assert result.exit_code == 2 and "not a tricklog data set" in result.output
    assert sorted(p.name for p in other.iterdir()) == ["load.json", "x.txt"]
    # nor is a data set holding something of its user's, which a load would take with it
    (dataset / "notes.txt").write_text("mine")
    result = CliRunner().invoke(app, ["load", str(games), "--engine", "dask", "--db", str(dataset)])
    assert result.exit_code == 2 and "also holds notes.txt; a load replaces the whole folder" in result.output
    assert (dataset / "notes.txt").read_text() == "mine" and is_dataset(dataset)


def test_a_data_set_with_a_part_missing_cut_short_or_added_is_refused_naming_it(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A load lists its parts with their sizes; a copy of the data set that lacks one,
    has one cut short or holds one more (read twice by a glob) is refused by every
    reader, naming the file, and reads as before once whole again."""
    import pyarrow.parquet as pq
    from cli import run

    dataset = tmp_path / "dataset"
    load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    listed = pq.ParquetFile(dataset / PARTS).read().to_pylist()
    on_disk = {p.relative_to(dataset).as_posix(): p.stat().st_size for p in dataset.rglob("*.parquet")}
    assert {row["file"]: row["bytes"] for row in listed} == {k: v for k, v in on_disk.items() if k != PARTS}
    query = ["sql", "select count(*) as n from euchre.plays", "--db", str(dataset), "--format", "csv"]
    whole = run(*query)
    assert whole.returncode == 0 and int(whole.stdout.splitlines()[1]) > 0, whole.stderr

    part = dataset / "euchre" / "plays" / "part-00001.parquet"
    data = part.read_bytes()
    copy = part.with_name("part-00001 (copy).parquet")
    copy.write_bytes(data)
    refused = run(*query)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "euchre/plays/part-00001 (copy).parquet is not one of the parts its load wrote" in refused.stderr
    copy.unlink()
    part.write_bytes(data[: len(data) // 2])
    for command in (query, ["report", "--db", str(dataset), "--out", str(tmp_path / "report")]):
        refused = run(*command)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert (
            f"part-00001.parquet is {len(data) // 2:,} bytes where its load wrote {len(data):,}"
            in refused.stderr
        )
    assert not (tmp_path / "report").exists()
    part.unlink()
    refused = run(*query)
    assert refused.returncode == 2 and "euchre/plays/part-00001.parquet is missing" in refused.stderr
    part.write_bytes(data)
    assert run(*query).stdout == whole.stdout


def test_a_data_set_without_its_list_of_parts_is_read_as_it_is_and_a_bad_part_named(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A data set written before loads listed their parts (or by another engine) is
    read through its globs; a part there that is no Parquet file is one line naming it."""
    from cli import run

    dataset = tmp_path / "dataset"
    load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    (dataset / PARTS).unlink()
    query = ["sql", "select count(*) as n from euchre.games", "--db", str(dataset), "--format", "csv"]
    assert run(*query).returncode == 0
    (dataset / "euchre" / "games" / "part-00000.parquet").write_bytes(b"not parquet")
    refused = run(*query)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "cannot read its table euchre.games" in refused.stderr and "part-00000.parquet" in refused.stderr


def test_an_export_of_a_part_damaged_inside_fails_in_one_line_and_keeps_the_last_export(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A part of the listed size whose pages are damaged is found as its rows are
    read: the export stops naming it, and the earlier export stays whole."""
    from cli import run

    dataset = tmp_path / "dataset"
    load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    out = tmp_path / "parquet"
    assert run("export", "--db", str(dataset), "--parquet", str(out)).returncode == 0
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    part = dataset / "euchre" / "plays" / "part-00001.parquet"
    data = part.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little") + 8  # the metadata, then its length and PAR1
    part.write_bytes(data[:4] + bytes(len(data) - 4 - footer) + data[-footer:])  # the pages zeroed
    failed = run("export", "--db", str(dataset), "--parquet", str(out))
    assert failed.returncode == 2 and "Traceback" not in failed.stderr, failed.stderr
    assert "euchre/plays/part-00001.parquet cannot be read" in failed.stderr, failed.stderr
    assert f"{out} is left as it was" in failed.stderr
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_a_report_on_hands_damaged_inside_names_the_part(games: Path, tmp_path: Path, client: Any) -> None:
    """The report reads the hands first, to count each distinct one once: a part
    of them whose pages are damaged is named there too, not a traceback."""
    from cli import run

    dataset = tmp_path / "dataset"
    load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    part = dataset / "euchre" / "hands" / "part-00001.parquet"
    data = part.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little") + 8
    part.write_bytes(data[:4] + bytes(len(data) - 4 - footer) + data[-footer:])
    failed = run("report", "--db", str(dataset), "--out", str(tmp_path / "report"))
    assert failed.returncode == 2 and "Traceback" not in failed.stderr, failed.stderr
    assert "euchre/hands/part-00001.parquet cannot be read" in failed.stderr, failed.stderr


def test_an_input_of_another_format_is_refused_not_read_as_json_lines(games: Path, tmp_path: Path) -> None:
    """The engine splits JSON Lines: an EGN game or a TarotClub deal was read as
    lines, each quarantined as bad JSON (279 of them for one game).  Now it is
    refused, before a cluster starts, saying what to do; so is ``--from egn``."""
    from cli import run

    fixtures = Path(__file__).parent / "fixtures"
    dataset = tmp_path / "dataset"
    for path, found in (
        (fixtures / "egn" / "standard.egn", "egn"),
        (fixtures / "tarot" / "tarotclub-handle.json", "tarotclub"),
    ):
        refused = run("load", str(games), str(path), "--engine", "dask", "--db", str(dataset))
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
        assert f"{path}: {found}, not JSON Lines of records" in refused.stderr
        assert "--engine local, or convert it" in refused.stderr
    refused = run("load", str(games), "--engine", "dask", "--from", "egn", "--db", str(dataset))
    assert refused.returncode == 2 and "not --from egn" in refused.stderr
    assert not dataset.exists()


def test_a_part_whose_footer_is_damaged_is_named_by_every_reader(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """DuckDB says only "don't know what type" or "TProtocolException: Invalid data"
    of a part whose footer was damaged at its size: the readers find the part and
    name it; a query's own mistake is still the query's."""
    from cli import run

    dataset = tmp_path / "dataset"
    load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    part = dataset / "euchre" / "plays" / "part-00001.parquet"
    data = part.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little") + 8
    part.write_bytes(data[:-footer] + b"A" * (footer - 8) + data[-8:])
    named = f"{dataset}: euchre/plays/part-00001.parquet cannot be read ("
    for command in (
        ["sql", "select * from euchre.plays", "--db", str(dataset)],
        ["report", "--db", str(dataset), "--out", str(tmp_path / "report")],
        ["export", "--db", str(dataset), "--parquet", str(tmp_path / "parquet")],
    ):
        failed = run(*command)
        assert failed.returncode == 2 and "Traceback" not in failed.stderr, failed.stderr
        assert named in failed.stderr, failed.stderr
    mistake = run("sql", "select no_such_column from euchre.plays", "--db", str(dataset))
    assert mistake.returncode == 2 and "no_such_column" in mistake.stderr and named not in mistake.stderr


def test_the_pure_functions_write_what_the_dask_engine_writes(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """The recipe of docs/scale-out.md for other engines (prepare every split, route
    the facts, write each split), run in a plain loop, gives the tables the Dask
    engine gives by writing as it prepares and rewriting the parts routing drops
    lines from."""
    import duckdb

    dataset = tmp_path / "dataset"
    spread = load_dask([str(games)], dataset, client=client, split_bytes=50_000)
    files, newlines = hashed_inputs([str(games)])
    splits = numbered(splits_of(files, 50_000), newlines)
    prepared = [prepare_split(s) for s in splits]
    summary = LoadSummary(1, "recipe", files)
    routings = route([p.facts for p in prepared], summary)
    out = tmp_path / "recipe"
    for p in prepared:
        write_split(p, routings[p.split.index], str(out))
    assert summary.to_json() | {"db": ""} == spread.to_json() | {"db": "", "batches": 0}
    assert summary.already_present == 2
    tables = sorted(str(p.relative_to(out)) for p in out.glob("**/*.parquet"))
    folders = sorted({str(Path(t).parent) for t in tables})
    assert "quarantine" in folders and "euchre/plays" in folders
    con = duckdb.connect()
    for folder in folders:
        rows = [
            con.sql(f"select * from read_parquet('{root / folder}/*.parquet') order by all").fetchall()
            for root in (out, dataset)
        ]
        assert rows[0] == rows[1] and rows[0], folder


def test_the_client_routes_the_splits_in_input_order_whatever_order_they_finish_in(
    client: Any,
) -> None:
    """Routing is first come in input order (a repeated id keeps its first line), so
    the client takes each staged split in turn, though the later ones finish first."""
    import time
    from types import SimpleNamespace

    def staged(i: int, n: int) -> Any:
        time.sleep(0.1 * (n - i))
        return SimpleNamespace(facts=bytes([i]))

    n = 6
    stage = partial(_submit, client, staged, n=n)
    delivered = [(i, done.facts) for i, _, done in _staged_in_order(stage, range(n), lambda: n)]
    assert delivered == [(i, bytes([i])) for i in range(n)]


def _submit(client: Any, work: Any, i: int, **kwargs: Any) -> Any:
    return client.submit(work, i, pure=False, **kwargs)


def _same(i: int) -> int:
    return i


def test_the_client_has_at_most_its_window_of_splits_on_the_cluster(client: Any) -> None:
    """However many splits, at most ``ahead()`` of them are on the cluster at a time
    (sent, or staged before their turn), and every one comes back, in order."""
    on_cluster = most = 0

    def stage(i: int) -> Any:
        nonlocal on_cluster, most
        on_cluster += 1
        most = max(most, on_cluster)
        return _submit(client, _same, i)

    delivered = []
    for i, _, done in _staged_in_order(stage, range(40), lambda: 3):
        on_cluster -= 1
        delivered.append((i, done))
    assert delivered == [(i, i) for i in range(40)]
    assert most == 3


def test_a_long_input_keeps_the_scheduler_s_tasks_few(games: Path, tmp_path: Path, client: Any) -> None:
    """The scheduler holds the tasks of a few splits at a time (``AHEAD_PER_WORKER``
    a worker, and the finishes that run), not one for every split of the input:
    sent at once, the 100 splits were all there when the first was routed."""
    long = tmp_path / "long.jsonl"
    long.write_bytes(games.read_bytes() * 6)
    held: list[int] = []

    def count_tasks(lines: int, size: int) -> None:
        held.append(client.run_on_scheduler(_scheduler_tasks))

    summary = load_dask([str(long)], tmp_path / "data", client=client, split_bytes=1, on_split=count_tasks)
    assert summary.batches == len(held) >= 100 and summary.accounted
    assert max(held) < 50, str(held)


def _scheduler_tasks(dask_scheduler: Any) -> int:
    return len(dask_scheduler.tasks)


def test_the_command_s_own_local_cluster_loads_what_a_given_cluster_loads(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """``tricklog load --engine dask`` starts its own LocalCluster (workers forked
    from a server that imported their modules, one polars thread each) and stops
    it: the data set is the one a cluster given to :func:`load_dask` writes."""
    from cli import run

    given = tmp_path / "given"
    expected = load_dask([str(games)], given, client=client)
    own = tmp_path / "own"
    result = run("load", str(games), "--engine", "dask", "--jobs", "2", "--db", str(own), "--json")
    assert result.returncode == 1, result.stderr  # the input holds corrupted games: violations found
    assert json.loads(result.stdout) | {"db": ""} == expected.to_json() | {"db": ""}
    with Warehouse.open(given) as a, Warehouse.open(own) as b:
        for table in table_names():
            assert _rows(a, table) == _rows(b, table), table


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_stream_is_refused_before_anything_is_read_or_written(tmp_path: Path) -> None:
    """The workers open the inputs themselves: standard input or a FIFO, read once by
    the client, would be gone for them."""
    from cli import run

    fifo = tmp_path / "games.fifo"
    os.mkfifo(fifo)
    for source in (str(fifo), "-"):
        result = run("load", source, "--engine", "dask", "--db", str(tmp_path / "out"), stdin=b"")
        assert result.returncode == 2, result.stderr
        assert "save it to a file first" in result.stderr and "Traceback" not in result.stderr
        assert not (tmp_path / "out").exists()
    # the recipe for other engines (docs/scale-out.md) starts from hashed_inputs: refused there too
    with pytest.raises(WarehouseError, match="save it to a file first"):
        hashed_inputs([str(fifo)])


def test_an_input_counted_then_hashed_is_the_input_hashed_and_counted_at_once(tmp_path: Path) -> None:
    """The client sizes an input, sends its splits, and hashes it meanwhile: the
    hash is that of the one pass the recipe for other engines makes, and that
    pass counts the newlines block by block, over a file that spans two read
    buffers and ends inside a block."""
    rng = random.Random(7)
    lines = [b"y" * rng.randrange(60) for _ in range(300_000)]
    lines[1_000] = lines[200_000] = b"x" * (2 * NEWLINE_BLOCK)  # blocks without a newline
    data = b"\n".join(lines)  # no newline at the end
    assert READ_BLOCKS * NEWLINE_BLOCK < len(data) < 2 * READ_BLOCKS * NEWLINE_BLOCK
    assert len(data) % NEWLINE_BLOCK
    path = tmp_path / "games.jsonl"
    path.write_bytes(data)

    counted = sized_inputs([str(path)])
    assert [(f.sha256, f.size) for f in counted] == [(UNHASHED, len(data))]
    blocks = [data.count(b"\n", start, start + NEWLINE_BLOCK) for start in range(0, len(data), NEWLINE_BLOCK)]
    newlines = {counted[0].path: blocks}
    hashed = InputReading(counted).read()
    assert hashed[0].sha256 == hashlib.sha256(data).hexdigest()
    assert hashed_inputs([str(path)]) == (hashed, newlines)


def test_the_command_s_local_cluster_runs_without_profiler_with_short_logs_and_slow_polls() -> None:
    """What grows with a run and has no reader without a dashboard is off or short,
    and the health and memory checks run once a second (``LEAN_CLUSTER``), in the
    scheduler, the nannies, every worker and the command's client; Dask's defaults
    are left as they are outside the cluster."""
    import dask

    session = _client(None, None, 2)
    try:
        client = session.open()
        workers = client.run(
            lambda dask_worker: (
                sorted(dask_worker.periodic_callbacks),
                _every(dask_worker, "tick", "memory_monitor"),
                dask_worker.state.log.maxlen,
                dask_worker.monitor.quantities["memory"].maxlen,
                __import__("pyarrow").default_memory_pool().backend_name,
                "pandas" in __import__("sys").modules,
            )
        )
        scheduler = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_log.maxlen)
        sent_logs = (
            client.scheduler_comm.recent_message_log.maxlen,
            session.cluster.scheduler.client_comms[client.id].recent_message_log.maxlen,
        )
        scheduler_polls = _every(session.cluster.scheduler, "tick")
        nanny_polls = [_every(nanny, "tick", "memory_monitor") for nanny in session.cluster.workers.values()]
    finally:
        session.close()
    assert len(workers) == 2
    assert scheduler_polls == [1000] and nanny_polls == [[1000, 1000]] * 2
    for callbacks, polls, log, samples, arrow_pool, pandas in workers.values():
        assert not {"profile", "profile-cycle"} & set(callbacks), callbacks
        assert polls == [1000, 1000]  # milliseconds
        assert (log, samples) == (100, 100)
        assert (arrow_pool, pandas) == ("system", False)  # WORKER_ENV, pipeline.without_pandas
    assert scheduler == 100
    assert sent_logs == (100, 100)  # the client's batches to the scheduler, and the scheduler's to it
    assert dask.config.get("distributed.worker.profile.enabled") is True
    assert dask.config.get("distributed.admin.low-level-log-length") == 1000
    assert dask.config.get("distributed.admin.tick.interval") == "20ms"


def test_the_command_s_client_of_a_cluster_it_did_not_start_keeps_a_short_log(client: Any) -> None:
    """Connected to a scheduler's address (``--scheduler``), the command's client keeps
    the last 100 batches it sent, not Dask's 1,000 (``LEAN_CLIENT``): the cluster is
    not the command's to set, its own process is."""
    import dask

    session = _client(None, client.scheduler.address, None)
    try:
        kept = session.open().scheduler_comm.recent_message_log.maxlen
    finally:
        session.close()
    assert kept == 100
    assert client.scheduler_comm.recent_message_log.maxlen == 1000  # a client made outside, as Dask makes it
    assert dask.config.get("distributed.admin.low-level-log-length") == 1000


def test_a_local_worker_is_given_its_next_split_once_done_with_the_one_it_has() -> None:
    """Ten tasks of one kind (as a load's splits are) on the command's local cluster
    of 2 workers: while two run, the eight others wait at the scheduler
    (``ONE_SPLIT_A_WORKER``) for whichever worker is done first, rather than one
    queued behind each running one (Dask's default)."""
    import time

    from distributed import Event

    session = _client(None, None, 2)
    try:
        client = session.open()
        go = Event("go", client=client)  # type: ignore[no-untyped-call]

        def split(i: int) -> int:
            Event("go").wait(60)  # type: ignore[no-untyped-call]
            return i

        # submitted at once: Dask queues a kind of task at the scheduler once there are more than 2 a thread
        futures = client.map(split, list(range(10)), key=[f"split-{i}" for i in range(10)])

        def state(dask_scheduler: Any) -> tuple[list[int], int]:
            running = sorted(len(worker.processing) for worker in dask_scheduler.workers.values())
            return running, len(dask_scheduler.queued)

        deadline = time.monotonic() + 60
        while (seen := client.run_on_scheduler(state)) != ([1, 1], 8) and time.monotonic() < deadline:
            time.sleep(0.05)
        go.set()  # type: ignore[no-untyped-call]
        results = client.gather(futures)
    finally:
        session.close()
    assert seen == ([1, 1], 8)
    assert results == list(range(10))


def test_the_inputs_are_hashed_once_the_client_has_imported_distributed() -> None:
    """Hashing waits for :meth:`_client.open`'s import of distributed, which it would
    otherwise share the command's core with while the fork server imports on the
    other; with a given client, :meth:`open` imports nothing and hashing starts at once."""
    session = _client(object(), None, None)
    seen: list[bool] = []
    hashing = threading.Thread(
        target=lambda: seen.append(session.after_import(lambda: session.imported.is_set()))
    )
    hashing.start()
    hashing.join(0.5)
    waited = hashing.is_alive()
    session.open()
    hashing.join()
    assert waited and seen == [True]


def _malloc_heaps() -> int:
    """The arenas' heaps glibc's malloc has, by its own report (``malloc_info``)."""
    import ctypes
    import re

    libc = ctypes.CDLL(None)
    libc.open_memstream.restype = ctypes.c_void_p
    text, size = ctypes.c_char_p(), ctypes.c_size_t()
    stream = libc.open_memstream(ctypes.byref(text), ctypes.byref(size))
    libc.malloc_info(0, ctypes.c_void_p(stream))
    libc.fclose(ctypes.c_void_p(stream))
    report = ctypes.string_at(text, size.value).decode()
    libc.free(text)
    return len(re.findall(r"<heap nr=", report))


def _heaps_after_allocating() -> int:
    held = [bytes(100_000) for _ in range(20)]  # from malloc, below its mmap threshold
    assert len(held) == 20
    return _malloc_heaps()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_info is glibc's")
def test_a_local_worker_s_tasks_allocate_from_the_one_malloc_arena() -> None:
    """A task runs on a worker's thread of its own, which glibc would give an arena of
    its own (``MALLOC_ARENA_MAX`` in ``WORKER_ENV``): its memory comes from the heap
    the worker's other threads use."""
    session = _client(None, None, 1)
    try:
        heaps = session.open().submit(_heaps_after_allocating, pure=False).result()
    finally:
        session.close()
    assert heaps == 1


def _every(server: Any, *callbacks: str) -> list[float]:
    """How often a Dask server runs these periodic callbacks (milliseconds)."""
    return [server.periodic_callbacks[name].callback_time for name in callbacks]


def test_the_command_s_local_cluster_takes_no_fixed_port() -> None:
    """Its scheduler serves no dashboard, and its HTTP endpoints listen on a free port
    of the loopback: with 8787 (Dask's default) taken, as by another load at the same
    time, it says nothing of ports."""
    with socket.socket() as taken, warnings.catch_warnings(record=True) as caught:
        with contextlib.suppress(OSError):  # taken already: as well
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        warnings.simplefilter("always")
        session = _client(None, None, 1)
        try:
            session.open()
            host, port = (
                session.cluster.scheduler.http_server.address,
                session.cluster.scheduler.http_server.port,
            )
        finally:
            session.close()
    assert [str(w.message) for w in caught if "already in use" in str(w.message)] == []
    assert host == "127.0.0.1" and port != 8787


def _data_set(folder: Path, content: str) -> Path:
    folder.mkdir()
    accounts = {
        "run_id": 1,
        "files": [],
        "lines": 0,
        "games_loaded": 0,
        "already_present": 0,
        "quarantined": 0,
    }
    (folder / MARKER).write_text(json.dumps(accounts))  # a load's accounts: what marks a data set
    (folder / "part.txt").write_text(content)
    return folder


def test_a_new_data_set_replaces_the_old_one_whole_and_nothing_else(tmp_path: Path) -> None:
    """The old data set is renamed aside, then removed once the new one is in; what
    became something else during the load, or a move that fails, keeps what is there."""
    root = tmp_path / "root"
    root.mkdir()
    target = root / "dataset"
    move_into_place(_data_set(root / ".new-1", "first"), target)
    move_into_place(_data_set(root / ".new-2", "second"), target)
    assert (target / "part.txt").read_text() == "second"
    assert sorted(p.name for p in root.iterdir()) == ["dataset"]  # nothing left aside

    with pytest.raises(WarehouseError, match="cannot move the new data set there"):
        move_into_place(root / ".never-made", target)
    assert (target / "part.txt").read_text() == "second"  # put back
    assert sorted(p.name for p in root.iterdir()) == ["dataset"]

    mine = root / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    staging = _data_set(root / ".new-3", "third")
    with pytest.raises(WarehouseError, match="became something other than a tricklog data set"):
        move_into_place(staging, mine)
    assert (mine / "notes.txt").read_text() == "mine" and (staging / "part.txt").is_file()


def test_a_killed_loads_staging_is_removed_by_the_next_load_there(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A load writes its data set beside the target (``.NAME.tmp-PID-*``) and moves it
    into place at the end: a killed load leaves it, a whole data set's parts; the
    next load into the same target removes it, but not a running load's."""
    target = tmp_path / "dataset"
    killed = tmp_path / ".dataset.tmp-999999999-abcd1234"  # no such process
    _data_set(killed, "left by a killed load")
    running = tmp_path / f".dataset.tmp-{os.getpid()}-abcd1234"
    running.mkdir()
    load_dask([str(games)], target, client=client)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["dataset", running.name])


def test_a_scheduler_address_that_is_no_scheduler_is_a_clear_error(games: Path, tmp_path: Path) -> None:
    """A mistyped ``--scheduler`` is a usage error (exit 2, one line), not a traceback,
    and no data set folder is left behind."""
    from cli import run

    result = run(
        "load", str(games), "--engine", "dask", "--scheduler", "not an address", "--db", str(tmp_path / "d")
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == (
        "tricklog: cannot connect to a Dask scheduler at 'not an address': "
        "missing port number in address 'not an address'"
    )
    assert list(tmp_path.iterdir()) == []  # no data set, no staging folder


def _pretend_other_code() -> None:
    """Run on a worker: its tricklog now answers with another code's fingerprint."""
    from pipeline import fingerprint

    fingerprint.code_fingerprint = lambda: "0" * 64  # type: ignore[assignment]


def _the_real_code() -> None:
    import importlib

    from pipeline import fingerprint

    importlib.reload(fingerprint)


def test_a_cluster_whose_workers_run_other_code_is_refused_before_any_work(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A cluster the command did not start may run another tricklog (a client then
    waited forever on results it could not read): it is refused, naming its
    workers, from the API and from ``--scheduler`` (exit 2, one line), and nothing is
    written; with the same code again, the same address loads."""
    from cli import run

    address = client.scheduler.address
    client.run(_pretend_other_code)
    try:
        with pytest.raises(WarehouseError, match="run other tricklog code than this command") as refused:
            load_dask([str(games)], tmp_path / "given", client=client)
        assert all(worker in str(refused.value) for worker in client.scheduler_info()["workers"])
        result = run(
            "load", str(games), "--engine", "dask", "--scheduler", address, "--db", str(tmp_path / "d")
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "run other tricklog code" in result.stderr
        assert list(tmp_path.iterdir()) == []
    finally:
        client.run(_the_real_code)
    result = run("load", str(games), "--engine", "dask", "--scheduler", address, "--db", str(tmp_path / "d"))
    assert result.returncode in (0, 1), result.stderr  # 1: the games' violations
    assert (tmp_path / "d" / "load.json").is_file()


def test_a_worker_on_other_code_after_the_check_is_refused_at_its_next_task(
    games: Path, tmp_path: Path, client: Any
) -> None:
    """A worker that joins a cluster (or is reinstalled) after the load asked every
    worker for its code is checked by each task it is given: the load fails with a
    one-line error naming it, rather than wait forever on results it cannot read,
    and nothing is written.  Here the workers change once the first split is routed."""
    workers = list(client.scheduler_info()["workers"])

    def change_the_workers(lines: int, size: int) -> None:
        client.run(_pretend_other_code)

    try:
        with pytest.raises(WarehouseError, match="runs other tricklog code than this command") as refused:
            load_dask([str(games)], tmp_path / "given", client=client, on_split=change_the_workers)
    finally:
        client.run(_the_real_code)
    message = str(refused.value)
    assert "\n" not in message and any(worker in message for worker in workers)
    assert list(tmp_path.iterdir()) == []  # no data set, no staging folder
    load_dask([str(games)], tmp_path / "given", client=client)  # the same workers, on the same code again
    assert (tmp_path / "given" / "load.json").is_file()
