"""tricklog sql (read-only, output formats) and tricklog export (Parquet round trip)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest
from warehouse_helpers import TABLES, corrupt_lines, counts, run_cli, valid_lines

from pipeline.warehouse.api import load


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wh")
    source = folder / "games.jsonl"
    source.write_bytes(b"\n".join([*valid_lines(), *corrupt_lines(), b"[1]"]) + b"\n")
    load([str(source)], folder / "w.duckdb")
    return folder / "w.duckdb"


@pytest.mark.parametrize(
    "statement",
    [
        "drop table games",
        "delete from games",
        "insert into games select * from games",
        "attach 'other.duckdb' as other",
        "copy games to 'games.csv'",
        "set threads = 1",
        "select 1; drop table games",
    ],
)
def test_writes_are_refused_and_data_untouched(db: Path, statement: str) -> None:
    before = counts(db)
    proc = run_cli("sql", statement, "--db", str(db))
    assert proc.returncode == 2
    assert proc.stderr.startswith("tricklog: ") and "Traceback" not in proc.stderr
    assert counts(db) == before
    assert not Path("games.csv").exists()


def test_sql_error_prints_duckdb_message(db: Path) -> None:
    proc = run_cli("sql", "select nope from games", "--db", str(db))
    assert proc.returncode == 2
    assert "Binder Error" in proc.stderr and "Traceback" not in proc.stderr


def test_the_table_shows_names_and_values_as_they_are(db: Path) -> None:
    """Square brackets in a value or a column's name are text, not rich markup: a
    player named ``[bot] Ann`` keeps its tag, and ``[/x]`` is no error."""
    query = "select '[/x]' as a, '[bold]b' as b, '[bot] Ann' as c, 1 as \"[red]x\""
    proc = run_cli("sql", query, "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()[1], proc.stdout.splitlines()[3]
    assert header.split("┃")[1:-1] == [" a    ", " b       ", " c         ", " [red]x "]
    assert [cell.strip() for cell in row.split("│")[1:-1]] == ["[/x]", "[bold]b", "[bot] Ann", "1"]


def test_csv_has_a_header_then_rows(db: Path) -> None:
    proc = run_cli(
        "sql", "select game_id, players from games order by game_id limit 3", "--db", str(db), "-f", "csv"
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "game_id,players" and len(lines) == 4


def test_json_and_parquet_outputs(db: Path, tmp_path: Path) -> None:
    query = "select preset, count(*) as games from games group by preset order by preset"
    proc = run_cli("sql", query, "--db", str(db), "--format", "json")
    rows = orjson.loads(proc.stdout)
    assert {r["preset"] for r in rows} == {"cards4net", "pagat", "french"}
    out = tmp_path / "r.parquet"
    assert run_cli("sql", query, "--db", str(db), "-f", "parquet", "-o", str(out)).returncode == 0
    assert pl.read_parquet(out).to_dicts() == rows


def test_an_interval_is_written_as_duckdbs_text_in_every_format(db: Path, tmp_path: Path) -> None:
    """The span of the games' dates is an INTERVAL, which polars cannot hold: every
    format stopped with "cannot write this result"."""
    query = (
        "select interval 3 day + interval 90 minute as span, [interval 1 month] as spans, 1 as n"
        " from games limit 1"
    )
    rows = orjson.loads(run_cli("sql", query, "--db", str(db), "-f", "json").stdout)
    assert rows == [{"span": "3 days 01:30:00", "spans": "[1 month]", "n": 1}]
    csv = run_cli("sql", query, "--db", str(db), "-f", "csv")
    assert csv.returncode == 0 and csv.stdout.splitlines()[1] == "3 days 01:30:00,[1 month],1"
    table = run_cli("sql", query, "--db", str(db))
    assert table.returncode == 0 and "3 days 01:30:00" in table.stdout
    out = tmp_path / "span.parquet"
    assert run_cli("sql", query, "--db", str(db), "-f", "parquet", "-o", str(out)).returncode == 0
    assert pl.read_parquet(out)["span"].to_list() == ["3 days 01:30:00"]


def test_types_polars_reads_as_bytes_or_not_at_all_are_duckdbs_text(db: Path) -> None:
    """A BIT and a BIGNUM came out as their bytes, a TIME WITH TIME ZONE without its
    offset, a UNION not at all."""
    query = (
        "select '101'::bit as b, 99999999999999999999999999999999999999999::bignum as big,"
        " '12:00:00+02'::timetz as t, union_value(k := 7) as u"
    )
    rows = orjson.loads(run_cli("sql", query, "--db", str(db), "-f", "json").stdout)
    assert rows == [{"b": "101", "big": "9" * 41, "t": "12:00:00+02", "u": "7"}]


def test_euchre_rate_by_seat_query_from_the_docs(db: Path) -> None:
    query = (Path(__file__).parents[1] / "docs" / "warehouse.md").read_text()
    sql = query.split("<!-- euchre-rate-by-seat -->")[1].split("```sql")[1].split("```")[0]
    proc = run_cli("sql", sql, "--db", str(db), "-f", "json")
    assert proc.returncode == 0, proc.stderr
    assert [r["maker_seat"] for r in orjson.loads(proc.stdout)] == [0, 1, 2, 3]


def test_parquet_export_round_trip(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    proc = run_cli("export", "--db", str(db), "--parquet", str(out))
    assert proc.returncode == 0, proc.stderr
    con = duckdb.connect()
    original = duckdb.connect(str(db), read_only=True)
    for table in TABLES:
        folder = table.replace(".", "/")
        glob = str(out / folder / "**" / "*.parquet")
        exported = con.execute(f"select count(*) from read_parquet('{glob}', hive_partitioning = true)")
        stored = original.execute(f"select count(*) from {table}")
        assert exported.fetchall() == stored.fetchall(), table
        assert pl.read_parquet(out / folder, hive_partitioning=True).height == stored_rows(original, table)
    assert (out / "euchre" / "hands" / "source=variant-oracle").is_dir()
    assert (out / "euchre" / "plays" / "source=variant-oracle").is_dir()


def test_the_export_holds_the_stored_player_names(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    games.write_bytes(b"\n".join(valid_lines()) + b"\n")
    players = tmp_path / "players.toml"
    players.write_text('placeholders = ["Guest"]\n\n[aliases]\nanna = "ana"\n')
    db = tmp_path / "w.duckdb"
    assert run_cli("load", str(games), "--db", str(db), "--players", str(players)).returncode == 0
    out = tmp_path / "parquet"
    assert run_cli("export", "--db", str(db), "--parquet", str(out)).returncode == 0
    rows = pl.read_parquet(out / "player_names").sort("name").rows()
    assert rows == [("Guest", None, True), ("anna", "ana", False)]


def test_a_source_too_long_for_a_file_name_is_exported(tmp_path: Path) -> None:
    """A source is free text: a 300-character one made export fail ('File name too
    long'); its partition is named by its beginning and a hash, games keeps it whole."""
    long_source = "S" * 300
    record = {**orjson.loads(valid_lines()[0]), "source": long_source}
    games = tmp_path / "games.jsonl"
    games.write_bytes(orjson.dumps(record) + b"\n")
    db = tmp_path / "w.duckdb"
    load([str(games)], db)
    out = tmp_path / "parquet"
    proc = run_cli("export", "--db", str(db), "--parquet", str(out))
    assert proc.returncode == 0, proc.stderr
    (folder,) = (out / "euchre" / "hands").iterdir()
    assert folder.name.startswith("source=" + "S" * 16 + "~") and len(folder.name) < 60
    exported = pl.read_parquet(out / "games")
    assert exported["source"].to_list() == [long_source]


def stored_rows(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(con.execute(f"select count(*) from {table}").fetchall()[0][0])


def test_missing_database_is_exit_2(tmp_path: Path) -> None:
    proc = run_cli("sql", "select 1", "--db", str(tmp_path / "none.duckdb"))
    assert proc.returncode == 2 and "no such database" in proc.stderr


def test_a_report_file_runs_as_it_stands(db: Path) -> None:
    """Report definitions use the query macros, which every read-only session has."""
    report = (
        Path(__file__).parent.parent / "pipeline" / "games" / "euchre" / "reports" / "euchre_by_round.sql"
    )
    proc = run_cli("sql", str(report), "--db", str(db), "-f", "csv")
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.splitlines()
    assert header.split(",")[:3] == ["round", "euchred_k", "euchred_n"]
    with duckdb.connect(str(db), read_only=True) as con:
        counted = con.execute(
            "select count(*) from euchre.hands where valid and complete and thrown_in is null and maker_seat is not null"
        ).fetchall()[0][0]
    assert sum(int(r.split(",")[2]) for r in rows) == counted


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing.sql", "no such file (give a .sql file, or one SQL statement)"),
        ("folder.sql", "cannot read: Is a directory"),
    ],
)
def test_a_sql_file_that_cannot_be_read_is_named(db: Path, tmp_path: Path, name: str, message: str) -> None:
    """Not handed to DuckDB as SQL, to fail with a syntax error at the first slash."""
    (tmp_path / "folder.sql").mkdir()
    proc = run_cli("sql", str(tmp_path / name), "--db", str(db))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"tricklog: {tmp_path / name}: {message}"


def test_a_sql_file_in_a_folder_with_a_space_runs(db: Path, tmp_path: Path) -> None:
    query = tmp_path / "my queries" / "count.sql"
    query.parent.mkdir()
    query.write_text("select count(*) as n from games")
    proc = run_cli("sql", str(query), "--db", str(db), "-f", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "n"


def test_players_and_results_views(db: Path) -> None:
    with duckdb.connect(str(db), read_only=True) as con:
        games = con.execute(
            "select game_id, players, winner_team, team0_score, team1_score from games join euchre.games using (game_id)"
        ).fetchall()
        seats = {
            (g, s): (p, t, w) for g, s, p, t, w in con.execute("select * from euchre.players").fetchall()
        }
        teams = {(g, t): rest for g, t, *rest in con.execute("select * from euchre.results").fetchall()}
    assert len(seats) == 4 * len(games) and len(teams) == 2 * len(games)
    for game_id, names, winner, score0, score1 in games:
        for seat in range(4):
            won = None if winner is None else winner == seat % 2
            assert seats[(game_id, seat)] == (names[seat], seat % 2, won)
        assert teams[(game_id, 0)][:3] == [[names[0], names[2]], score0, score1]
        assert teams[(game_id, 1)][:3] == [[names[1], names[3]], score1, score0]


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "parquet"])
def test_a_result_written_a_few_rows_at_a_time_is_the_result_written_whole(
    db: Path, tmp_path: Path, fmt: str
) -> None:
    """``sql`` writes a result as DuckDB streams it, a batch of rows at a time:
    batches of seven rows give the bytes the whole result gives (a table, its note
    of the whole count), nested values and blobs included, and an empty result its
    columns."""
    from pipeline.warehouse.api import Warehouse
    from pipeline.warehouse.query import query_batches, write_batches, write_result

    queries = [
        "select g.*, q.raw from games g full join quarantine q using (run_id) order by all",
        "select * from euchre.hands where false",
    ]
    with Warehouse.open(db) as warehouse:
        for number, query in enumerate(queries):
            whole, streamed = tmp_path / f"whole{number}.{fmt}", tmp_path / f"streamed{number}.{fmt}"
            write_result(warehouse.sql(query), fmt, whole)
            write_batches(query_batches(warehouse.con, query, rows=7), fmt, streamed)
            if fmt == "parquet":
                assert pl.read_parquet(streamed).equals(pl.read_parquet(whole))
            else:
                assert streamed.read_bytes() == whole.read_bytes()
        assert len(warehouse.sql(queries[0])) > 7 * 3


def test_a_result_larger_than_a_batch_is_written_in_bounded_memory(db: Path, tmp_path: Path) -> None:
    """1.5 million rows of 100 bytes: held whole, CSV peaked at 650 MiB and JSON at
    1.2 GB; streamed, both stay under 450 MiB, and the CSV is every row."""
    from test_hardening_memory import peak_rss_mb

    query = "select i, repeat('x', 100) as pad from range(1500000) t(i)"
    for fmt in ("csv", "json"):
        out = tmp_path / f"big.{fmt}"
        proc, rss = peak_rss_mb("sql", query, "--db", str(db), "--format", fmt, "-o", str(out))
        assert proc.returncode == 0, proc.stderr
        assert rss < 450, f"sql --format {fmt} of 1.5 million rows peaked at {rss} MiB"
    with (tmp_path / "big.csv").open("rb") as rows:
        assert next(rows) == b"i,pad\n" and sum(1 for _ in rows) == 1_500_000
