"""tricklog load: every line accounted for, idempotent, one writer at a time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest
from warehouse_helpers import corrupt_lines, counts, run_cli, run_json, valid_lines

from pipeline.warehouse.api import Warehouse, load


def mixed_file(path: Path) -> dict[str, int]:
    """Valid games, corrupted games and every kind of bad line; the expected accounting."""
    valid, corrupt = valid_lines(), corrupt_lines()
    missing_hands = orjson.loads(valid[0])
    missing_hands["game_id"] = "no-hands"
    del missing_hands["hands"]
    bad = [
        b"\x00\x01garbage \xfe\xff bytes",
        b'{"format": "euchre/1", "game_id": "bad-utf8-\xff\xfe"}',
        valid[1][: len(valid[1]) // 2],  # truncated line
        b"[1, 2, 3]",  # a JSON array
        orjson.dumps(missing_hands),
    ]
    lines = valid + corrupt + bad + [b"", b"   "]  # blank lines are not counted
    path.write_bytes(b"\n".join(lines) + b"\n")
    return {
        "lines": len(valid) + len(corrupt) + len(bad),
        "games": len(valid) + len(corrupt),
        "bad": len(bad),
    }


def test_accounting_adds_up_twice(tmp_path: Path) -> None:
    source, db = tmp_path / "mixed.jsonl", tmp_path / "w.duckdb"
    expected = mixed_file(source)
    code, first = run_json("load", str(source), "--db", str(db))
    assert code == 1  # violations and quarantined lines were found
    assert first["lines"] == expected["lines"]
    assert (first["games_loaded"], first["quarantined"], first["already_present"]) == (
        expected["games"],
        expected["bad"],
        0,
    )
    assert first["violations"] > 0
    rows = counts(db)
    assert rows["games"] == expected["games"] and rows["quarantine"] == expected["bad"]
    assert rows["violations"] == first["violations"]

    code, second = run_json("load", str(source), "--db", str(db))
    assert code == 0
    assert second["lines"] == second["already_present"] == expected["lines"]
    assert second["games_loaded"] == second["quarantined"] == second["violations"] == 0
    assert counts(db) == rows

    with Warehouse.open(db) as wh:
        codes = dict(wh.sql("select code, count(*) as n from quarantine group by code").iter_rows())
        runs = wh.table("ingest_runs")
    assert codes == {"malformed_json": 4, "schema": 1}
    assert runs["status"].to_list() == ["complete", "complete"]
    assert runs["lines"].to_list() == [expected["lines"]] * 2


def test_quarantine_keeps_the_raw_line(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_bytes(b'{"a": 1}\n\xff\xfe not utf-8\n')
    summary = load([str(source)], tmp_path / "w.duckdb")
    assert (summary.lines, summary.quarantined) == (2, 2)
    with Warehouse.open(tmp_path / "w.duckdb") as wh:
        rows = wh.table("quarantine").sort("line")
    assert rows["raw"].to_list() == [b'{"a": 1}', b"\xff\xfe not utf-8"]
    assert rows["line"].to_list() == [1, 2]
    assert "not valid UTF-8" in rows["message"][1]


def test_same_games_in_another_file_add_nothing(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    (tmp_path / "a.jsonl").write_bytes(b"\n".join(valid_lines()))
    (tmp_path / "b.jsonl").write_bytes(b"\n".join(reversed(valid_lines())) + b"\n")
    first = load([str(tmp_path / "a.jsonl")], db)
    second = load([str(tmp_path / "b.jsonl")], db)
    assert first.games_loaded == second.already_present == len(valid_lines())
    assert second.games_loaded == second.quarantined == 0


def test_known_id_with_other_content_is_quarantined(tmp_path: Path) -> None:
    db, line = tmp_path / "w.duckdb", valid_lines()[0]
    changed = orjson.loads(line)
    changed["players"] = ["w", "x", "y", "z"]
    (tmp_path / "a.jsonl").write_bytes(line + b"\n" + line + b"\n" + orjson.dumps(changed) + b"\n")
    summary = load([str(tmp_path / "a.jsonl")], db)
    assert (summary.games_loaded, summary.already_present, summary.quarantined) == (1, 1, 1)
    with Warehouse.open(db) as wh:
        quarantined = wh.table("quarantine")
        violations = wh.sql("select code, line from violations where code = 'duplicate_game'")
    assert quarantined["code"].to_list() == ["duplicate_game"] and quarantined["line"].to_list() == [3]
    assert violations["line"].to_list() == [3]


def test_hands_table_marks_invalid_hands(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    (tmp_path / "c.jsonl").write_bytes(b"\n".join(corrupt_lines()))
    load([str(tmp_path / "c.jsonl")], db)
    with Warehouse.open(db) as wh:
        bad = wh.sql(
            "select count(*) as n from violations v join euchre.hands h on h.game_id = v.game_id "
            "and h.hand_no = v.hand join games g on g.game_id = v.game_id and g.line = v.line where h.valid"
        )
        unnamed = wh.sql(
            "select count(*) as n from euchre.hands h join games g using (game_id) where not h.valid and not exists "
            "(select 1 from violations v where v.game_id = h.game_id and v.hand = h.hand_no and v.line = g.line)"
        )
        per_game = wh.sql(
            "select g.violations = count(v.code) as same from games g "
            "left join violations v using (game_id) group by g.game_id, g.violations"
        )
    assert bad["n"][0] == 0 and unnamed["n"][0] == 0
    assert per_game["same"].all()


def test_clean_load_exits_zero(tmp_path: Path) -> None:
    source = tmp_path / "ok.jsonl"
    source.write_bytes(b"\n".join(valid_lines()))
    proc = run_cli("load", str(source), "--db", str(tmp_path / "w.duckdb"))
    assert proc.returncode == 0, proc.stderr
    assert "15 games loaded" in proc.stdout


def test_second_writer_gets_one_line_and_exit_2(tmp_path: Path) -> None:
    db, source = tmp_path / "w.duckdb", tmp_path / "ok.jsonl"
    source.write_bytes(valid_lines()[0])
    holder = duckdb.connect(str(db))  # this process holds the write lock
    try:
        proc = run_cli("load", str(source), "--db", str(db))
    finally:
        holder.close()
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "in use by another process" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_input_is_exit_2(tmp_path: Path) -> None:
    proc = run_cli("load", str(tmp_path / "nope.jsonl"), "--db", str(tmp_path / "w.duckdb"))
    assert proc.returncode == 2 and proc.stderr.startswith("tricklog: ")


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [("plays", "seat", 4), ("hands", "dealer", -1), ("bids", "call", "double")],
)
def test_pandera_rejects_out_of_range(table: str, column: str, value: object) -> None:
    from pandera.errors import SchemaError

    from pipeline.games.euchre.tables import MODELS

    frame = _one_valid_frame(table)
    dtype = frame.schema[column]
    with pytest.raises(SchemaError):
        MODELS[table].validate(frame.with_columns(pl.Series(column, [value], dtype=dtype)))


def test_pandera_rejects_wrong_type() -> None:
    from pandera.errors import SchemaError

    from pipeline.games.euchre.tables import MODELS

    frame = _one_valid_frame("plays")
    MODELS["plays"].validate(frame)
    with pytest.raises(SchemaError, match="Int8"):
        MODELS["plays"].validate(frame.with_columns(pl.col("seat").cast(pl.Int64)))


def _one_valid_frame(table: str) -> pl.DataFrame:
    from pipeline.games.euchre.plugin import GAME
    from pipeline.warehouse.ddl import table_models
    from pipeline.warehouse.tables import Batch, content_hash

    record = orjson.loads(valid_lines()[0])
    batch = Batch(run_id=1)
    replay = GAME.replay(record)
    batch.add_game(GAME, record, replay, ("f", 1), content_hash(record), replay.violations)
    return batch.frames(table_models())[f"euchre.{table}"].head(1)


def _rows(db: Path) -> dict[str, list[str]]:
    """Every table's rows (as text) but the run's bookkeeping, in a stable order."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            table: sorted(
                map(repr, con.execute(f"select columns(lambda c: c != 'run_id') from {table}").fetchall())
            )
            for table in ("games", "quarantine", "violations", "euchre.hands", "euchre.plays")
        }
    finally:
        con.close()


def test_a_load_that_reopens_its_database_between_batches_writes_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``REOPEN_EVERY`` batches a load closes the database and opens it again
    (DuckDB lets go of the row groups it described); the tables, the accounting
    and a second load's finding everything already present are as without."""
    import pipeline.warehouse.load as loading

    source = tmp_path / "mixed.jsonl"
    expected = mixed_file(source)
    whole = load([str(source)], tmp_path / "whole.duckdb")
    calls: list[int] = []
    reopened = loading.reopened

    def counted(db: str, run_id: int, wait: float = loading.REOPEN_WAIT) -> duckdb.DuckDBPyConnection:
        calls.append(run_id)
        return reopened(db, run_id, wait)

    monkeypatch.setattr(loading, "REOPEN_EVERY", 3)
    monkeypatch.setattr(loading, "reopened", counted)
    db = tmp_path / "w.duckdb"
    first = load([str(source)], db, batch_size=2)
    again = load([str(source)], db, batch_size=2)
    assert first.batches >= 9 and calls.count(1) == first.batches // 3
    assert first.lines == expected["lines"] and first.accounted
    keys = ("lines", "games_loaded", "quarantined", "already_present", "violations")
    assert [getattr(first, k) for k in keys] == [getattr(whole, k) for k in keys]
    assert (again.already_present, again.games_loaded, again.quarantined) == (expected["lines"], 0, 0)
    assert _rows(db) == _rows(tmp_path / "whole.duckdb")
    with Warehouse.open(db) as wh:
        assert wh.table("ingest_runs")["status"].to_list() == ["complete", "complete"]


def _holder(db: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process that opens the database to read and holds it ``seconds``."""
    code = "import duckdb, sys, time\ncon = duckdb.connect(sys.argv[1], read_only=True)\nprint('held', flush=True)\ntime.sleep(float(sys.argv[2]))\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_load_reopening_its_database_waits_for_a_reader_and_stops_for_a_writer(tmp_path: Path) -> None:
    """A reader that opened the database in the moment a load reopened it is waited
    for (up to ``wait``: then one line saying what was kept); another load that
    wrote to it meanwhile stops this one, whose known ids would be stale."""
    from pipeline.warehouse.ddl import WarehouseError, connect
    from pipeline.warehouse.load import _start_run, reopened

    db, source = tmp_path / "w.duckdb", tmp_path / "ok.jsonl"
    source.write_bytes(valid_lines()[0])
    load([str(source)], db)

    def running() -> int:
        con = connect(db, read_only=False)
        try:
            return _start_run(con, [])
        finally:
            con.close()

    run = running()
    reader = _holder(db, 1.0)
    con = reopened(str(db), run, wait=60)  # held by the reader when called
    try:
        assert con.execute("select status from ingest_runs where run_id = ?", [run]).fetchall() == [
            ("running",)
        ]
    finally:
        con.close()
    assert reader.wait() == 0

    reader = _holder(db, 60.0)
    try:
        with pytest.raises(
            WarehouseError,
            match=r"in use by another process \(PID \d+\), which opened it .* held it for over 0.2 s; what was committed is kept",
        ):
            reopened(str(db), run, wait=0.2)
    finally:
        reader.kill()
        reader.wait()

    other = running()
    with pytest.raises(
        WarehouseError, match=rf"another load \(run {other}\) wrote to the database .* \(run {run}\)"
    ):
        reopened(str(db), run)
