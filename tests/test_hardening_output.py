"""``tricklog sql -o``: an output that is the warehouse (or its WAL), however
spelled, is refused before anything is written; so is an output of
``validate --violations`` or ``convert -o`` that is one of the inputs, and a
load whose input is its own warehouse.  A stdout the caller closed, or a
stderr that cannot be written, ends a command with exit 2, not a traceback
or a silent success."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson
import pytest
from cli import TRICKLOG
from warehouse_helpers import assert_refused, counts, run_cli, small_warehouse, valid_lines


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_warehouse(tmp_path_factory.mktemp("wh"))


def _spellings(db: Path) -> list[str]:
    link = db.parent / "link.duckdb"
    if not link.exists():
        link.symlink_to(db)
    return [
        str(db),
        str(db.parent / "." / db.name),
        str(db.parent / ".." / db.parent.name / db.name),
        str(link),
        str(db) + ".wal",
        os.path.relpath(db),
    ]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json", "table"])
def test_output_onto_the_warehouse_is_refused(db: Path, fmt: str) -> None:
    before = db.read_bytes()
    for out in _spellings(db):
        proc = run_cli("sql", "select 1 as x", "--db", str(db), "-f", fmt, "-o", out)
        assert_refused(proc)
        assert "the warehouse" in proc.stderr
    assert db.read_bytes() == before
    assert counts(db)["games"] == len(valid_lines())
    assert not Path(str(db) + ".wal").exists()


def test_output_onto_the_warehouse_through_a_hard_link_is_refused(db: Path, tmp_path: Path) -> None:
    hard = tmp_path / "hard.duckdb"
    os.link(db, hard)
    proc = run_cli("sql", "select 1 as x", "--db", str(db), "-f", "csv", "-o", str(hard))
    assert_refused(proc)
    assert counts(db)["games"] == len(valid_lines())


def test_output_beside_the_warehouse_is_fine(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "result.csv"
    proc = run_cli("sql", "select 1 as x", "--db", str(db), "-f", "csv", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().splitlines() == ["x", "1"]


def test_an_output_that_is_a_stream_is_written_in_place(db: Path, tmp_path: Path) -> None:
    """An output renamed into place once whole replaced a FIFO by a file (its reader
    got nothing) and, as root, ``/dev/stdout`` itself by a file; now a FIFO, a
    device or the command's own stdout is written where it stands (what a shell
    wrote before it kept), a link to a file stays a link, and Parquet, which is
    written to a file, is refused on a stream."""
    import shlex
    import subprocess
    import threading

    from cli import TRICKLOG

    query = ["sql", "select 42 as answer", "--db", str(db), "-f", "csv", "-o"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    proc = run_cli(*query, str(fifo))
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert got == [b"answer\n42\n"] and fifo.is_fifo()
    # the command's own stdout by a name of its own, as /dev/stdout is on Linux (a
    # link here, so that a regression replaces the link, not the machine's /dev/stdout)
    stdout = tmp_path / "stdout"
    stdout.symlink_to("/proc/self/fd/1")
    proc = run_cli(*query, str(stdout))
    assert (proc.returncode, proc.stdout) == (0, "answer\n42\n"), proc.stderr
    shell = f"echo before; {shlex.join([*TRICKLOG, *query, str(stdout)])}; echo after"
    with (tmp_path / "log.txt").open("wb") as log:
        subprocess.run(["sh", "-c", shell], stdout=log, check=True)
    assert (tmp_path / "log.txt").read_text() == "before\nanswer\n42\nafter\n"
    assert stdout.is_symlink()
    (tmp_path / "link.csv").symlink_to(tmp_path / "log.txt")
    assert run_cli(*query, str(tmp_path / "link.csv")).returncode == 0
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "log.txt").read_text() == "answer\n42\n"
    refused = run_cli("sql", "select 1 as x", "--db", str(db), "-f", "parquet", "-o", str(stdout))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"{stdout}: not a file (a pipe, a FIFO or a device)" in refused.stderr


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_reader_that_stops_early_ends_the_output_quietly(db: Path, fmt: str) -> None:
    """``tricklog sql ... | head``: the closed pipe ends the command without a word,
    exit 0 (JSON written by polars once said "stdout: cannot write: Broken pipe",
    exit 2; CSV ended with click's 1, which means violations found, or 0 by timing)."""
    import subprocess

    from cli import TRICKLOG

    query = "select * from games, range(200)"  # a few MB: more than a pipe holds
    proc = subprocess.Popen(
        [*TRICKLOG, "sql", query, "--db", str(db), "-f", fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)
    proc.stdout.close()
    code = proc.wait(timeout=300)
    assert proc.stderr.read() == b""
    assert code == 0  # not 1, "violations found": click's exit for a closed pipe


@pytest.mark.parametrize(
    "command",
    [
        ("validate", "{input}", "--violations", "{out}"),
        ("convert", "{input}", "-o", "{out}"),
    ],
)
def test_an_output_onto_an_input_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    games = tmp_path / "games.jsonl"
    games.write_bytes(b"\n".join(valid_lines()) + b"\n")
    before = games.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(games)
    for out in (str(games), str(tmp_path / "." / games.name), str(link)):
        proc = run_cli(*(a.format(input=games, out=out) for a in command))
        assert_refused(proc)
        assert "is an input of this command" in proc.stderr
        assert games.read_bytes() == before


def test_a_load_of_its_own_warehouse_is_refused(db: Path) -> None:
    before = db.read_bytes()
    for given in _spellings(db):
        proc = run_cli("load", given, "--db", str(db))
        assert_refused(proc)
        assert "cannot be one of its inputs" in proc.stderr
    assert db.read_bytes() == before
    assert counts(db)["games"] == len(valid_lines())


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "{games}", "--json"),
        ("validate", "{games}"),
        ("load", "{games}", "--db", "{new}"),
        ("sql", "select 1 as x", "--db", "{db}"),
        ("sql", "select 1 as x", "--db", "{db}", "-f", "json"),
    ],
)
def test_a_closed_stdout_ends_the_command_with_exit_2(
    db: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    games = tmp_path / "games.jsonl"
    games.write_bytes(b"\n".join(valid_lines()) + b"\n")
    new = tmp_path / "new.duckdb"
    command = [a.format(games=games, db=db, new=new) for a in args]
    proc = subprocess.run(
        [*TRICKLOG, *command], stderr=subprocess.PIPE, text=True, timeout=600, preexec_fn=lambda: os.close(1)
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "tricklog: stdout: cannot write: Bad file descriptor"
    assert "Traceback" not in proc.stderr
    if new.exists():  # what a load wrote is whole: the descriptor was not the database's
        assert counts(new)["games"] == len(valid_lines())


def test_a_stderr_that_cannot_be_written_still_exits_2(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [*TRICKLOG, "validate", str(tmp_path / "nosuch.jsonl")], stderr=full, timeout=600
        )
    assert proc.returncode == 2
    closed = subprocess.run(
        [*TRICKLOG, "validate", str(tmp_path / "nosuch.jsonl")], timeout=600, preexec_fn=lambda: os.close(2)
    )
    assert closed.returncode == 2


def test_control_characters_from_the_logs_never_reach_the_terminal(tmp_path: Path) -> None:
    """A game id holding ESC sequences (retitling, recolouring the terminal) is
    shown escaped by validate and by sql's table, as control pictures on the
    report's page; csv and json stay exact."""
    record = orjson.loads(valid_lines()[0])
    record["game_id"] = "g\x1b]0;PWNED\x07\x1b[31mX"
    record["final_score"] = [0, 0]  # a violation, so that validate lists the game
    games = tmp_path / "esc.jsonl"
    games.write_bytes(orjson.dumps(record) + b"\n")
    shown = run_cli("validate", str(games))
    assert shown.returncode == 1
    assert "\x1b" not in shown.stdout and "\\x1b]0;PWNED\\x07\\x1b[31mX" in shown.stdout
    db = tmp_path / "w.duckdb"
    assert run_cli("load", str(games), "--db", str(db)).returncode == 1
    table = run_cli("sql", "select game_id from games", "--db", str(db))
    assert "\x1b" not in table.stdout and "\\x1b[31mX" in table.stdout
    exact = run_cli("sql", "select game_id from games", "--db", str(db), "-f", "json")
    assert orjson.loads(exact.stdout) == [{"game_id": record["game_id"]}]
    # the report's page shows each as its control picture (a browser shows no ESC or BEL)
    assert run_cli("report", "--db", str(db), "--out", str(tmp_path / "r")).returncode == 0
    page = (tmp_path / "r" / "report.html").read_text("utf-8")
    assert "\x1b" not in page and "\x07" not in page
    assert "g\u241b]0;PWNED\u2407\u241b[31mX" in page


@pytest.mark.parametrize(
    "command", [("validate", "-"), ("load", "-", "--db", "{db}"), ("convert", "-", "-o", "{out}")]
)
def test_a_closed_stdin_given_as_dash_is_a_read_error(tmp_path: Path, command: tuple[str, ...]) -> None:
    """``<&-``: Python left sys.stdin None, and reading ``-`` was a traceback."""
    args = [a.format(db=tmp_path / "w.duckdb", out=tmp_path / "out.jsonl") for a in command]
    proc = subprocess.run(
        [*TRICKLOG, *args], capture_output=True, text=True, timeout=600, preexec_fn=lambda: os.close(0)
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("tricklog: -: cannot read: ") and "Traceback" not in proc.stderr
    assert not (tmp_path / "w.duckdb").exists() and not (tmp_path / "out.jsonl").exists()
