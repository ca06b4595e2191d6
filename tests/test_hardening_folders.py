"""``export --parquet DIR`` and ``report --out DIR``: a user's files are never
deleted, and a failed, killed or concurrent run never leaves a mix of old and
new files or a truncated one."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import duckdb
import pytest
from cli import TRICKLOG
from test_hardening_errors import one_line_error, run_limited
from warehouse_helpers import TABLES, corrupt_lines, many_games, run_cli

from pipeline.warehouse.api import load


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wh")
    source = folder / "games.jsonl"
    source.write_bytes(b"\n".join([*many_games(600), *corrupt_lines(), b"[1]"]) + b"\n")
    load([str(source)], folder / "w.duckdb")
    return folder / "w.duckdb"


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones too) with its SHA-256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def exported_counts(folder: Path) -> dict[str, int]:
    con = duckdb.connect()
    try:
        return {
            t: con.execute(
                f"select count(*) from read_parquet('{folder}/{t.replace('.', '/')}/**/*.parquet')"
            ).fetchone()[0]  # type: ignore[index]
            for t in TABLES
        }
    finally:
        con.close()


def db_counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES}  # type: ignore[index]
    finally:
        con.close()


def test_export_never_deletes_a_users_folder(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "data"
    (out / "games").mkdir(parents=True)
    (out / "games" / "raw-2026.jsonl").write_text("my raw logs\n")
    before = snapshot(out)
    proc = run_cli("export", "--db", str(db), "--parquet", str(out))
    assert "did not write" in one_line_error(proc)
    assert snapshot(out) == before


def test_export_replaces_its_own_earlier_export_whole(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    for _ in range(2):
        proc = run_cli("export", "--db", str(db), "--parquet", str(out))
        assert proc.returncode == 0, proc.stderr
        (out / "games" / "part-99.parquet").write_bytes(b"stale")  # would be read as a part
    proc = run_cli("export", "--db", str(db), "--parquet", str(out))
    assert proc.returncode == 0, proc.stderr
    assert not (out / "games" / "part-99.parquet").exists()
    assert exported_counts(out) == db_counts(db)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parquet"]  # nothing left beside it
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("export", "--db", str(db), "--parquet", str(empty)).returncode == 0


def test_a_failed_export_leaves_the_earlier_one_whole(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    assert run_cli("export", "--db", str(db), "--parquet", str(out)).returncode == 0
    before = snapshot(out)
    proc = run_limited("export", "--db", str(db), "--parquet", str(out), max_file_bytes=20_000)
    assert "cannot write" in one_line_error(proc)
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parquet"]


def test_a_killed_export_leaves_no_mix_and_its_leftovers_go(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    assert run_cli("export", "--db", str(db), "--parquet", str(out)).returncode == 0
    before = snapshot(out)
    # what a run killed half way leaves: its folder beside the target, named with its (dead) PID
    dead = tmp_path / ".parquet.tmp-999999999-abc"
    (dead / "games").mkdir(parents=True)
    (dead / "games" / "part-0.parquet").write_bytes(b"PAR1 truncated")
    assert snapshot(out) == before  # the target itself was never touched
    assert run_cli("export", "--db", str(db), "--parquet", str(out)).returncode == 0
    assert not dead.exists()
    assert exported_counts(out) == db_counts(db)


def test_concurrent_exports_end_whole(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    procs = [
        subprocess.Popen(
            [*TRICKLOG, "export", "--db", str(db), "--parquet", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [(p.wait(timeout=600), p.stderr.read() if p.stderr else "") for p in procs]
    for code, stderr in results:
        assert code == 0 or (code == 2 and len(stderr.strip().splitlines()) == 1), stderr
    assert any(code == 0 for code, _ in results)
    assert exported_counts(out) == db_counts(db)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parquet"]


def test_report_keeps_the_users_files_and_leaves_nothing_aside(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "notes"
    out.mkdir()
    (out / "my-notes.txt").write_text("keep me\n")
    (out / "games").mkdir()
    (out / "games" / "raw.jsonl").write_text("mine\n")
    proc = run_cli("report", "--db", str(db), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "my-notes.txt").read_text() == "keep me\n"
    assert (out / "games" / "raw.jsonl").read_text() == "mine\n"
    assert (out / "report.html").is_file() and (out / "summary.json").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_a_failed_report_leaves_the_earlier_one_whole(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert run_cli("report", "--db", str(db), "--out", str(out)).returncode == 0
    (out / "my-notes.txt").write_text("keep me\n")
    before = snapshot(out)
    proc = run_limited("report", "--db", str(db), "--out", str(out), max_file_bytes=3000)
    one_line_error(proc)
    assert snapshot(out) == before


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_command_run_in_a_folder_of_python_files_imports_none_of_them(tmp_path: Path, engine: str) -> None:
    """The server the workers are forked from is started as ``python -c``, which put
    the current folder first on its import path: run where a ``pipeline`` package
    or a ``polars.py`` lay, a load's workers imported them (and failed to start,
    blamed on their memory).  Now nothing of the current folder is imported."""
    if engine == "dask":
        pytest.importorskip("distributed")
    folder = tmp_path / "project"
    marker = tmp_path / "imported"
    planted = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    (folder / "pipeline").mkdir(parents=True)
    (folder / "pipeline" / "__init__.py").write_text(planted)
    (folder / "polars.py").write_text(planted)
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join(many_games(4500)) + b"\n")  # chunks enough for workers
    out = tmp_path / ("w.duckdb" if engine == "local" else "dataset")
    result = run_cli("load", str(source), "--db", str(out), "--engine", engine, "--jobs", "2", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert "4500 games loaded" in result.stdout
    assert not marker.exists(), marker.read_text()


def test_a_folder_s_compressed_files_of_another_format_are_read(tmp_path: Path) -> None:
    """An .egn.gz or a TarotClub .json.zst given by name is read; in a folder it was
    skipped without a word (10 of 12 files read)."""
    import gzip

    import orjson
    import zstandard

    fixtures = Path(__file__).parent / "fixtures"
    folder = tmp_path / "in"
    folder.mkdir()
    egn = (fixtures / "egn" / "standard.egn").read_bytes()
    (folder / "a.egn").write_bytes(egn)
    (folder / "b.egn.gz").write_bytes(gzip.compress(egn.replace(b'"std-1"', b'"std-2"')))
    deal = (fixtures / "tarot" / "tarotclub-handle.json").read_bytes()
    (folder / "c.json.zst").write_bytes(zstandard.ZstdCompressor().compress(deal))
    for fmt, games in (("egn", 2), ("tarotclub", 1), ("auto", 2)):
        proc = run_cli("validate", str(folder), "--from", fmt, "--json")
        assert proc.returncode in (0, 1), proc.stderr
        assert orjson.loads(proc.stdout)["games"] == games, fmt
