"""One hostile line never aborts a load: deep nesting, rule values and scores that
overflow the columns, absurd OpenSpiel returns.  Each becomes a violation or a
quarantined line with its reason, and the rest of the file loads."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import orjson
import pytest
from warehouse_helpers import run_cli, valid_lines

SCHEMA = json.loads((Path(__file__).parent.parent / "schemas" / "euchre-record.schema.json").read_text())
EGN = Path(__file__).parent / "fixtures" / "egn" / "standard.egn"


def _game(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(valid_lines()[0])
    record["game_id"] = "hostile"
    record.update(changes)
    return record


def _with_rule(name: str, value: int) -> bytes:
    record = _game()
    record["rules"] = {**record.get("rules", {}), name: value}
    return json.dumps(record).encode()


def _many_bids() -> bytes:
    record = _game()
    record["hands"][0]["bids"] += [{"seat": i % 4, "call": "pass"} for i in range(300)]
    return json.dumps(record).encode()


DEEP = (
    b'{"format":"euchre/1","game_id":"hostile","players":["a","b","c","d"],"hands":[],"x":'
    + b"[" * 300
    + b"]" * 300
    + b"}"
)

HOSTILE: dict[str, Callable[[], bytes]] = {
    "300 levels of nesting": lambda: DEEP,
    "points_make 128": lambda: _with_rule("points_make", 128),
    "points_alone_march 2^31": lambda: _with_rule("points_alone_march", 2**31),
    "target 2^63": lambda: _with_rule("target", 2**63),
    "initial_score 2^63": lambda: json.dumps(_game(initial_score=[2**63, 0])).encode(),
    "initial_score 2^31": lambda: json.dumps(_game(initial_score=[0, 2**31])).encode(),
    "300 bids in a hand": _many_bids,
}


def _load(tmp_path: Path, hostile: bytes, *options: str) -> tuple[dict[str, Any], Path]:
    lines = valid_lines()
    source = tmp_path / "games.jsonl"
    source.write_bytes(b"\n".join([lines[1], hostile, lines[2]]) + b"\n")
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(source), "--db", str(db), "--json", *options)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    summary: dict[str, Any] = orjson.loads(proc.stdout)
    assert summary["lines"] == summary["games_loaded"] + summary["already_present"] + summary["quarantined"]
    return summary, db


def _reasons(db: Path, game_id: str) -> list[tuple[str, str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        quarantined = con.execute("select code, message from quarantine where line = 2").fetchall()
        violations = con.execute(
            "select code, message from violations where game_id = ? and code = 'schema'", [game_id]
        ).fetchall()
    finally:
        con.close()
    return [*quarantined, *violations]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_line_is_accounted_for_and_the_rest_loads(tmp_path: Path, kind: str) -> None:
    summary, db = _load(tmp_path, HOSTILE[kind]())
    assert summary["games_loaded"] + summary["quarantined"] == 3
    con = duckdb.connect(str(db), read_only=True)
    try:
        ids = {r[0] for r in con.execute("select game_id from games").fetchall()}
    finally:
        con.close()
    others = {json.loads(valid_lines()[i])["game_id"] for i in (1, 2)}
    assert others <= ids
    reasons = _reasons(db, "hostile")
    assert reasons and all(code == "schema" and message for code, message in reasons), reasons
    again = run_cli("load", str(tmp_path / "games.jsonl"), "--db", str(db), "--json")
    assert orjson.loads(again.stdout)["already_present"] == 3


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_validate_reports_a_hostile_line(tmp_path: Path, kind: str) -> None:
    source = tmp_path / "one.jsonl"
    source.write_bytes(HOSTILE[kind]() + b"\n")
    proc = run_cli("validate", str(source), "--json")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert orjson.loads(proc.stdout)["violations"] >= 1


def test_openspiel_returns_out_of_range(tmp_path: Path) -> None:
    sample = (Path(__file__).parent.parent / "data" / "openspiel" / "sample.jsonl").read_bytes().splitlines()
    hostile = orjson.loads(sample[0])
    hostile["returns"] = [1e308, -1e308, 1e308, -1e308]
    source = tmp_path / "hands.jsonl"
    source.write_bytes(b"\n".join([orjson.dumps(hostile), *sample[1:3]]) + b"\n")
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(source), "--db", str(db), "--json")
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    summary = orjson.loads(proc.stdout)
    assert summary["lines"] == 3 and summary["games_loaded"] + summary["quarantined"] == 3
    con = duckdb.connect(str(db), read_only=True)
    try:
        rules = con.execute("select message from violations where rule = 'openspiel_returns'").fetchall()
    finally:
        con.close()
    assert len(rules) == 1 and "returns" in rules[0][0]


def test_egn_initial_score_out_of_range(tmp_path: Path) -> None:
    document = json.loads(EGN.read_text())
    document["metadata"]["initialScore"] = [2**63, 0]
    path = tmp_path / "huge.egn"
    path.write_text(json.dumps(document))
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(path), "--db", str(db), "--json")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    summary = orjson.loads(proc.stdout)
    assert summary["lines"] == summary["games_loaded"] + summary["quarantined"]
    validate = run_cli("validate", str(path), "--json")
    assert validate.returncode == 1 and "Traceback" not in validate.stderr


@pytest.mark.parametrize(
    ("option", "value", "valid"),
    [
        ("points_make", 100, True),
        ("points_make", 128, False),
        ("target", 10_000, True),
        ("target", 2**31, False),
    ],
)
def test_the_schema_bounds_rule_values(option: str, value: int, valid: bool) -> None:
    record = _game()
    record["rules"] = {**record.get("rules", {}), option: value}
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(record))
    assert (not errors) == valid
