"""Failures outside tricklog's control -- a full disk, a folder it cannot write, a
result CSV cannot hold -- end in one line on stderr and exit 2, never a traceback,
and never leave half an output file behind."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli import TRICKLOG, files_capped_at
from warehouse_helpers import corrupt_lines, many_games, run_cli, valid_lines

from pipeline.warehouse.api import load


def run_limited(
    *args: str,
    max_file_bytes: int,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run tricklog with files capped at ``max_file_bytes`` (:func:`files_capped_at`)."""
    return subprocess.run(
        [*TRICKLOG, *args],
        capture_output=True,
        text=True,
        preexec_fn=files_capped_at(max_file_bytes),
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.stdout[-500:], proc.stderr[-2000:])
    assert proc.stderr.startswith("tricklog: ") and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc.stderr


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("in") / "big.jsonl"
    path.write_bytes(b"\n".join([*many_games(3000), *corrupt_lines(), b"[1]"]) + b"\n")
    return path


@pytest.mark.parametrize("cap", [100_000, 3_000_000])
def test_load_on_a_full_disk(tmp_path: Path, big: Path, cap: int) -> None:
    """The database's writes fail (one process: no worker writes its rows to a file first)."""
    db = tmp_path / "w.duckdb"
    proc = run_limited(
        "load", str(big), "--db", str(db), "--batch-size", "500", "--jobs", "1", max_file_bytes=cap
    )
    assert "cannot write" in one_line_error(proc)
    # what was committed is whole, and the same load completes it
    proc = run_cli("load", str(big), "--db", str(db))
    assert proc.returncode == 1, proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        lines, games, present, quarantined = con.execute(
            "select lines, games_loaded, already_present, quarantined from ingest_runs order by run_id desc limit 1"
        ).fetchone()  # type: ignore[misc]
        assert lines == games + present + quarantined
        assert con.execute("select count(*) from games").fetchone()[0] == 3000 + len(corrupt_lines())  # type: ignore[index]
    finally:
        con.close()


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder of a short path, for TMPDIR: the fork server's socket goes
    there too (a socket's path is at most 107 bytes; a test's own folder can be longer)."""
    folder = Path(tempfile.mkdtemp(prefix="tl-"))
    yield folder
    shutil.rmtree(folder)


def test_load_without_room_for_the_workers_rows(tmp_path: Path, big: Path, short_tmp: Path) -> None:
    """Workers leave each chunk's rows in a file of the temporary folder (some 10 MB
    here): when it cannot be written, the load says where and what to do, leaves no
    file behind, and the same load completes once there is room."""
    tmp = short_tmp
    db = tmp_path / "w.duckdb"
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = run_limited("load", str(big), "--db", str(db), "--jobs", "2", max_file_bytes=3_000_000, env=env)
    error = one_line_error(proc)
    assert f"cannot keep the rows the workers built in {tmp}" in error and "File too large" in error
    assert "point TMPDIR at a folder with room" in error
    assert list(tmp.iterdir()) == []
    proc = run_limited(
        "load", str(big), "--db", str(db), "--jobs", "2", max_file_bytes=resource.RLIM_INFINITY, env=env
    )
    assert proc.returncode == 1, proc.stderr
    assert list(tmp.iterdir()) == []
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("select count(*) from games").fetchone()[0] == 3000 + len(corrupt_lines())  # type: ignore[index]
    finally:
        con.close()


def test_a_killed_loads_spool_is_removed_by_the_next(big: Path, tmp_path: Path, short_tmp: Path) -> None:
    """A load's temporary files (its workers' rows) are in a folder of its own,
    ``tricklog-load-PID-*`` in TMPDIR: killed, the load leaves it; the next load
    removes it, and only folders of tricklog's whose process is gone."""
    tmp = short_tmp
    env = {**os.environ, "TMPDIR": str(tmp)}
    command = [*TRICKLOG, "load", str(big), "--db", str(tmp_path / "w.duckdb"), "--jobs", "2"]
    killed = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not list(tmp.glob("tricklog-load-*/rows/rows-*.arrows")) and killed.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(killed.pid, signal.SIGKILL)  # the load, its fork server and its workers
    killed.wait()
    (left,) = tmp.glob(f"tricklog-load-{killed.pid}-*")
    running = tmp / f"tricklog-load-{os.getpid()}-abcd1234"  # this process's: alive
    other = tmp / "tricklog-load-abcd1234"  # no process named: not ours to judge
    running.mkdir()
    other.mkdir()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert not left.exists()
    # (the killed load's multiprocessing left its own folder, pymp-*: Python's, not ours)
    assert sorted(tmp.glob("tricklog-*")) == sorted([running, other])


def test_a_temporary_folder_too_long_for_a_socket(tmp_path: Path, big: Path) -> None:
    """The fork server's socket goes in the temporary folder, and a socket's path is
    at most 107 bytes: under a long ``TMPDIR`` the load's workers did not start
    ("AF_UNIX path too long", exit 2). Its folder now goes to /tmp; the rest stays."""
    tmp = tmp_path / ("t" * 80)
    tmp.mkdir()
    db = tmp_path / "w.duckdb"
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.run(
        [*TRICKLOG, "load", str(big), "--db", str(db), "--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["games_loaded"] == 3000 + len(corrupt_lines())
    assert list(tmp.iterdir()) == []


def test_load_on_a_full_disk_ends_without_the_fast_path(tmp_path: Path, big: Path) -> None:
    """The replay's pool of workers (the kernels failed to compile, said by their
    marker) is closed as the command's interpreter exits, the failed load's
    traceback holding it until then: the command left the fork server to it.  It
    hung when the command stopped the server first (the pool's handler waited for
    a worker from the server), on every such run; it ends in seconds."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    code = "from pipeline.games import installed; from pipeline.kernels import _marker; print(_marker(installed()[0]))"
    marker = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    Path(marker).with_suffix(".failed").write_text("not compiled, for this test\n")
    db = tmp_path / "w.duckdb"
    proc = run_limited(
        "load",
        str(big),
        "--db",
        str(db),
        "--batch-size",
        "500",
        max_file_bytes=3_000_000,
        env=env,
        timeout=120,
    )
    # the first chunk's rows do not fit their file, before anything is committed
    assert "cannot keep the rows the workers built" in one_line_error(proc)


def test_a_dask_load_on_a_full_disk_keeps_the_data_set_there_and_leaves_nothing(
    tmp_path: Path, big: Path, short_tmp: Path
) -> None:
    """A worker's part that cannot be written ends the load in one line naming the
    data set, not Arrow's message; the data set there before is kept, and no
    staging folder is left beside it: the workers stop before it is removed (a
    task still running made its folders again, and wrote in them)."""
    pytest.importorskip("distributed")
    from pipeline.warehouse.dask_engine import _new_part

    target = tmp_path / "dataset"
    env = {**os.environ, "TMPDIR": str(short_tmp)}
    command = ("load", str(big), "--engine", "dask", "--jobs", "2", "--db", str(target))
    first = run_limited(*command, "--json", max_file_bytes=resource.RLIM_INFINITY, env=env)
    assert first.returncode == 1, first.stderr
    before = sorted((p.relative_to(target), p.read_bytes()) for p in target.rglob("*") if p.is_file())
    proc = run_limited(*command, max_file_bytes=20_000, env=env)
    assert (
        one_line_error(proc)
        == f"tricklog: {target}: cannot write: File too large; nothing of this load is kept\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["dataset"]
    assert sorted((p.relative_to(target), p.read_bytes()) for p in target.rglob("*") if p.is_file()) == before
    with pytest.raises(FileNotFoundError):
        _new_part(str(tmp_path / "gone"), "euchre.plays", 0)
    assert not (tmp_path / "gone").exists()


def test_validate_violations_on_a_full_disk(tmp_path: Path, big: Path) -> None:
    out = tmp_path / "v.jsonl"
    proc = run_limited("validate", str(big), "--violations", str(out), max_file_bytes=2000)
    assert str(out) in one_line_error(proc)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_convert_on_a_full_disk(tmp_path: Path, big: Path) -> None:
    out = tmp_path / "c.jsonl"
    out.write_bytes(b"earlier output\n")
    proc = run_limited("convert", str(big), "-o", str(out), max_file_bytes=100_000)
    assert str(out) in one_line_error(proc)
    assert out.read_bytes() == b"earlier output\n"  # untouched: never half a file
    assert [p.name for p in tmp_path.iterdir()] == ["c.jsonl"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wh")
    source = folder / "games.jsonl"
    source.write_bytes(b"\n".join([*valid_lines(), b"\xff not json", b"[1]"]) + b"\n")
    load([str(source)], folder / "w.duckdb")
    return folder / "w.duckdb"


def test_sql_output_on_a_full_disk(tmp_path: Path, db: Path) -> None:
    for fmt in ("csv", "json", "parquet", "table"):
        out = tmp_path / f"r.{fmt}"
        proc = run_limited(
            "sql",
            "select * from games, range(50)",
            "--db",
            str(db),
            "-f",
            fmt,
            "-o",
            str(out),
            max_file_bytes=5000,
        )
        assert str(out) in one_line_error(proc)
        assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [
        ["sql", "select * from games", "-f", "json"],
        ["sql", "select * from games", "-f", "csv"],
        ["sql", "select * from games"],
        ["validate", "{source}"],
        ["validate", "{source}", "--json"],
        ["load", "{source}", "--db", "{folder}/other.duckdb"],
    ],
)
def test_stdout_on_a_full_device(db: Path, command: list[str]) -> None:
    args = [a.format(source=db.parent / "games.jsonl", folder=db.parent) for a in command]
    if args[0] == "sql":
        args += ["--db", str(db)]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*TRICKLOG, *args], stdout=full, stderr=subprocess.PIPE, text=True, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("tricklog: ") and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "No space left on device" in proc.stderr


def test_a_blob_column_as_csv(db: Path) -> None:
    proc = run_cli("sql", "select raw, code from quarantine order by line", "--db", str(db), "-f", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["raw,code", "\\xff not json,malformed_json", "[1],malformed_json"]
    nested = run_cli(
        "sql", "select [raw] as raws, {'r': raw} as s from quarantine", "--db", str(db), "-f", "csv"
    )
    assert nested.returncode == 0, nested.stderr


def _loaded(folder: Path) -> Path:
    source = folder / "games.jsonl"
    source.write_bytes(b"\n".join(valid_lines()) + b"\n")
    db = folder / "w.duckdb"
    load([str(source)], db)
    more = folder / "more.jsonl"
    more.write_bytes(b"\n".join(many_games(20, prefix="more")) + b"\n")
    return db


def test_a_database_beside_which_nothing_can_be_written(tmp_path: Path) -> None:
    """The WAL cannot be created (its name leads nowhere), as in a folder without write access."""
    db = _loaded(tmp_path)
    (tmp_path / "w.duckdb.wal").symlink_to(tmp_path / "no-such-folder" / "wal")
    proc = run_cli("load", str(tmp_path / "more.jsonl"), "--db", str(db))
    assert "cannot write" in one_line_error(proc)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_a_database_in_a_folder_without_write_access(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = _loaded(folder)
    folder.chmod(0o555)
    try:
        proc = run_cli("load", str(folder / "more.jsonl"), "--db", str(db))
        assert "cannot write" in one_line_error(proc)
    finally:
        folder.chmod(0o755)


def _kill_a_worker(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``command`` and kill one of its worker processes once it is at work, as
    the system does to a process when memory runs out; what the command then did."""
    return _at_work(command, lambda _, workers: workers[-1].kill(), env)


def _at_work(
    command: list[str], act: Callable[[int, list[Any]], None], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (its own process group), ``act(its pid, its workers)`` once
    they are at work (two are up, and the last has taken some CPU time), and
    what the command then did."""
    import psutil

    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    main = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    workers: list[psutil.Process] = []
    while len(workers) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, (
            "the command ended before its workers started"
        )
        time.sleep(0.01)
        with contextlib.suppress(psutil.Error):
            workers = [p for p in main.children(recursive=True) if _is_worker(p, main)]
            if workers and sum(workers[-1].cpu_times()[:2]) < 0.05:
                workers = []
    act(proc.pid, workers)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the command waited for ever") from None
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def _is_worker(process: Any, main: Any) -> bool:
    """A pool's worker: forked from the command, or from its fork server (not the
    server itself, nor multiprocessing's resource tracker)."""
    line = " ".join(process.cmdline())
    if "resource_tracker" in line:
        return False
    return process.ppid() != main.pid or "forkserver" not in line


@pytest.mark.parametrize("command", ["validate", "load"])
def test_a_worker_killed_ends_the_command_with_one_line(command: str, big: Path, tmp_path: Path) -> None:
    """A worker killed mid-run (the system's out-of-memory killer): the command ends,
    exit 2 and one line, where it waited for the lost chunk for ever; a load keeps
    what it committed, marks its run aborted, and the same load completes it."""
    db = tmp_path / "w.duckdb"
    args = [*TRICKLOG, command, str(big), "--jobs", "2", *(["--db", str(db)] if command == "load" else [])]
    error = one_line_error(_kill_a_worker(args))
    assert error.startswith("tricklog: a worker process ended before its work was done"), error
    if command == "validate":
        return
    assert "what this load committed is kept" in error
    _the_same_load_completes_it(args, db, big)


def test_a_worker_killed_by_another_signal_is_named_with_it(big: Path) -> None:
    """A worker killed by a signal other than the system's SIGKILL is not said to have
    run out of memory: the signal is named."""
    args = [*TRICKLOG, "validate", str(big), "--jobs", "2"]
    error = one_line_error(_at_work(args, lambda _, workers: workers[-1].send_signal(signal.SIGSEGV)))
    assert "(killed by SIGSEGV); run the command again\n" in error, error
    assert "memory" not in error


def test_workers_that_fail_to_start_are_said_to_have_failed_not_to_lack_memory(
    big: Path, tmp_path: Path
) -> None:
    """A script calling the API on several processes without ``if __name__ ==
    "__main__"``: each worker, started afresh, runs the script again and fails with
    Python's error.  The load says a worker failed and that its error is printed,
    not that memory ran out."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import sys\nfrom pipeline.warehouse.api import load\nload([sys.argv[1]], sys.argv[2], jobs=2)\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script), str(big), str(tmp_path / "w.duckdb")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "pipeline.parallel.WorkerLost: a worker process ended before its work was done "
        "(it failed, exit code 1: its error is above) (what this load committed is kept"
    ), proc.stderr[-3000:]
    assert "An attempt has been made to start a new process" in proc.stderr  # Python's error, above


def _the_same_load_completes_it(args: list[str], db: Path, big: Path) -> None:
    """After a load stopped part way (its run aborted), the same load run again
    completes it: every game of ``big`` once, its accounting exact."""
    proc = run_cli(*args[len(TRICKLOG) :])
    assert proc.returncode == 1, proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = con.execute("select status from ingest_runs order by run_id").fetchall()
        lines, games, present, quarantined = con.execute(
            "select lines, games_loaded, already_present, quarantined from ingest_runs order by run_id desc limit 1"
        ).fetchone()  # type: ignore[misc]
        assert runs == [("aborted",), ("complete",)]
        assert lines == games + present + quarantined == big.read_bytes().count(b"\n")
        assert con.execute("select count(*) from games").fetchone()[0] == 3000 + len(corrupt_lines())  # type: ignore[index]
    finally:
        con.close()


@pytest.mark.parametrize("command", ["validate", "load", "dask", "simulate"])
def test_kill_ends_the_command_and_its_workers_as_ctrl_c_does(
    command: str, big: Path, tmp_path: Path
) -> None:
    """``kill`` (SIGTERM, to the command alone, as a scheduler's time limit sends it):
    exit 143 with one line, no worker left, and what the command was writing is
    gone (a load's run is aborted and the same load completes it).  A killed
    ``simulate`` had left its workers running and its temporary file (9 GB), and
    exited 130 without a word like a Ctrl-C."""
    import psutil

    (tmp_path / "earlier.txt").write_text("not the command's\n")
    args = _command(command, big, tmp_path)
    left: list[Any] = []

    def kill(pid: int, workers: list[Any]) -> None:
        left.extend(psutil.Process(pid).children(recursive=True))
        os.kill(pid, signal.SIGTERM)

    proc = _at_work(args, kill)
    assert (proc.returncode, proc.stderr) == (143, "tricklog: terminated\n"), proc.stderr[-2000:]
    _all_end(left)  # the fork server ends once its last worker has
    if command == "load":
        _the_same_load_completes_it(args, tmp_path / "w.duckdb", big)
    else:
        assert [p.name for p in tmp_path.iterdir()] == ["earlier.txt"]


@pytest.mark.parametrize("command", ["load", "simulate"])
def test_kill_9_of_the_command_ends_its_workers(command: str, big: Path, tmp_path: Path) -> None:
    """The command killed outright (``kill -9``, or by the system out of memory): its
    workers and fork server end too.  They lived on, blocked sending results nobody
    would read, and held the command's output open: whatever read it waited for ever."""
    import psutil

    left: list[Any] = []

    def kill(pid: int, workers: list[Any]) -> None:
        left.extend(psutil.Process(pid).children(recursive=True))
        os.kill(pid, signal.SIGKILL)

    proc = _at_work(_command(command, big, tmp_path), kill)  # its output ends: no process holds it
    assert proc.returncode == -signal.SIGKILL
    assert len(left) >= 2
    _all_end(left)


def _all_end(processes: list[Any], seconds: float = 10) -> None:
    """Wait until none of ``processes`` runs (a zombie has ended); fail after ``seconds``."""
    import psutil

    def runs(process: Any) -> bool:
        try:
            return bool(process.is_running() and process.status() != psutil.STATUS_ZOMBIE)
        except psutil.NoSuchProcess:  # ended while asked
            return False

    deadline = time.monotonic() + seconds
    while running := [p.pid for p in processes if runs(p)]:
        assert time.monotonic() < deadline, f"still running: {running}"
        time.sleep(0.05)


def test_simulate_with_a_worker_killed_keeps_the_file_there_was(tmp_path: Path) -> None:
    """``simulate`` writes its file whole or not at all: a worker killed mid-run ends
    it with one line, and the file of an earlier run is there as it was, alone."""
    out = tmp_path / "games.jsonl"
    out.write_bytes(b"an earlier run's\n")
    error = one_line_error(_kill_a_worker([*TRICKLOG, "simulate", "--games", "20000", "--output", str(out)]))
    assert error.startswith("tricklog: a worker process ended before its work was done"), error
    assert "--jobs" not in error  # simulate has none
    assert out.read_bytes() == b"an earlier run's\n"
    assert [p.name for p in tmp_path.iterdir()] == ["games.jsonl"]


def _command(name: str, big: Path, tmp_path: Path) -> list[str]:
    """The command line of a command that works a while with workers (``simulate``
    would go on for ever: it plays its games a few chunks at a time)."""
    return {
        "validate": [*TRICKLOG, "validate", str(big), "--jobs", "2"],
        "load": [*TRICKLOG, "load", str(big), "--jobs", "2", "--db", str(tmp_path / "w.duckdb")],
        "dask": [
            *TRICKLOG,
            "load",
            str(big),
            "--engine",
            "dask",
            "--jobs",
            "2",
            "--db",
            str(tmp_path / "set"),
        ],
        "simulate": [
            *TRICKLOG,
            "simulate",
            "--games",
            "1000000000000000",
            "--output",
            str(tmp_path / "games.jsonl"),
        ],
    }[name]


@pytest.mark.parametrize("command", ["validate", "load", "dask"])
def test_ctrl_c_ends_the_command_and_its_workers_without_a_traceback(
    command: str, big: Path, tmp_path: Path
) -> None:
    """Ctrl-C reaches every process of the command (its process group): the command
    ends with 130, no traceback from it (DuckDB's "Query interrupted" included) nor
    from its workers (a local Dask cluster's too), none of which is left; a load's
    run is marked aborted, and the same load completes it; a Dask load leaves no
    data set.  It waited for ever, with a pool of workers."""
    import psutil

    args = _command(command, big, tmp_path)
    left: list[Any] = []

    def interrupt(pid: int, workers: list[Any]) -> None:
        left.extend(workers)
        os.killpg(pid, signal.SIGINT)

    proc = _at_work(args, interrupt)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and proc.stderr in ("", "tricklog: interrupted\n"), proc.stderr[
        -2000:
    ]
    assert not [w for w in left if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    if command == "dask":
        assert list(tmp_path.iterdir()) == []
    if command == "load":
        _the_same_load_completes_it(args, tmp_path / "w.duckdb", big)
