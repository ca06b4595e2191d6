"""The progress bar: on stderr when it is a terminal, never in pipes or with --json."""

from __future__ import annotations

import os
import pty
import subprocess
import threading
from pathlib import Path

import pytest
from cli import TRICKLOG, run

from pipeline.games.euchre.simulate import write_simulation


def run_on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run tricklog with stderr on a pseudo-terminal; returns (exit code, stdout, terminal text)."""
    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    proc = subprocess.run([*TRICKLOG, *args], stdout=subprocess.PIPE, stderr=slave, timeout=300, check=False)
    os.close(slave)
    reader.join(timeout=10)
    os.close(master)
    return proc.returncode, proc.stdout.decode(), b"".join(chunks).decode(errors="replace")


def test_load_draws_a_bar_over_the_input_bytes_on_a_terminal(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    write_simulation(games, 600, seed=5, preset="mixed")
    code, stdout, terminal = run_on_a_terminal("load", str(games), "--db", str(tmp_path / "w.duckdb"))
    assert code == 0
    assert "600 lines = 600 games loaded" in stdout
    assert "lines" in terminal and "MB" in terminal and "━" in terminal


def test_a_dask_load_draws_a_bar_over_the_splits_routed(tmp_path: Path) -> None:
    """The workers read the input: the bar counts the lines and bytes of each split
    the command routes, up to every line."""
    pytest.importorskip("distributed")
    games = tmp_path / "games.jsonl"
    write_simulation(games, 600, seed=5, preset="mixed")
    dataset = tmp_path / "dataset"
    args = ("load", str(games), "--engine", "dask", "--jobs", "1", "--db", str(dataset))
    code, stdout, terminal = run_on_a_terminal(*args)
    assert code == 0, stdout
    assert "600 lines" in terminal and "MB" in terminal and "━" in terminal


def test_no_progress_in_pipes_or_with_json(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    write_simulation(games, 300, seed=6, preset="mixed")
    piped = run("load", str(games), "--db", str(tmp_path / "w.duckdb"))
    assert piped.returncode == 0 and piped.stderr == ""
    code, stdout, terminal = run_on_a_terminal("validate", str(games), "--json")
    assert code == 0 and terminal == ""
    assert '"games": 300' in stdout
