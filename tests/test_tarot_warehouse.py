"""French Tarot through the core's commands: validate, load, sql, export and
report, from tarot/1 records and TarotClub files; every figure of the ``tarot``
object of summary.json against a plain recomputation over ``replay_game``."""

from __future__ import annotations

import json
import shutil
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli import run

from pipeline.games.tarot.replay import replay_game
from pipeline.games.tarot.state import TarotReplay
from pipeline.report.stats import rate

FIXTURES = Path(__file__).parent / "fixtures" / "tarot"


def simulated(folder: Path, games: int, seed: int, corrupt: float) -> Path:
    """``folder/tarot.jsonl``: simulated Tarot games with planted faults."""
    path = folder / "tarot.jsonl"
    made = run(
        "simulate", "--game", "tarot", "--games", str(games), "--seed", str(seed), "--corrupt", str(corrupt),
        "-o", str(path),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return path


def load_and_report(folder: Path, *inputs: str) -> dict[str, Any]:
    """Load ``inputs`` (with planted faults) into ``folder/w.duckdb``, report into
    ``folder/report``, and give its summary."""
    loaded = run("load", *inputs, "--db", str(folder / "w.duckdb"), "--json")
    assert loaded.returncode == 1, loaded.stderr  # the planted faults
    report = run("report", "--db", str(folder / "w.duckdb"), "--out", str(folder / "report"))
    assert report.returncode == 0, report.stderr
    summary: dict[str, Any] = json.loads((folder / "report" / "summary.json").read_text())
    return summary


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("tarot")
    games = simulated(folder, 120, 3, 0.1)
    clubs = sorted(str(p) for p in FIXTURES.glob("tarotclub-*.json"))
    return games, folder / "w.duckdb", load_and_report(folder, str(games), *clubs)


def kept_games(games: Path) -> Iterator[tuple[dict[str, Any], TarotReplay]]:
    """The records the loader keeps, replayed, by plain Python (a line it keeps out --
    not JSON, a required field missing, a game_id seen before -- is left out)."""
    seen = set()
    for line in games.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        replay = replay_game(record)
        required = {"format", "game_id", "players", "hands"}
        if replay.game_id in seen or any(
            v.code == "schema" and v.hand is None and v.path in required for v in replay.violations
        ):
            continue
        seen.add(replay.game_id)
        yield record, replay


def approx(value: Any) -> Any:
    """``value`` compared with a tolerance on its floats, however nested."""
    if isinstance(value, dict):
        return {k: approx(v) for k, v in value.items()}
    if isinstance(value, list):
        return [approx(v) for v in value]
    return pytest.approx(value) if isinstance(value, float) else value


def counted_hands(games: Path) -> tuple[int, list[Any], int]:
    """Games with a counted hand, the counted hands, and valid thrown-in hands, by plain
    Python."""
    hands, thrown, games_counted = [], 0, 0
    for _, replay in kept_games(games):
        named = {v.hand for v in replay.violations}
        ok = [h for h in replay.hands if h.index not in named]
        thrown += sum(1 for h in ok if h.thrown_in is not None)
        counted = [h for h in ok if h.complete and h.thrown_in is None and h.taker is not None]
        games_counted += bool(counted)
        hands += counted
    return games_counted, hands, thrown


def test_every_tarot_figure_matches_a_plain_recomputation(loaded: tuple[Path, Path, dict[str, Any]]) -> None:
    games, _, summary = loaded
    t = summary["tarot"]
    n_games, hands, thrown = counted_hands(games)
    tarotclub = [replay_game(record) for record in _tarotclub_records()]
    club_hands = [
        h for r in tarotclub for h in r.hands if not r.violations and h.complete and h.taker is not None
    ]
    hands += club_hands
    n_games += sum(1 for r in tarotclub if not r.violations)
    assert (t["games"], t["hands"], t["thrown_in"]) == (n_games, len(hands), thrown)
    assert t["made"] == rate(sum(bool(h.made) for h in hands), len(hands)).to_json()
    for contract, figures in t["contracts"].items():
        mine = [h for h in hands if h.contract == contract]
        assert figures["n"] == len(mine)
        assert figures["success"] == rate(sum(bool(h.made) for h in mine), len(mine)).to_json()
        if mine:
            assert figures["mean_taker_score"] == pytest.approx(statistics.fmean(h.taker_score for h in mine))
            assert figures["share"] == pytest.approx(len(mine) / len(hands))
    for bouts, figures in t["success_by_bouts"].items():
        mine = [h for h in hands if h.bouts == int(bouts)]
        assert figures == rate(sum(bool(h.made) for h in mine), len(mine)).to_json()
    for position, figures in t["success_by_taker_position"].items():
        mine = [h for h in hands if h.taker_position == position]
        assert figures == rate(sum(bool(h.made) for h in mine), len(mine)).to_json()
    assert t["petit_au_bout"] == {
        "hands": sum(h.petit_au_bout is not None for h in hands),
        "taker": sum(h.petit_au_bout == "taker" for h in hands),
        "defence": sum(h.petit_au_bout == "defence" for h in hands),
    }
    assert t["poignee"] == {
        size: sum(s == size for h in hands for _, s in h.poignees) for size in ("simple", "double", "triple")
    }
    assert (t["chelem"]["announced"], t["chelem"]["made"]) == (
        sum(h.chelem_announced for h in hands),
        sum(h.chelem_made for h in hands),
    )
    assert sum(b["made"] + b["down"] for b in t["margin"]) == len(hands)


def _tarotclub_records() -> list[dict[str, Any]]:
    from pipeline.games.tarot.importers.tarotclub import read_tarotclub

    return [
        item.record
        for p in sorted(FIXTURES.glob("tarotclub-*.json"))
        for item in read_tarotclub(str(p))
        if item.record
    ]


def test_tarot_tables_hold_every_deal(loaded: tuple[Path, Path, dict[str, Any]]) -> None:
    _, db, _ = loaded
    con = duckdb.connect(str(db), read_only=True)
    try:
        per_hand = con.execute(
            "select count(*) filter (where n <> 78) from (select h.game_id, h.hand_no, "
            "(select count(*) from tarot.plays p where p.game_id = h.game_id and p.hand_no = h.hand_no)"
            " + (select count(*) from tarot.chien c where c.game_id = h.game_id and c.hand_no = h.hand_no"
            " and c.pile = 'chien') as n from tarot.hands h "
            "where h.complete and h.valid and h.thrown_in is null and h.contract in ('prise', 'garde'))"
        ).fetchall()[0][0]
        assert per_hand == 0  # 72 cards played and the 6 of the chien: the whole deck
        zero_sum = con.execute("select count(*) from tarot.hands where list_sum(scores) <> 0").fetchall()[0][
            0
        ]
        assert zero_sum == 0
        games = con.execute("select game, count(*) from games group by 1").fetchall()
        assert dict(games)["tarot"] > 100
        players = con.execute(
            "select count(*) from violations v where v.seat is not null and v.player is null"
        ).fetchall()
        assert players[0][0] == 0
    finally:
        con.close()


def test_tarot_sql_and_export(loaded: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    _, db, summary = loaded
    query = "select count(*) as n from tarot_counted_hands()"
    out = run("sql", query, "--db", str(db), "--format", "csv")
    assert out.stdout.split() == ["n", str(summary["tarot"]["hands"])]
    exported = run("export", "--db", str(db), "--parquet", str(tmp_path / "pq"))
    assert exported.returncode == 0, exported.stderr
    assert any((tmp_path / "pq" / "tarot" / "hands").rglob("*.parquet"))
    assert (tmp_path / "pq" / "tarot" / "chien" / "part-0.parquet").is_file()


def renumbered(record: dict[str, Any]) -> dict[str, Any]:
    """The game as an exporter numbering every seat one on would write it (each seat
    ``s`` is ``s + 1``, the players with their seats); what is not a valid hand
    is left as it is."""

    def seat(s: Any) -> Any:
        return (s + 1) % 4 if type(s) is int and 0 <= s <= 3 else s

    def by_seat(values: Any) -> Any:
        return (
            [values[(i - 1) % 4] for i in range(4)]
            if isinstance(values, list) and len(values) == 4
            else values
        )

    out = json.loads(json.dumps(record))
    out["players"] = by_seat(out.get("players"))
    for hand in out.get("hands") if isinstance(out.get("hands"), list) else []:
        if not isinstance(hand, dict):
            continue
        hand["dealer"], hand["deal"] = seat(hand.get("dealer")), by_seat(hand.get("deal"))
        for key in ("bids", "announcements"):
            hand[key] = [
                dict(b, seat=seat(b.get("seat"))) if isinstance(b, dict) else b for b in hand.get(key) or []
            ]
        tricks = hand.get("tricks") or []
        hand["tricks"] = [
            [[seat(p[0]), *p[1:]] if isinstance(p, list) and p else p for p in t]
            if isinstance(t, list)
            else t
            for t in tricks
        ]
        claimed = hand.get("claimed")
        if isinstance(claimed, dict):
            if isinstance(claimed.get("trick_winners"), list):
                claimed["trick_winners"] = [seat(w) for w in claimed["trick_winners"]]
            for key in ("scores", "totals"):
                claimed[key] = by_seat(claimed.get(key))
    return {k: v for k, v in out.items() if v is not None}


def test_a_copied_tarot_game_counts_once(loaded: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    """The same games again under other ids, with every seat numbered one on (the
    players with their seats), change no figure."""
    games, loaded_db, one_summary = loaded
    copies = tmp_path / "copies.jsonl"
    lines = []
    for line in games.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record.get("game_id"), str) and isinstance(record.get("hands"), list):
            valid = not replay_game(record).violations
            record = renumbered(record)
            record["game_id"] = "copy-" + record["game_id"]
            assert not valid or not replay_game(record).violations  # a faithful renumbering
        lines.append(json.dumps(record))
    copies.write_text("\n".join(lines) + "\n")
    db = tmp_path / "w.duckdb"  # the module's warehouse, with the copies loaded too
    shutil.copyfile(loaded_db, db)
    assert run("load", str(copies), "--db", str(db)).returncode == 1  # every line a copy
    both = run("report", "--db", str(db), "--out", str(tmp_path / "two"))
    assert both.returncode == 0, both.stderr
    one = one_summary["tarot"]
    two = json.loads((tmp_path / "two" / "summary.json").read_text())["tarot"]
    # thrown-in deals are recognised by their deal: counted once too
    apart = {"tests"}
    assert one["hands"] > 0 and one["thrown_in"] > 0
    # (up to the last bits of a float: DuckDB sums in parallel, in no fixed order)
    assert {k: v for k, v in two.items() if k not in apart} == approx(
        {k: v for k, v in one.items() if k not in apart}
    )
