"""Copies of one game -- EGN with and without gameId, an annotated copy, a fragment
of its first hands, the same game as euchre/1 under another id, a byte-identical
file under another name, a copy whose discards are not known -- count as the
single game, and the audit lists them.

Real ``tricklog load``, ``validate`` and ``report``; expected figures from the
plain-Python oracle (``report_oracle``) on the records as read.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from report_oracle import expected_extras, expected_summary
from test_report import assert_same, report, tricklog

from pipeline.games.euchre.importers.egn import read_egn
from pipeline.validate import read_inputs

EGN = Path(__file__).parent / "fixtures" / "egn"


def _write(path: Path, document: dict[str, Any]) -> str:
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return str(path)


def copies(folder: Path) -> list[str]:
    """The original and its copies, in load order."""
    folder.mkdir(parents=True, exist_ok=True)
    original = json.loads((EGN / "standard.egn").read_text())
    files = [str(shutil.copy(EGN / "standard.egn", folder / "standard.egn"))]

    no_id = json.loads(json.dumps(original))
    del no_id["metadata"]["gameId"]
    files.append(_write(folder / "no id.egn", no_id))

    annotated = json.loads(json.dumps(original))
    annotated["metadata"]["gameId"] = "std-1-annotated"
    annotated["metadata"]["title"] = "Fixture, with notes"
    for deal in annotated["deals"]:
        deal["annotation"] = "a note on this deal"
    files.append(_write(folder / "annotated.egn", annotated))

    fragment = json.loads(json.dumps(original))
    del fragment["metadata"]["gameId"]
    del fragment["metadata"]["finalScore"]
    fragment["deals"] = fragment["deals"][:2]
    files.append(_write(folder / "fragment.egn", fragment))

    (item,) = read_egn(str(EGN / "standard.egn"))
    assert item.record is not None
    record = {k: v for k, v in item.record.items() if k != "origin"}
    record["game_id"] = "converted-elsewhere"
    converted = folder / "converted.jsonl"
    converted.write_bytes(orjson.dumps(record) + b"\n")
    files.append(str(converted))

    files.append(str(shutil.copy(EGN / "standard.egn", folder / "standard (2).egn")))

    # the discards not known (as EGN files seldom say them): still the same hands
    unknown_discards = dict(record, game_id="discards-unknown")
    unknown_discards["hands"] = [dict(h, discard="??") if h.get("discard") else h for h in record["hands"]]
    discards = folder / "discards unknown.jsonl"
    discards.write_bytes(orjson.dumps(unknown_discards) + b"\n")
    files.append(str(discards))

    # annotated, keeping the original's gameId: a known id with other content
    same_id = json.loads(json.dumps(annotated))
    same_id["metadata"]["gameId"] = "std-1"
    files.append(_write(folder / "annotated, same id.egn", same_id))
    return files


def records(files: list[str]) -> list[dict[str, Any]]:
    return [item.record for item in read_inputs(files) if item.record is not None]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    tmp = tmp_path_factory.mktemp("copies")
    files = copies(tmp / "in")
    db = tmp / "w.duckdb"
    done = tricklog("load", *files, "--db", str(db), "--json")
    assert done.exit_code in (0, 1), done.stderr
    summary = json.loads(done.stdout)
    # The byte-identical copy under another name is already present, not "different content";
    # the annotated copy that kept the gameId is quarantined (duplicate_game), its line kept whole.
    accounts = [summary[k] for k in ("lines", "games_loaded", "already_present", "quarantined")]
    assert accounts == [8, 6, 1, 1]
    return db, files


def test_copies_count_as_the_single_game(loaded: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, files = loaded
    everything = report(db, tmp_path / "all")
    single_db = tmp_path / "single.duckdb"
    assert tricklog("load", files[0], "--db", str(single_db)).exit_code in (0, 1)
    single = report(single_db, tmp_path / "single")
    assert single["euchre"]["hands"] > 0
    for key in ("games", "complete_games", "hands", "euchre_rate", "alone", "dealer_advantage", "per_player"):
        assert_same(single["euchre"][key], everything["euchre"][key], key)
    assert_same(expected_summary(records(files)), everything["euchre"])
    assert_same(expected_extras(records(files))["per_player"], everything["euchre"]["per_player"])
    data = everything["dataset"]
    assert data["hands_counted"] == single["euchre"]["hands"]
    # Every file read is counted; 5 loaded games hold nothing but copies (the fragment too).
    assert (data["files"], data["games_loaded"], data["games_copies"]) == (8, 6, 5)


def test_the_audit_lists_each_copy(loaded: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, files = loaded
    report(db, tmp_path)
    with open(tmp_path / "audit_copies.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    by_file: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_file.setdefault(Path(row["file"]).name, []).append(row)
    hands = len(records(files[:1])[0]["hands"])
    assert {name: len(r) for name, r in by_file.items()} == {
        "no id.egn": hands,
        "annotated.egn": hands,
        "fragment.egn": 2,
        "converted.jsonl": hands,
        "discards unknown.jsonl": hands,
    }
    assert {(r["first_seen_game"], Path(r["first_seen_file"]).name) for r in rows} == {
        ("std-1", "standard.egn")
    }
    assert all(r["hand"] == r["first_seen_hand"] for r in rows)
    page = (tmp_path / "report.html").read_text("utf-8")
    assert "Copies: hands recorded more than once" in page and "fragment.egn" in page
    # Every file read is in the data set, the one whose only line was quarantined too.
    with open(tmp_path / "dataset_files.csv", newline="") as f:
        read = {Path(r["file"]).name: r for r in csv.DictReader(f)}
    assert set(read) == {Path(name).name for name in files}
    quarantined = read["annotated, same id.egn"]
    assert (quarantined["games"], quarantined["lines_quarantined"]) == ("0", "1")
    assert (read["fragment.egn"]["games"], read["fragment.egn"]["hand_copies"]) == ("1", "2")


def test_validate_reports_copies(loaded: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, files = loaded
    out = tmp_path / "v.jsonl"
    done = tricklog("validate", *files, "--json", "--violations", str(out))
    assert done.exit_code == 1
    found = [json.loads(line) for line in out.read_text().splitlines()]
    copies = [
        (Path(v["file"]).name, v["code"], v["hand"]) for v in found if v["code"].startswith("duplicate")
    ]
    assert copies == [
        ("no id.egn", "duplicate_game", None),
        ("annotated.egn", "duplicate_game", None),
        ("fragment.egn", "duplicate_hand", 0),
        ("fragment.egn", "duplicate_hand", 1),
        ("converted.jsonl", "duplicate_game", None),
        ("standard (2).egn", "duplicate_game", None),
        ("discards unknown.jsonl", "duplicate_game", None),
        ("annotated, same id.egn", "duplicate_game", None),
    ]
    first = next(v for v in found if v["code"] == "duplicate_hand")
    assert "hand 0 of game 'std-1'" in first["message"]


def test_a_game_recorded_twice_is_one_game_whichever_copy_has_a_fault(tmp_path: Path) -> None:
    """The copy loaded first has a hand a violation names (its valid copy is counted
    from the second), and a fragment of the game came before the whole: the game is
    still counted once as a game -- its win, its players' games, its pairs."""
    from pipeline.games.euchre.simulate import simulate_game

    game = simulate_game(3, seed=5)
    assert len(game["hands"]) > 3
    annotated = json.loads(json.dumps(game))
    annotated["game_id"] = "annotated"
    annotated["hands"][2]["claimed"]["score"][0] += 1  # a wrong running score: hand 2 is not valid
    fragment = json.loads(json.dumps(game))
    fragment["game_id"] = "fragment"
    fragment["hands"] = fragment["hands"][:3]
    del fragment["final_score"]
    files = []
    for name, record in (("annotated", annotated), ("fragment", fragment), ("game", game)):
        (tmp_path / f"{name}.jsonl").write_bytes(orjson.dumps(record) + b"\n")
        files.append(str(tmp_path / f"{name}.jsonl"))
    db = tmp_path / "w.duckdb"
    assert tricklog("load", *files, "--db", str(db)).exit_code == 1  # the wrong score
    everything = report(db, tmp_path / "all")
    single_db = tmp_path / "single.duckdb"
    assert tricklog("load", files[-1], "--db", str(single_db)).exit_code == 0
    single = report(single_db, tmp_path / "single")
    assert single["euchre"]["complete_games"] == 1
    # the same hands, read from other files; the loaded games described as loaded (a fragment)
    for key in set(single["euchre"]) - {"by_file", "sample"}:
        assert_same(single["euchre"][key], everything["euchre"][key], key)
    assert_same(expected_summary(records(files)), everything["euchre"])
    data = everything["dataset"]
    assert (data["games_loaded"], data["games_counted"], data["games_copies"]) == (3, 1, 2)


def _loaded_and_reported(tmp_path: Path, name: str, records_in_order: list[dict[str, Any]]) -> dict[str, Any]:
    """Each record in a file of its own, loaded in order and reported on: summary.json."""
    files = []
    for i, record in enumerate(records_in_order):
        path = tmp_path / f"{name}-{i}.jsonl"
        path.write_bytes(orjson.dumps(record) + b"\n")
        files.append(str(path))
    db = tmp_path / f"{name}.duckdb"
    assert tricklog("load", *files, "--db", str(db)).exit_code in (0, 1)
    summary = report(db, tmp_path / name)
    assert_same(expected_summary(records(files)), summary["euchre"])
    return summary


def _same_but_provenance(alone: dict[str, Any], messy: dict[str, Any]) -> None:
    for key in set(alone["euchre"]) - {"by_file", "sample"}:
        assert_same(alone["euchre"][key], messy["euchre"][key], key)


def test_two_games_joined_in_one_record_leave_the_second_game_its_own(tmp_path: Path) -> None:
    """A record holding a game and, after its end, the hands of another (faulted as
    played after the game ended): the first game is counted from it, the second
    from its own record, each once -- its win and its players' games included."""
    from pipeline.games.euchre.simulate import simulate_game

    first, second = simulate_game(1, seed=5), simulate_game(2, seed=5)
    joined = json.loads(json.dumps(first))
    joined["game_id"] = "joined"
    joined["hands"] += json.loads(json.dumps(second["hands"]))
    alone = _loaded_and_reported(tmp_path, "alone", [first, second])
    messy = _loaded_and_reported(tmp_path, "messy", [joined, first, second])
    assert alone["euchre"]["games"] == 2
    _same_but_provenance(alone, messy)


def test_a_copy_naming_no_one_does_not_take_the_game_from_its_players(tmp_path: Path) -> None:
    """The same game with its seats named North, East, South and West, loaded first:
    the copy naming the players counts, so the per-player figures are the game's."""
    from pipeline.games.euchre.simulate import simulate_game

    game = simulate_game(1, seed=5)
    anonymous = dict(
        json.loads(json.dumps(game)), game_id="anonymous", players=["North", "East", "South", "West"]
    )
    alone = _loaded_and_reported(tmp_path, "alone", [game])
    messy = _loaded_and_reported(tmp_path, "messy", [anonymous, game])
    assert alone["euchre"]["per_player"]
    _same_but_provenance(alone, messy)


def test_a_fragment_of_a_counted_game_is_no_game_joined_part_way(tmp_path: Path) -> None:
    """Hands 3 to 6 of a game, recorded from the score they started at, loaded beside
    the whole game: no game counted was joined part way or is unfinished."""
    from pipeline.games.euchre.simulate import simulate_game

    game = simulate_game(1, seed=5)
    assert len(game["hands"]) > 7 and "final_score" in game
    middle = json.loads(json.dumps(game))
    middle["game_id"] = "middle"
    middle["initial_score"] = game["hands"][2]["claimed"]["score"]
    middle["hands"] = middle["hands"][3:7]
    del middle["final_score"]
    messy = _loaded_and_reported(tmp_path, "messy", [middle, game])
    sample = messy["euchre"]["sample"]
    assert (messy["euchre"]["games"], sample["games_part_way"], sample["games_unfinished"]) == (1, 0, 0)
    fragment = _loaded_and_reported(tmp_path, "fragment", [middle])["euchre"]
    assert (
        fragment["games"],
        fragment["sample"]["games_part_way"],
        fragment["sample"]["games_unfinished"],
    ) == (1, 1, 1)


def renumbered_euchre(record: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The game as an exporter numbering every seat one on would write it: each seat
    ``s`` is ``s + 1`` (so the teams swap: every team pair is turned round)."""

    def seat(s: int) -> int:
        return (s + 1) % 4

    def by_seat(values: list[Any]) -> list[Any]:
        return [values[(i - 1) % 4] for i in range(4)]

    out = json.loads(json.dumps(record))
    out["game_id"], out["players"] = game_id, by_seat(out["players"])
    for key in ("final_score", "initial_score"):
        if key in out:
            out[key] = out[key][::-1]
    for hand in out["hands"]:
        hand["dealer"] = seat(hand["dealer"])
        if "deal" in hand:
            hand["deal"] = by_seat(hand["deal"])
        hand["bids"] = [dict(b, seat=seat(b["seat"])) for b in hand["bids"]]
        hand["tricks"] = [[[seat(s), c] for s, c in trick] for trick in hand.get("tricks", [])]
        if "defender_alone" in hand:
            hand["defender_alone"] = seat(hand["defender_alone"])
        claimed = hand.get("claimed", {})
        if "trick_winners" in claimed:
            claimed["trick_winners"] = [seat(w) for w in claimed["trick_winners"]]
        for key in ("points", "score"):
            if key in claimed:
                claimed[key] = claimed[key][::-1]
    return out


def test_a_copy_numbering_the_seats_from_another_is_the_same_game(tmp_path: Path) -> None:
    """The same game with every seat numbered one on (the players with their seats):
    its hands are copies, the game a copy, the figures the game's alone."""
    from pipeline.games.euchre.replay import replay_game
    from pipeline.games.euchre.simulate import simulate_game

    game = simulate_game(1, seed=5)
    turned = renumbered_euchre(game, "turned")
    assert replay_game(turned).violations == []  # a faithful renumbering: no claim broken
    alone = _loaded_and_reported(tmp_path, "alone", [game])
    messy = _loaded_and_reported(tmp_path, "messy", [turned, game])
    _same_but_provenance(alone, messy)
    both = tmp_path / "both.jsonl"
    both.write_bytes(orjson.dumps(game) + b"\n" + orjson.dumps(turned) + b"\n")
    found = tricklog("validate", str(both), "--json")
    assert found.exit_code == 1 and "duplicate_game" in found.stdout
