"""Hostile or careless inputs: truncated compressed files, BOMs, pipes, folders
with odd entries.  Every case ends in a clear refusal or a clean account."""

from __future__ import annotations

import gzip
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
