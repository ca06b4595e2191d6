"""Hostile or careless inputs: truncated compressed files, BOMs, pipes, folders
with odd entries.  Every case ends in a clear refusal or a clean account."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest
import zstandard
from warehouse_helpers import counts, many_games, run_cli

GAMES = many_games(400, prefix="trunc")
DATA = b"\n".join(GAMES) + b"\n"


def _packed(suffix: str) -> bytes:
    if suffix == ".gz":
        return gzip.compress(DATA)
    return zstandard.ZstdCompressor(write_checksum=True).compress(DATA)


def _one_line_error(proc: object) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)  # type: ignore[attr-defined]
    stderr: str = proc.stderr  # type: ignore[attr-defined]
    assert stderr.startswith("tricklog: ") and "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    return stderr


@pytest.mark.parametrize("cut", [0.5, -1, -5])
def test_truncated_zst_and_gz_are_the_same_error(tmp_path: Path, cut: float) -> None:
    messages = []
    for suffix in (".gz", ".zst"):
        packed = _packed(suffix)
        end = int(len(packed) * cut) if isinstance(cut, float) else len(packed) + int(cut)
        path = tmp_path / f"games.jsonl{suffix}"
        path.write_bytes(packed[:end])
        for command in (["validate", str(path)], ["load", str(path), "--db", str(tmp_path / "w.duckdb")]):
            stderr = _one_line_error(run_cli(*command))
            messages.append(stderr.replace(str(path), "FILE"))
        stderr = _one_line_error(run_cli("convert", str(path), "-o", str(tmp_path / "out.jsonl")))
        messages.append(stderr.replace(str(path), "FILE"))
    assert len(set(messages)) == 1, messages
    assert "ended before the end-of-stream marker" in messages[0]


def test_complete_zst_of_several_frames_reads_whole(tmp_path: Path) -> None:
    half = len(GAMES) // 2
    first = zstandard.ZstdCompressor().compress(b"\n".join(GAMES[:half]) + b"\n")
    second = zstandard.ZstdCompressor(write_content_size=False, write_checksum=True).compress(
        b"\n".join(GAMES[half:]) + b"\n"
    )
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"12345"
    path = tmp_path / "games.jsonl.zst"
    path.write_bytes(first + skippable + second)
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(path), "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert counts(db)["games"] == len(GAMES)


def only_copies(proc: subprocess.CompletedProcess[str]) -> bool:
    """``validate --json`` found nothing but copies: DATA is the fixture games again and
    again under new ids, which validate reports as copies (duplicate_game)."""
    summary = json.loads(proc.stdout)
    return proc.returncode == 1 and set(summary["by_code"]) == {"duplicate_game"}


BOM = b"\xef\xbb\xbf"
EGN = Path(__file__).parent / "fixtures" / "egn" / "standard.egn"


def test_a_byte_order_mark_is_accepted_and_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM + DATA)
    proc = run_cli("validate", str(path), "--json")
    assert only_copies(proc), proc.stdout
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(path), "--db", str(db))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert counts(db)["games"] == len(GAMES) and counts(db)["quarantine"] == 0
    egn = tmp_path / "bom.egn"
    egn.write_bytes(BOM + EGN.read_bytes())
    plain, marked = run_cli("validate", str(EGN), "--json"), run_cli("validate", str(egn), "--json")
    assert plain.returncode == marked.returncode and plain.stdout == marked.stdout


def test_a_folder_says_what_it_skips(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(DATA)
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "notes.txt").write_text("not an input, by its name")
    proc = run_cli("validate", str(folder), "--json")
    assert only_copies(proc)
    warnings = [line for line in proc.stderr.splitlines() if line]
    assert len(warnings) == 2, proc.stderr
    assert any("gone.jsonl" in w and "dangling symlink" in w for w in warnings)
    assert any("pipe.jsonl" in w and "FIFO" in w for w in warnings)
    assert all(w.startswith("tricklog: warning: ") for w in warnings)
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(folder), "--db", str(db))
    assert proc.returncode == 0 and "gone.jsonl" in proc.stderr and "pipe.jsonl" in proc.stderr
    assert counts(db)["games"] == len(GAMES)
