"""Inputs that change while they are read: a log still being written, a file cut short.

A load reads each input as it stood when it began: the bytes it hashed, and no
more.  Lines appended meanwhile are the next load's (a last line still being
written with them), and a file that ends sooner than it stood was cut short or
rewritten: the load stops saying so.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from warehouse_helpers import many_games

from pipeline.sources import InputChanged, iter_lines
from pipeline.warehouse.api import load
from pipeline.warehouse.load import LoadSummary, read_through

GAMES = many_games(2500, prefix="live")


def test_a_file_is_read_as_it_stood_and_a_line_being_written_is_left_for_the_next_read(
    tmp_path: Path,
) -> None:
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"\n".join(GAMES[:3]) + b"\n" + GAMES[3][:50])
    stood = log.stat().st_size
    assert [n for n, _ in iter_lines(str(log), stop=stood)] == [1, 2, 3, 4]  # the file's end: a last line
    with log.open("ab") as out:
        out.write(GAMES[3][50:] + b"\n" + GAMES[4] + b"\n")
    assert [n for n, _ in iter_lines(str(log), stop=stood)] == [1, 2, 3]  # still being written
    assert [line for _, line in iter_lines(str(log))] == GAMES[:5]
    assert read_through(str(log), str(log), stop=stood) == stood


def test_a_file_cut_short_while_it_is_read_is_an_error(tmp_path: Path) -> None:
    log = tmp_path / "cut.jsonl"
    log.write_bytes(b"\n".join(GAMES[:5]) + b"\n")
    stood = log.stat().st_size
    log.write_bytes(b"\n".join(GAMES[:2]) + b"\n")
    for read in (
        lambda: list(iter_lines(str(log), stop=stood)),
        lambda: read_through(str(log), str(log), stop=stood),
    ):
        with pytest.raises(InputChanged, match=f"{stood:,} bytes when the load began, [0-9,]+ now"):
            read()


def _grow_after_first_batch(log: Path, more: bytes) -> tuple[list[int], object]:
    """An ``on_batch`` that appends ``more`` to ``log`` once, after the first commit
    (the later chunks of the input are read after it)."""
    seen: list[int] = []

    def on_batch(summary: LoadSummary) -> None:
        if not seen:
            with log.open("ab") as out:
                out.write(more)
        seen.append(summary.batches)

    return seen, on_batch


def test_a_load_takes_a_growing_log_as_it_stood_and_the_next_load_the_rest(tmp_path: Path) -> None:
    log, db = tmp_path / "live.jsonl", tmp_path / "w.duckdb"
    log.write_bytes(b"\n".join(GAMES[:2000]) + b"\n" + GAMES[2000][:40])
    stood = log.stat().st_size
    more = GAMES[2000][40:] + b"\n" + b"\n".join(GAMES[2001:]) + b"\n"
    seen, on_batch = _grow_after_first_batch(log, more)
    first = load([str(log)], db, batch_size=100, on_batch=on_batch)  # type: ignore[arg-type]
    assert len(seen) > 1 and log.stat().st_size > stood
    assert (first.lines, first.games_loaded, first.quarantined) == (2000, 2000, 0)
    assert first.to_json()["files"][0]["bytes"] == stood
    second = load([str(log)], db)
    assert (second.lines, second.games_loaded, second.already_present, second.quarantined) == (
        2500,
        500,
        2000,
        0,
    )


def test_a_load_whose_input_is_cut_short_stops_saying_so_and_keeps_what_it_committed(tmp_path: Path) -> None:
    log, db = tmp_path / "cut.jsonl", tmp_path / "w.duckdb"
    log.write_bytes(b"\n".join(GAMES) + b"\n")
    stood = log.stat().st_size

    def cut(summary: LoadSummary) -> None:
        log.write_bytes(b"\n".join(GAMES[:10]) + b"\n")

    with pytest.raises(InputChanged, match=f"{stood:,} bytes when the load began"):
        load([str(log)], db, batch_size=100, on_batch=cut)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("select status from ingest_runs").fetchall() == [("aborted",)]
        assert 0 < con.execute("select count(*) from games").fetchall()[0][0] < len(GAMES)
    finally:
        con.close()
