"""Player identity and the first dealer's games: aliases and placeholders change the
per-player table as the players file says; first_dealer_game_win counts only games
recorded from 0-0.  Real ``tricklog load`` and ``report``, figures from the oracle."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import orjson
import pytest
from report_oracle import expected_extras, expected_summary
from test_report import FIXTURES, assert_same, load, report, tricklog

from pipeline.players import PlayersFileError, read_players

NAMES = [
    ["Brownsbacker07", "North", "ana", "p0"],
    ["Brownsbacke®07", "Player1", "ana", "ben"],
    ["ben", "Brownsbacker07", "anna", "East"],
    ["Guest", "ben", "ana", "Brownsbacke®07"],
    ["ana", "seat 1", "ben", "Brownsbacker07"],
]


def named_records() -> list[dict[str, Any]]:
    """The five distinct pagat and cards4net fixture games, seated by NAMES in turn."""
    out = []
    for name in ("euchre-pagat.jsonl", "euchre-cards4net.jsonl"):
        for line in (FIXTURES / name).read_bytes().splitlines():
            record = orjson.loads(line)
            record["players"] = NAMES[len(out) % len(NAMES)]
            out.append(record)
    return out


def test_placeholders_are_never_people(tmp_path: Path) -> None:
    records = named_records()
    summary = report(load(tmp_path, records), tmp_path / "r")
    people = set(summary["euchre"]["per_player"])
    assert people == {"Brownsbacker07", "Brownsbacke®07", "ana", "anna", "ben", "Guest"}
    assert_same(expected_extras(records)["per_player"], summary["euchre"]["per_player"])
    # The audit suggests the likely aliases.
    with open(tmp_path / "r" / "audit_aliases.csv", newline="") as f:
        pairs = {(r["name"], r["maybe"]) for r in csv.DictReader(f)}
    assert ("Brownsbacker07", "Brownsbacke®07") in pairs and ("ana", "anna") not in pairs  # too short


@pytest.mark.parametrize("where", ["load", "report"])
def test_a_players_file_merges_aliases_and_drops_placeholders(tmp_path: Path, where: str) -> None:
    records = named_records()
    players = tmp_path / "players.toml"
    players.write_text(
        'placeholders = ["Guest"]\n\n[aliases]\n"Brownsbacke®07" = "Brownsbacker07"\nanna = "ana"\n'
    )
    games = tmp_path / "games.jsonl"
    games.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    db = tmp_path / "w.duckdb"
    at_load = ["--players", str(players)] if where == "load" else []
    assert tricklog("load", str(games), "--db", str(db), *at_load).exit_code in (0, 1)
    at_report = ("--players", str(players)) if where == "report" else ()
    summary = report(db, tmp_path / "r", *at_report)
    per_player = summary["euchre"]["per_player"]
    assert set(per_player) == {"Brownsbacker07", "ana", "ben"}
    aliases = {"Brownsbacke®07": "Brownsbacker07", "anna": "ana"}
    expected = expected_extras(records, aliases=aliases, placeholders=["Guest"])["per_player"]
    assert_same(expected, per_player)
    assert per_player["Brownsbacker07"]["hands"] == sum(
        len([h for h in r["hands"] if "thrown_in" not in h])
        for r in records
        if {"Brownsbacker07", "Brownsbacke®07"} & set(r["players"])
    )
    # --player finds a person by the canonical name, under any of their names.
    only = report(db, tmp_path / "only", "--player", "Brownsbacker07", *at_report)
    scoped = expected_summary(records, players=["Brownsbacker07"], aliases=aliases, placeholders=["Guest"])
    assert_same(scoped, only["euchre"])


def test_players_file_as_csv_and_its_errors(tmp_path: Path) -> None:
    good = tmp_path / "players.csv"
    good.write_text("name,canonical\nBrownsbacke®07,Brownsbacker07\nGuest,\n")
    m = read_players(good)
    assert (m.canonical("Brownsbacke®07"), m.canonical("Guest"), m.canonical("ben")) == (
        "Brownsbacker07",
        None,
        "ben",
    )
    bad = tmp_path / "bad.csv"
    bad.write_text("alias;name\n")
    with pytest.raises(PlayersFileError):
        read_players(bad)
    made = tricklog("report", "--db", str(tmp_path / "none.duckdb"), "--players", str(bad))
    assert made.exit_code == 2 and "name,canonical" in made.stderr
    # a name given twice alike is one row; given two ways, refused as TOML refuses it
    same = tmp_path / "same.csv"
    same.write_text("name,canonical\nanna,ana\nanna,ana\n")
    assert read_players(same).aliases == {"anna": "ana"}
    for rows, said in (
        ("anna,ana\nanna,ann", "maps it to 'ana'"),
        ("Guest,\nGuest,ben", "makes it a placeholder"),
    ):
        twice = tmp_path / "twice.csv"
        twice.write_text(f"name,canonical\n{rows}\n")
        with pytest.raises(
            PlayersFileError, match=f"line 3: '(anna|Guest)' is given again; an earlier line {said}"
        ):
            read_players(twice)


def test_first_dealer_counts_only_games_from_nil_nil(tmp_path: Path) -> None:
    records = []
    for name in ("euchre-pagat.jsonl", "euchre-cards4net.jsonl", "euchre-french.jsonl"):
        records += [orjson.loads(line) for line in (FIXTURES / name).read_bytes().splitlines()]
    for i, record in enumerate(records):
        if i % 3 == 1:  # picked up part way: 4-9 before hand 0
            record["initial_score"] = [4, 9] if i % 2 else [2, 0]
            record.pop("final_score", None)
            for hand in record["hands"]:
                hand.get("claimed", {}).pop("score", None)
    summary = report(load(tmp_path, records), tmp_path / "r")
    got = summary["euchre"]["dealer_advantage"]["first_dealer_game_win"]
    expected = expected_summary(records)
    assert_same(expected["dealer_advantage"]["first_dealer_game_win"], got)
    part_way = sum(1 for r in records if "initial_score" in r)
    assert part_way == 5 and 0 < got["n"] <= summary["euchre"]["complete_games"] - 1
    assert got["n"] == len(records) - part_way - (
        summary["euchre"]["games"] - summary["euchre"]["complete_games"]
    )


#: One person typed in several ways, and names that are no one however written.
MESSY_NAMES = [
    ["Zo\u00eb", "North\t", "Ivo", "Robot"],
    ["Zoe\u0308", "Ivo\u200b", "Bot 1", " Kai\n"],
    ["Kai", "Zo\u00eb ", "Guest", "Ivo"],
    ["Ivo", "Kai", "Zoe\u0308\ufeff", "East\u3000"],
    ["Robot", "Zo\u00eb", "Kai", "Ivo\u2060"],
]


def messy_records() -> list[dict[str, Any]]:
    records = named_records()
    for i, record in enumerate(records):
        record["players"] = MESSY_NAMES[i % len(MESSY_NAMES)]
    return records


def test_a_name_is_read_tidied_and_an_alias_of_a_placeholder_is_no_one(tmp_path: Path) -> None:
    """Zoë composed or not, names with blanks or invisible characters at their ends,
    a built-in placeholder followed by a tab: one person each, or no one; an alias of
    a placeholder (built in, or the file's) is no one."""
    records = messy_records()
    players = tmp_path / "players.toml"
    players.write_text('placeholders = ["Bot 1"]\n\n[aliases]\nRobot = "North"\nGuest = "Bot 1"\n')
    summary = report(load(tmp_path, records), tmp_path / "r", "--players", str(players))
    per_player = summary["euchre"]["per_player"]
    assert set(per_player) == {"Zo\u00eb", "Ivo", "Kai"}
    aliases = {"Robot": "North", "Guest": "Bot 1"}
    expected = expected_extras(records, aliases=aliases, placeholders=["Bot 1"])
    assert_same(expected["per_player"], per_player)
    assert_same(expected_summary(records, aliases=aliases, placeholders=["Bot 1"]), summary["euchre"])


def test_aliases_are_followed_from_the_stored_names_to_the_report_s_and_may_not_go_round(
    tmp_path: Path,
) -> None:
    records = named_records()
    games = tmp_path / "games.jsonl"
    games.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    db = tmp_path / "w.duckdb"
    stored = tmp_path / "stored.toml"
    stored.write_text('[aliases]\nanna = "ana"\n')
    assert tricklog("load", str(games), "--db", str(db), "--players", str(stored)).exit_code in (0, 1)
    later = tmp_path / "later.toml"
    later.write_text('[aliases]\nana = "Anastasia"\n')
    summary = report(db, tmp_path / "r", "--players", str(later))
    aliases = {"anna": "Anastasia", "ana": "Anastasia"}
    assert "Anastasia" in summary["euchre"]["per_player"] and "ana" not in summary["euchre"]["per_player"]
    assert_same(expected_extras(records, aliases=aliases)["per_player"], summary["euchre"]["per_player"])
    back = tmp_path / "back.toml"
    back.write_text('[aliases]\nana = "anna"\n')
    made = tricklog("report", "--db", str(db), "--out", str(tmp_path / "round"), "--players", str(back))
    assert made.exit_code == 2 and "are aliases of each other" in made.stderr and "'anna'" in made.stderr
    refused = tricklog("load", str(games), "--db", str(db), "--players", str(back))
    assert refused.exit_code == 2 and "aliases of each other" in refused.stderr
    again = report(db, tmp_path / "again", "--players", str(later))  # nothing was stored
    assert again["euchre"]["per_player"] == summary["euchre"]["per_player"]


def test_the_audit_suggests_names_alike_but_for_case_and_never_two_seated_together(tmp_path: Path) -> None:
    records = named_records()
    records[0]["players"] = ["ANA", "North", "ana", "p0"]  # seated together: two people
    records[1]["players"] = ["BEN", "Player1", "ana", "Brownsbacker07"]
    records[2]["players"] = ["Ki\u200bm", "Brownsbacke®07", "anna", "East"]
    records[3]["players"] = ["Kim", "ben", "Brownsbacker07", "Guest"]
    report(load(tmp_path, records), tmp_path / "r")
    with open(tmp_path / "r" / "audit_aliases.csv", newline="") as f:
        pairs = {(r["name"], r["maybe"]): r["why"] for r in csv.DictReader(f)}
    assert pairs[("BEN", "ben")] == "alike but for case or invisible characters"
    assert pairs[("Kim", "Ki\u200bm")] == "alike but for case or invisible characters"
    assert ("ANA", "ana") not in pairs  # sat at one table
    assert ("Brownsbacker07", "Brownsbacke®07") in pairs
