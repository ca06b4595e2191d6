"""``tricklog sql -o``: an output that is the warehouse (or its WAL), however
spelled, is refused before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
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
