"""Replaying on several processes finds exactly what one process finds, in the same order."""

from __future__ import annotations

import json
import os
import platform
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli import run

from pipeline.games.euchre.simulate import write_simulation
from pipeline.validate import check_inputs, validate


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 100 lines: the inputs here are several, so two jobs are two processes."""
    from pipeline import parallel

    monkeypatch.setattr(parallel, "CHUNK_LINES", 100)


def mixed_input(tmp_path: Path, games: int = 450) -> Path:
    """Simulated games, some corrupted, a repeated game and garbage lines."""
    path = tmp_path / "games.jsonl"
    write_simulation(path, games, seed=12, preset="mixed", corrupt_rate=0.2)
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join([*lines, b"\xff not json", lines[3], b"[1, 2]", b""]))
    return path


def test_two_processes_find_what_one_finds_in_the_same_order(tmp_path: Path) -> None:
    path = str(mixed_input(tmp_path))
    serial = [(g.item.line, g.duplicate, [v.to_json() for v in g.violations]) for g in check_inputs([path])]
    parallel = [
        (g.item.line, g.duplicate, [v.to_json() for v in g.violations]) for g in check_inputs([path], jobs=2)
    ]
    assert parallel == serial
    assert any(violations for _, _, violations in serial) and any(duplicate for _, duplicate, _ in serial)
    assert validate([path], jobs=2).to_json() == validate([path]).to_json()


def test_cli_jobs_option_gives_the_same_output(tmp_path: Path) -> None:
    path = str(mixed_input(tmp_path, games=1100))  # more lines than a chunk: two processes
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    first = run("validate", path, "--json", "--violations", str(one))
    second = run("validate", path, "--json", "--violations", str(two), "--jobs", "2")
    assert first.returncode == second.returncode == 1
    assert json.loads(first.stdout) == json.loads(second.stdout)
    assert one.read_bytes() == two.read_bytes()


def table_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    import duckdb
    from warehouse_helpers import TABLES

    tables = TABLES[:-1]
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: sorted(con.execute(f"select * from {t}").fetchall(), key=repr) for t in tables}


@pytest.mark.parametrize("chunk_lines", [100, 1000])
def test_an_input_of_one_chunk_starts_no_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_lines: int
) -> None:
    """Workers cost more to start than a chunk's work: an input of one chunk is done here."""
    import multiprocessing

    from pipeline import parallel
    from pipeline.warehouse.api import load

    monkeypatch.setattr(parallel, "CHUNK_LINES", chunk_lines)
    path = str(mixed_input(tmp_path))
    workers: set[int] = set()

    def note_workers(*_: object) -> None:
        workers.update(child.pid for child in multiprocessing.active_children() if child.pid)

    for replayed in parallel.replay_jsonl(path, jobs=2):  # validate's, before its check for copies
        note_workers(replayed)
    started_by_validate = len(workers)
    workers.clear()
    load([path], tmp_path / "w.duckdb", jobs=2, on_line=note_workers)
    assert (started_by_validate, len(workers)) == ((2, 2) if chunk_lines == 100 else (0, 0))


def test_a_parallel_load_writes_what_a_serial_load_writes(tmp_path: Path) -> None:
    from pipeline.warehouse.api import load

    path = str(mixed_input(tmp_path))
    serial = load([path], tmp_path / "one.duckdb", batch_size=100)
    parallel = load([path], tmp_path / "two.duckdb", batch_size=100, jobs=2)
    assert {**parallel.to_json(), "db": None} == {**serial.to_json(), "db": None}
    assert parallel.accounted and serial.quarantined > 0
    assert table_rows(tmp_path / "two.duckdb") == table_rows(tmp_path / "one.duckdb")
    again = load([path], tmp_path / "two.duckdb", jobs=2)
    assert (again.games_loaded, again.quarantined, again.already_present) == (0, 0, again.lines)


def test_a_batch_of_a_large_file_s_rows_and_a_small_one_s(tmp_path: Path) -> None:
    """The large file's rows come from the workers with their text dictionary-encoded,
    the small file's are built in this process, plain: one batch holds both (it
    was an ArrowTypeError, the run left aborted)."""
    from pipeline.warehouse.api import load

    large = str(mixed_input(tmp_path))
    small = tmp_path / "small.jsonl"
    write_simulation(small, 3, seed=13, preset="mixed")
    serial = load([large, str(small)], tmp_path / "one.duckdb")
    parallel = load([large, str(small)], tmp_path / "two.duckdb", jobs=2)
    assert {**parallel.to_json(), "db": None} == {**serial.to_json(), "db": None}
    assert parallel.lines == 450 + 3 + 3 and parallel.accounted  # the games, 3 odd lines, the small file
    assert table_rows(tmp_path / "two.duckdb") == table_rows(tmp_path / "one.duckdb")


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no process priorities here (os.getpriority)")
@pytest.mark.parametrize("command", ["validate", "load"])
def test_workers_give_way_to_the_process_taking_their_results(tmp_path: Path, command: str) -> None:
    """The process that takes the workers' results in order gets the cores first (a
    load's is its bottleneck, appending to DuckDB): its workers, forked from it
    (``validate``'s) or from the fork server (``load``'s), run at a lower priority,
    and it keeps its own."""
    import multiprocessing

    from pipeline import parallel
    from pipeline.warehouse.api import load

    own = os.getpriority(os.PRIO_PROCESS, 0)
    path = str(mixed_input(tmp_path))
    workers: dict[int, int] = {}

    def note_priorities(*_: object) -> None:
        for child in multiprocessing.active_children():
            if child.pid:
                workers[child.pid] = os.getpriority(os.PRIO_PROCESS, child.pid)

    if command == "validate":
        for replayed in parallel.replay_jsonl(path, jobs=2):
            note_priorities(replayed)
    else:
        load([path], tmp_path / "w.duckdb", jobs=2, on_line=note_priorities)
    assert list(workers.values()) == [min(19, own + parallel.WORKER_NICENESS)] * 2
    assert os.getpriority(os.PRIO_PROCESS, 0) == own


def test_rows_cross_to_the_loader_with_their_text_dictionary_encoded(tmp_path: Path) -> None:
    """What a worker sends is the chunk's rows, text columns encoded: decoded, they
    are the rows as built, and the encoding is smaller."""
    import pickle

    import pyarrow as pa

    from pipeline.warehouse.dask_engine import prepare_lines
    from pipeline.warehouse.load import InputFile
    from pipeline.warehouse.parallel_load import compact

    path = mixed_input(tmp_path)
    lines = list(enumerate(path.read_bytes().splitlines(), 1))
    _, tables = prepare_lines(InputFile("games.jsonl", str(path), "0" * 64, 0), lines, 1)
    assert {"games", "euchre.plays", "quarantine"} <= tables.keys()
    for table, rows in tables.items():
        sent = compact(rows)
        text = [f.name for f in rows.schema if pa.types.is_large_string(f.type) or pa.types.is_string(f.type)]
        assert text and all(pa.types.is_dictionary(sent.schema.field(name).type) for name in text), table
        assert sent.cast(rows.schema).equals(rows), table
    plays = tables["euchre.plays"]
    assert len(pickle.dumps(compact(plays))) < 0.6 * len(pickle.dumps(plays))


def test_a_chunks_rows_wait_in_a_file_the_loader_maps(tmp_path: Path) -> None:
    """A worker writes a chunk's rows (compacted) to one file, each table a stream of
    its own; the loader reads the same rows back, and the file is gone as soon as
    it is mapped."""
    from pipeline.warehouse.dask_engine import prepare_lines
    from pipeline.warehouse.load import InputFile
    from pipeline.warehouse.parallel_load import RowsFile, compact

    path = mixed_input(tmp_path)
    lines = list(enumerate(path.read_bytes().splitlines(), 1))
    _, tables = prepare_lines(InputFile("games.jsonl", str(path), "0" * 64, 0), lines, 1)
    sent = {table: compact(rows) for table, rows in tables.items()}
    folder = tmp_path / "rows"
    folder.mkdir()
    written = RowsFile.write(sent, str(folder))
    assert [p.name for p in folder.iterdir()] == [Path(written.path).name]
    assert list(written.spans) == list(sent)
    back = written.read()
    assert list(folder.iterdir()) == []
    assert back.keys() == sent.keys()
    for table, rows in back.items():
        assert rows.equals(sent[table]), table
        assert rows.cast(tables[table].schema).equals(tables[table]), table


def test_releasing_freed_memory_is_quiet_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off glibc (no ``malloc_trim``) the trim between chunks does nothing, and says nothing."""
    import ctypes

    import pipeline.parallel as parallel

    monkeypatch.setattr(parallel, "_LIBC", None)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())  # a C library without malloc_trim
    parallel.release_freed_memory()
    assert parallel._LIBC is False
    parallel.release_freed_memory()
    assert parallel.map_large_blocks(1 << 18) is False


#: Run in a process of its own (the setting lasts a process's life): how many more
#: blocks malloc has mapped on their own while one of 1 MB is held, after one of
#: 8 MB was freed.  ``fixed`` first has blocks of 256 KB and more mapped.
MAPPED_AFTER_FREEING_A_LARGER_BLOCK = """
import ctypes, sys
from pipeline.parallel import map_large_blocks

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
if sys.argv[1] == "fixed":
    assert map_large_blocks(256 << 10)
libc.free(libc.malloc(8 << 20))
before = libc.mallinfo2().hblks
block = libc.malloc(1 << 20)
print(libc.mallinfo2().hblks - before)
"""


def test_large_blocks_get_pages_of_their_own_once_asked() -> None:
    """glibc maps a large block on its own pages, but after freeing one it raises its
    threshold to that size and carves blocks up to it out of its heaps, which keep
    what they leave free.  ``map_large_blocks`` keeps the threshold where it is put."""
    import os
    import subprocess
    import sys

    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallinfo2  # noqa: B018 (glibc 2.33 or later)
    except (OSError, AttributeError):
        pytest.skip("needs glibc's mallinfo2 to count mapped blocks")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}

    def mapped(mode: str) -> int:
        command = [sys.executable, "-c", MAPPED_AFTER_FREEING_A_LARGER_BLOCK, mode]
        return int(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)

    assert mapped("default") == 0
    assert mapped("fixed") == 1


@pytest.mark.parametrize("ahead", [1, 2, 3])
def test_at_most_ahead_chunks_a_worker_are_in_flight(ahead: int) -> None:
    from pipeline.parallel import in_workers

    drawn: list[int] = []

    def chunks() -> Iterator[int]:
        for number in range(20):
            drawn.append(number)
            yield number

    in_flight = []
    for done, (chunk, result) in enumerate(in_workers(chunks(), abs, 2, ahead=ahead), 1):
        assert result == chunk == done - 1
        in_flight.append(len(drawn) - (done - 1))
    assert in_flight[0] == max(in_flight) == 2 * ahead
    assert len(drawn) == 20


def test_trimming_between_every_chunk_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.parallel as parallel

    path = str(mixed_input(tmp_path))
    monkeypatch.setattr(parallel, "CHUNK_LINES", 50)
    monkeypatch.setattr(parallel, "TRIM_EVERY", 1)
    serial = [(g.item.line, [v.to_json() for v in g.violations]) for g in check_inputs([path])]
    assert [
        (g.item.line, [v.to_json() for v in g.violations]) for g in check_inputs([path], jobs=2)
    ] == serial


def _loaded_before_any_work(modules: list[str]) -> list[bool]:
    import sys

    return [name in sys.modules for name in modules]


def test_a_pool_left_early_ends_though_its_workers_were_sending() -> None:
    """A caller that stops taking results (an error: a load that met a full disk)
    leaves the pool while workers still send theirs.  Terminated mid-send, a worker
    kept the result queue's lock for good and the pool waited on it forever (4
    times in 10 with results of 8 MB): the chunks in flight are now let finish
    first.  Ten pools in a row, each left after two results, all end."""
    import subprocess
    import sys

    code = (
        "from pipeline.parallel import in_workers\n"
        "def eight_mb(_):\n"
        "    return bytes(8 << 20)\n"
        "for _ in range(10):\n"
        "    results = in_workers(iter(range(100)), eight_mb, 2)\n"
        "    next(results); next(results)\n"
        "    results.close()\n"
        "print('ended')\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("a pool left early never ended")
    assert done.stdout.strip() == "ended", done.stderr[-2000:]


def test_fresh_workers_start_with_the_games_kernels_and_numba_readied() -> None:
    """What each game names in ``worker_modules`` is imported once, in the server
    fresh workers are forked from: a worker has it (and what numba loads on its
    first kernel) before doing anything; not scipy.linalg, which numba's BLAS
    check would have imported (``pipeline.jit``)."""
    from pipeline.games import installed
    from pipeline.parallel import in_workers

    named = [module for game in installed() for module in game.worker_modules]
    assert "pipeline.games.euchre.worker" in named
    wanted = [*named, "pipeline.games.euchre.fast_scan_kernel", "numba.np.arraymath", "scipy.linalg"]
    results = [loaded for _, loaded in in_workers(iter([wanted] * 2), _loaded_before_any_work, 2, fresh=True)]
    assert results == [[True] * (len(wanted) - 1) + [False]] * 2


def test_numba_readied_for_the_kernels_leaves_scipy_for_later() -> None:
    """Readied by ``pipeline.jit``, numba loads the kernels without importing
    scipy.linalg (a third of a CPU second), and its linear algebra, which needs
    it, still works afterwards."""
    code = (
        "import sys\n"
        "import numba, numpy as np\n"
        "import pipeline.jit\n"
        "from numba.core.registry import cpu_target\n"
        "cpu_target.typing_context.refresh(); cpu_target.target_context.refresh()\n"
        "print('scipy.linalg' in sys.modules, end=' ')\n"
        "dot = numba.njit(lambda a, b: np.dot(a, b))\n"
        "print(dot(np.ones(3), np.arange(3.0)), 'scipy.linalg' in sys.modules)\n"
    )
    assert _python(code).split() == ["False", "3.0", "True"]


def _checks_without_pandas(_: tuple[()]) -> tuple[bool, bool, str]:
    """Whether pandas and pandera.polars are imported, then a warehouse model's
    verdict on a row that breaks one of its checks."""
    import sys

    import polars as pl

    from pipeline.warehouse.ddl import table_models

    loaded = ("pandas" in sys.modules, "pandera.polars" in sys.modules)
    model = table_models()["games"]
    try:
        model.validate(pl.DataFrame({"game_id": ["g"]}))
    except Exception as e:
        return (*loaded, type(e).__name__)
    return (*loaded, "passed")


def test_fresh_workers_check_frames_with_a_pandera_that_never_imported_pandas() -> None:
    """pandas (imported by pandera when installed: 0.7 of the fork server's 2.6 CPU
    seconds) stays out of the server, and pandera.polars still checks frames there."""
    from pipeline.parallel import in_workers

    results = [verdict for _, verdict in in_workers(iter([()] * 2), _checks_without_pandas, 2, fresh=True)]
    assert results == [(False, True, "SchemaError")] * 2


def _arrow_pool(_: tuple[()]) -> tuple[str, int]:
    """The backend of Arrow's pool, and the bytes malloc's pool holds for a new array."""
    import pyarrow as pa

    data = pa.array(range(100_000), pa.int64())
    return pa.default_memory_pool().backend_name, pa.system_memory_pool().bytes_allocated() - data.nbytes


def test_fresh_workers_take_arrow_s_buffers_from_malloc() -> None:
    """``WORKER_ENV`` reaches the fork server, whichever pool starts it."""
    from pipeline.parallel import in_workers

    pools = [pool for _, pool in in_workers(iter([()] * 2), _arrow_pool, 2, fresh=True)]
    assert [name for name, _ in pools] == ["system", "system"]
    assert all(held >= 0 for _, held in pools)


def _anon_kept_after_a_large_block(_: tuple[()]) -> float:
    """MB of this process's memory kept after an 18 MB block is filled and freed, a
    20 MB one having been freed before (left to itself, glibc would then carve
    the 18 MB from its heap and keep them, the top it keeps free raised to 40 MB)."""

    def anon() -> float:
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("RssAnon:"))
        return int(line.split()[1]) / 1024

    def fill_and_free(mb: int) -> None:
        block = bytearray(mb << 20)
        block[::4096] = b"\x01" * len(range(0, len(block), 4096))  # every page touched
        del block

    fill_and_free(20)
    before = anon()
    fill_and_free(18)
    return anon() - before


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc" or not os.path.exists("/proc/self/status"), reason="glibc's malloc"
)
def test_fresh_workers_give_large_freed_blocks_back() -> None:
    """``WORKER_ENV`` fixes malloc's mmap and trim thresholds in every fresh worker:
    a block of 16 MB or more goes back to the system when it is freed, however
    large the blocks freed before it."""
    from pipeline.parallel import in_workers

    kept = [mb for _, mb in in_workers(iter([()] * 2), _anon_kept_after_a_large_block, 2, fresh=True)]
    assert len(kept) == 2 and all(mb < 4 for mb in kept), kept


def _has_game_worker_modules(_: tuple[()]) -> bool:
    import sys

    return "pipeline.games.euchre.worker" in sys.modules


def test_fresh_workers_come_with_the_games_worker_modules() -> None:
    """The fork server looks the installed games up itself and imports their
    ``worker_modules`` (``pipeline.games.workers``), so a command can start it
    before it has imported anything of the games."""
    from pipeline.parallel import in_workers

    assert [has for _, has in in_workers(iter([()] * 2), _has_game_worker_modules, 2, fresh=True)] == [
        True,
        True,
    ]


def test_a_game_that_fails_to_load_does_not_stop_the_fork_server(tmp_path: Path) -> None:
    """The server imports the games' worker modules (``pipeline.games.workers``):
    a module that raises, or a plugin that is no Game, is left to fail where the
    command or a worker uses it, with its message, not in the server's start."""
    (tmp_path / "raising_kernels.py").write_text("raise RuntimeError('broken kernels')\n")
    out = _python(
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "from dataclasses import replace\n"
        "import pipeline.games as games\n"
        "euchre = games.installed()[0]\n"
        "games.installed = lambda: [replace(euchre, worker_modules=('raising_kernels',))]\n"
        "import pipeline.games.workers as workers\n"
        "def not_a_game(): raise TypeError('entry point tarot is not a Game')\n"
        "workers.installed = not_a_game\n"
        "workers.import_worker_modules()\n"
        "print('raising_kernels' in sys.modules)"
    )
    assert out == "False"


def _marker_module(folder: Path) -> Path:
    """A module whose exit handler leaves a file: ``folder/torn-down``."""
    marker = folder / "torn-down"
    (folder / "marker_at_exit.py").write_text(
        f"import atexit, pathlib\natexit.register(pathlib.Path({str(marker)!r}).touch)\n"
    )
    return marker


@pytest.mark.parametrize("quick", [True, False])
def test_the_fork_server_ends_without_tearing_its_interpreter_down(tmp_path: Path, quick: bool) -> None:
    """Imported last by the server (``pipeline.fork_server_exit``), its exit skips
    the exit handlers registered before it and the interpreter's teardown, half a
    second during which the command's output stayed open after the command had
    exited: the run below returns once the server has closed it too."""
    import subprocess
    import sys

    from pipeline.forkserver import PRELOAD

    assert PRELOAD[-1] == "pipeline.fork_server_exit"
    marker = _marker_module(tmp_path)
    preload = ["marker_at_exit", *(["pipeline.fork_server_exit"] if quick else [])]
    code = (
        "import multiprocessing, os\n"
        "from pipeline.forkserver import start_fork_server\n"
        f"start_fork_server({preload!r}, {{}})\n"
        "worker = multiprocessing.get_context('forkserver').Process(target=os.getpid)\n"
        "worker.start(); worker.join(); print(worker.exitcode)"
    )
    # the server finds the marker's module where its environment says (it is not given the caller's sys.path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == "0"
    assert marker.exists() is not quick


def test_the_quick_exit_is_the_fork_server_s_alone(tmp_path: Path) -> None:
    """Imported by any other process, ``pipeline.fork_server_exit`` changes nothing
    of its exit: its handlers run and its exit status stands."""
    import subprocess
    import sys

    marker = _marker_module(tmp_path)
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import marker_at_exit, pipeline.fork_server_exit; sys.exit(3)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 3
    assert marker.exists()


def test_a_command_s_exit_collects_nothing_it_kept(tmp_path: Path) -> None:
    """The command's last exit handler freezes what exists by then: the
    interpreter's collections at exit, 0.15 to 0.3 s after a Dask load, skip it.
    The exit handlers registered before the command's (here, the one printing)
    still run, and the command's exit status stands (1: a violation found)."""
    import subprocess
    import sys

    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
        "from pipeline.cli import main\n"
        f"sys.argv = ['tricklog', 'validate', {str(bad)!r}]\n"
        "print('frozen before:', gc.get_freeze_count() > 0)\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "frozen before: False"
    assert "malformed_json" in done.stdout
    assert lines[-1] == "frozen at exit: True"


def test_a_fork_server_stopped_mid_import_lets_the_output_close(tmp_path: Path) -> None:
    """``stop_fork_server`` (what a local Dask load's command does as it ends) ends a server still
    importing: the output it shares with the command closes with the command,
    where the server below would have kept it open a minute, until its imports
    were done.  A process that started no server stops none."""
    import subprocess
    import sys

    (tmp_path / "slow_import.py").write_text("import time\ntime.sleep(60)\n")
    code = (
        "from pipeline.forkserver import start_fork_server, stop_fork_server\n"
        "stop_fork_server()\n"  # none started yet: nothing
        "start_fork_server(['slow_import'], {})\n"
        "stop_fork_server()\n"
        "print('stopped')"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, timeout=30
    )
    assert done.stdout.strip() == "stopped"


def test_a_usage_error_of_a_dask_load_is_one_at_once() -> None:
    """``tricklog load --engine dask`` with no input: the command (which started its
    cluster's server before parsing its arguments) says what is missing, exit 2."""
    done = run("load", "--engine", "dask", timeout=30)
    assert done.returncode == 2
    assert "Missing argument" in done.stderr and "Traceback" not in done.stderr


def test_starting_the_fork_server_imports_nothing_heavy() -> None:
    """A command starts it first thing (``load --engine dask``): its module imports
    neither the games nor numpy, polars or pyarrow."""
    heavy = ("numpy", "polars", "pyarrow", "pipeline.games")
    out = _python(f"import sys, pipeline.forkserver; print([m for m in {heavy!r} if m in sys.modules])")
    assert out == "[]"


@pytest.mark.parametrize("large_from", ["0", str(4 << 20)])
def test_a_load_starts_the_fork_server_ahead_only_for_a_large_file(tmp_path: Path, large_from: str) -> None:
    """Its imports cost some 2.5 CPU seconds: a load of a small file (read in the
    calling process) never starts it; of a large one, before the warehouse is opened."""
    import subprocess
    import sys

    path = mixed_input(tmp_path, games=20)
    code = (
        "import sys; from multiprocessing import forkserver; from pipeline.warehouse.api import load; "
        "load([sys.argv[1]], sys.argv[2], jobs=2); print(forkserver._forkserver._forkserver_pid is not None)"
    )
    env = {**os.environ, "TRICKLOG_FAST_PATH_MIN_BYTES": large_from}
    args = [sys.executable, "-c", code, str(path), str(tmp_path / "w.duckdb")]
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == str(large_from == "0")


def _python(code: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize("command", ["load", "sql"])
def test_a_command_on_a_warehouse_loads_no_pandas(tmp_path: Path, command: str) -> None:
    """pandera's pandas half and pandas cost a load of a small file 0.35 of its 1.5
    CPU seconds: the command line's process sets pandera up without them."""
    db = tmp_path / "w.duckdb"
    path = tmp_path / "games.jsonl"
    write_simulation(path, 20, seed=3, preset="mixed")
    args = ["load", str(path), "--db", str(db)] if command == "load" else ["sql", "--db", str(db), "select 1"]
    if command == "sql":
        assert run("load", str(path), "--db", str(db)).returncode == 0
    out = _python(
        f"import sys; from pipeline.cli import main; sys.argv = ['tricklog', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "print(code, 'pandera.polars' in sys.modules, [m for m in ('pandas', 'hypothesis') if m in sys.modules])"
    )
    assert out.splitlines()[-1] == "0 True []"


def test_pandas_imports_as_usual_after_pandera_was_set_up_without_it() -> None:
    out = _python(
        "import sys, pipeline.without_pandas, pandera; print('pandas' in sys.modules, end=' ');"
        "import pandas; print(pandas.DataFrame({'a': [1]}).shape, hasattr(pandera, 'DataFrameSchema'))"
    )
    assert out == "False (1, 1) False"


def test_arrow_builds_arrays_without_importing_pandas_and_still_converts_to_it() -> None:
    """pyarrow's first ``pa.array`` imported pandas (0.35 s in every worker) to ask
    whether its values were a pandas object; set up without it, it asks no more."""
    out = _python(
        "import sys, pipeline.without_pandas, pyarrow as pa\n"
        "pa.array(['a', 'b'], pa.large_string()); pa.array([1, 2, 3], pa.int64())\n"
        "print('pandas' in sys.modules, end=' ')\n"
        "print(pa.table({'a': [1, 2]}).to_pandas().shape, 'pandas' in sys.modules)"
    )
    assert out == "False (2, 1) True"


def test_a_pandera_that_will_not_import_without_pandas_is_imported_as_usual() -> None:
    out = _python(
        "import importlib, sys\n"
        "real, calls = importlib.import_module, []\n"
        "def failing_once(name, *args, **kwargs):\n"
        "    if name.startswith('pandera'):\n"
        "        calls.append(name)\n"
        "    if calls == [name]:\n"
        "        import pandera\n"  # imported part way, as a failing import leaves it
        "        raise ImportError('this pandera needs pandas')\n"
        "    return real(name, *args, **kwargs)\n"
        "importlib.import_module = failing_once\n"
        "import pipeline.without_pandas, pandera\n"
        "print(calls, 'pandas' in sys.modules, hasattr(pandera, 'DataFrameSchema'))"
    )
    assert out == "['pandera.polars', 'pandera.polars'] True True"


def test_a_stream_takes_the_fast_path_from_the_chunk_that_passes_the_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream's size is not known ahead: its chunks go to the fast path once they
    have brought ``FAST_PATH_MIN_BYTES``.  A file's go all or none, by its size."""
    from pipeline import parallel

    lines = b"".join(b'{"n": %d}\n' % i for i in range(7))  # 8 bytes a line without its newline
    monkeypatch.setattr(parallel, "CHUNK_LINES", 2)
    monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", 3 * 8)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(lines,))
    writer.start()
    flags = [fast for _, fast in parallel.chunks_with_fast_path(str(fifo))]
    writer.join()
    assert flags == [False, True, True, True]  # 16 bytes, then 32, 48, 56
    file = tmp_path / "games.jsonl"
    file.write_bytes(lines)
    assert [fast for _, fast in parallel.chunks_with_fast_path(str(file))] == [True] * 4
    monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", len(lines) + 1)
    assert [fast for _, fast in parallel.chunks_with_fast_path(str(file))] == [False] * 4


def test_a_few_games_piped_in_never_load_the_compiled_kernels(tmp_path: Path) -> None:
    """Loading the fast path's kernels costs over a second, and on a fresh install
    compiling them half a minute: a small input on standard input never waits for
    them (numba writes to ``NUMBA_CACHE_DIR`` as soon as a kernel module is imported)."""
    path = tmp_path / "games.jsonl"
    write_simulation(path, 20, seed=5, preset="mixed")
    cache = tmp_path / "numba-cache"
    result = run("validate", "-", "--json", stdin=path.read_bytes(), env={"NUMBA_CACHE_DIR": str(cache)})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 20
    assert not cache.exists()


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs a process that may use two cores, to bind one to one of them",
)
def test_jobs_0_is_one_worker_per_core_the_process_may_use() -> None:
    """A process bound to fewer cores than the machine has (``taskset``, a container's
    cpuset, a Slurm allocation) gets a worker per core it may use; a number asked
    for is kept."""
    import subprocess
    import sys

    from pipeline.parallel import jobs_for

    bound = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from pipeline.parallel import jobs_for; print(jobs_for(0), jobs_for(3))"
    )
    out = subprocess.run([sys.executable, "-c", bound], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "3"]
    assert jobs_for(0) == len(os.sched_getaffinity(0))


def test_a_fresh_worker_leaves_ctrl_c_to_the_command_from_its_fork() -> None:
    """Ctrl-C reaches every process of the command, which stops its workers itself; a
    worker forked from the server ignores it before any code of its own has run (a
    local Dask cluster's worker, interrupted while connecting, printed a traceback)."""
    import signal

    from pipeline.forkserver import worker_context

    with worker_context(fresh=True).Pool(1) as pool:
        assert pool.apply(signal.getsignal, (signal.SIGINT,)) == signal.SIG_IGN
