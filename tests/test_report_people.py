"""People and pairs, situations and time: every new figure of ``tricklog report``
(real ``tricklog load`` and ``report`` on simulated games, some corrupted, some
copied, some undated, some with a placeholder seat, loaded out of date order)
against a plain recomputation in Python (``people_oracle``), the ratings against
openskill called directly, and the split at the minimum sample."""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from people_oracle import (
    expected_bidding,
    expected_head_to_head,
    expected_partnerships,
    expected_periods,
    expected_ratings,
    expected_situations,
    expected_win_probability,
    rated_games,
)
from report_oracle import expected_extras
from test_report import assert_same, report, tricklog
from test_report_simulated import read_records

from pipeline.games.euchre.simulate import write_simulation
from pipeline.report.inference import MIN_N

GAMES = 160


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], dict[str, Any], Path, str]:
    """(records as loaded, summary.json's euchre object, the report folder, the games file)."""
    tmp = tmp_path_factory.mktemp("people")
    simulated = tmp / "sim.jsonl"
    write_simulation(simulated, GAMES, seed=11, preset="mixed", corrupt_rate=0.05, workers=1)
    records = [r for r in read_records(simulated) if isinstance(r, dict)]
    for i, record in enumerate(records):
        if i % 7 == 3:
            record.pop("started_at", None)  # undated: rated after the dated games
        if i % 11 == 5:
            record["players"][2] = "North"  # a placeholder: not rated, no partnership
    copy = {**records[4], "game_id": "copy-of-4"}  # the same hands again: counted once
    records = [*records, copy]
    random.Random(3).shuffle(records)  # load order is not date order
    games = tmp / "games.jsonl"
    games.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    db = tmp / "w.duckdb"
    assert tricklog("load", str(games), "--db", str(db)).exit_code == 1  # the corrupted games
    summary = report(db, tmp / "report")
    return records, summary["euchre"], tmp / "report", str(games)


def test_ratings_match_openskill_game_by_game(built: tuple[list[Any], dict[str, Any], Path, str]) -> None:
    records, euchre, _, _ = built
    expected = expected_ratings(records)
    assert len(rated_games(records)) > GAMES // 2
    assert set(expected["players"]) == set(euchre["ratings"]["players"])
    assert set(expected["partnerships"]) == set(euchre["ratings"]["partnerships"])
    assert_same(expected, euchre["ratings"], "ratings")
    assert "North" not in euchre["ratings"]["players"]


def test_ratings_follow_the_dates_not_the_load_order(
    built: tuple[list[Any], dict[str, Any], Path, str],
) -> None:
    _, _, out, _ = built
    with open(out / "euchre_rated_games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    dated = [r["started_at"] for r in rows if r["started_at"]]
    assert dated == sorted(dated) and len(dated) < len(rows)
    assert all(r["started_at"] for r in rows[: len(dated)])  # undated after the dated ones
    assert "copy-of-4" not in {r["game_id"] for r in rows} or "sim-11-4" not in {r["game_id"] for r in rows}


def test_partnerships_and_head_to_head(built: tuple[list[Any], dict[str, Any], Path, str]) -> None:
    records, euchre, _, _ = built
    partnerships = expected_partnerships(records)
    assert set(partnerships) == set(euchre["partnerships"])
    assert_same(partnerships, euchre["partnerships"], "partnerships")
    meetings = expected_head_to_head(records)
    assert set(meetings) == set(euchre["head_to_head"])
    assert_same(meetings, euchre["head_to_head"], "head_to_head")


def test_defence_per_player(built: tuple[list[Any], dict[str, Any], Path, str]) -> None:
    records, euchre, _, _ = built
    expected = expected_extras(records)["per_player"]
    assert_same(expected, euchre["per_player"], "per_player")
    assert all(p["defence_euchres"]["n"] > 0 for p in euchre["per_player"].values())


def test_situations_and_time(built: tuple[list[Any], dict[str, Any], Path, str]) -> None:
    records, euchre, _, games = built
    situations = expected_situations(records)
    assert_same(situations, euchre["by_score_situation"], "by_score_situation")
    empty = set(euchre["by_score_situation"]) - set(situations)
    assert all(euchre["by_score_situation"][s]["hands"] == 0 for s in empty)
    probability = expected_win_probability(records)
    assert set(probability) == set(euchre["win_probability"])
    assert_same(probability, euchre["win_probability"], "win_probability")
    bidding = expected_bidding(records)
    assert_same(bidding, euchre["bidding"], "bidding")
    assert all(euchre["bidding"][c]["hands"] == 0 for c in set(euchre["bidding"]) - set(bidding))
    periods = expected_periods(records, games)
    assert "no date" in periods["by_week"]
    assert_same(periods, {k: euchre[k] for k in ("by_week", "by_file")}, "periods")
    assert set(periods["by_week"]) == set(euchre["by_week"])


@pytest.mark.parametrize(
    ("table", "by"),
    [
        ("euchre_ratings", "games"),
        ("euchre_pair_ratings", "games"),
        ("euchre_partnerships", "hands"),
        ("euchre_head_to_head", "hands"),
        ("euchre_per_player", "hands"),
    ],
)
def test_small_samples_are_listed_apart(
    built: tuple[list[Any], dict[str, Any], Path, str], table: str, by: str
) -> None:
    _, _, out, _ = built
    with open(out / f"{table}.csv", newline="") as f:
        big = [int(r[by]) for r in csv.DictReader(f)]
    with open(out / f"{table}_small.csv", newline="") as f:
        small = [int(r[by]) for r in csv.DictReader(f)]
    assert all(n >= MIN_N for n in big) and all(n < MIN_N for n in small)
    assert big or small


def test_the_page_shows_the_new_sections(built: tuple[list[Any], dict[str, Any], Path, str]) -> None:
    _, _, out, _ = built
    page = (out / "report.html").read_text(encoding="utf-8")
    for name in ("euchre_ratings", "euchre_partnerships", "euchre_win_probability", "euchre_bidding"):
        assert f"<code>{name}.sql</code>" in page
    assert 'data-file="win_probability.png"' in page
