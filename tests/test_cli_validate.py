"""``tricklog validate`` through the real entry point: exit codes, outputs, inputs."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from cli import run
from euchre_fixtures import CALLED_HAND, ORDERED_HAND, game, rotation_game

CLEAN = [rotation_game(3, game_id="clean-1"), game(ORDERED_HAND, game_id="clean-2")]


def renege_game() -> dict[str, Any]:
    hand = copy.deepcopy(CALLED_HAND)
    hand["tricks"][1] = [[0, "AD"], [1, "QS"], [2, "KD"], [3, "TD"]]
    hand["tricks"][2] = [[0, "JD"], [1, "9D"], [2, "QD"], [3, "JH"]]
    return game(hand, game_id="bad-1")


def jsonl(*records: dict[str, Any]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def test_clean_file_exits_0_with_a_readable_summary(tmp_path: Path) -> None:
    result = run("validate", write(tmp_path / "clean.jsonl", jsonl(*CLEAN)))
    assert result.returncode == 0, result.stderr
    assert "2 games, 4 hands in 1 file(s): clean" in result.stdout


def test_violations_exit_1_and_are_shown(tmp_path: Path) -> None:
    path = write(tmp_path / "mixed.jsonl", jsonl(*CLEAN, renege_game()))
    result = run("validate", path)
    assert result.returncode == 1
    assert "renege" in result.stdout
    assert "seat 1 played QS on a diamond (trump) lead while holding 9D" in result.stdout


def test_json_summary(tmp_path: Path) -> None:
    path = write(tmp_path / "mixed.jsonl", jsonl(*CLEAN, renege_game(), renege_game()))
    result = run("validate", path, "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "files": 1,
        "games": 4,
        "hands": 6,
        "games_with_violations": 2,
        "violations": 3,
        "by_code": {"duplicate_game": 1, "renege": 2},
        "hands_without_full_deal": 0,
        "unknown_fields": {},
    }


def test_what_could_not_be_checked_is_said(tmp_path: Path) -> None:
    no_deal = copy.deepcopy(CALLED_HAND)
    del no_deal["deal"]
    record = game(no_deal, game_id="no-deal", site_rating=1500)
    path = write(tmp_path / "partial.jsonl", jsonl(record, *CLEAN))
    summary = json.loads(run("validate", path, "--json").stdout)
    # The hand is the clean games' first hand without its deal: the same play, a copy;
    # so are clean-1's hands 1 and 2, its hand 0 dealt from the next seats on.
    assert (summary["by_code"], summary["hands_without_full_deal"]) == ({"duplicate_hand": 3}, 1)
    assert summary["unknown_fields"] == {"site_rating": 1}
    text = run("validate", path).stdout
    assert "1 hands have no full deal" in text and "site_rating (1)" in text


def test_violations_file_has_every_field(tmp_path: Path) -> None:
    path = write(tmp_path / "mixed.jsonl", jsonl(*CLEAN, renege_game()) + b"not json\n")
    out = tmp_path / "v.jsonl"
    result = run("validate", path, "--violations", str(out), "--json")
    assert result.returncode == 1
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows == [
        {
            "game_id": "bad-1",
            "file": path,
            "line": 3,
            "hand": 0,
            "trick": 1,
            "seat": 1,
            "path": "hands[0].tricks[1][1]",
            "code": "renege",
            "message": "hand 0, trick 1: seat 1 played QS on a diamond (trump) lead while holding 9D",
        },
        {
            "game_id": None,
            "file": path,
            "line": 4,
            "hand": None,
            "trick": None,
            "seat": None,
            "path": "",
            "code": "malformed_json",
            "message": rows[1]["message"],
        },
    ]
    assert rows[1]["message"].startswith("line 4 is not valid JSON")


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_compressed_input(tmp_path: Path, suffix: str) -> None:
    data = jsonl(*CLEAN, renege_game())
    packed = gzip.compress(data) if suffix.endswith("gz") else zstandard.ZstdCompressor().compress(data)
    result = run("validate", write(tmp_path / f"games{suffix}", packed), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["by_code"] == {"renege": 1}


def test_stdin(tmp_path: Path) -> None:
    result = run("validate", "-", "--json", stdin=jsonl(*CLEAN, renege_game()))
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert (summary["games"], summary["by_code"]) == (3, {"renege": 1})


def test_garbage_lines_are_malformed_json_and_the_run_goes_on(tmp_path: Path) -> None:
    garbage = b'\x00\x01garbage\n[1, 2, 3]\n\xff\xfe not utf-8\n"a string"\n{"format": \n'
    path = write(tmp_path / "garbage.jsonl", garbage + jsonl(*CLEAN))
    result = run("validate", path, "--json")
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert summary["by_code"] == {"malformed_json": 5}
    assert summary["games"] == 2


def test_missing_file_is_exit_2_without_traceback(tmp_path: Path) -> None:
    result = run("validate", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"tricklog: {tmp_path / 'nope.jsonl'}: cannot open: No such file or directory"
    )
    assert "Traceback" not in result.stderr


def test_corrupt_compression_is_exit_2(tmp_path: Path) -> None:
    result = run("validate", write(tmp_path / "broken.jsonl.gz", b"\x1f\x8b\x08\x00 definitely not gzip"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr
    result = run("validate", write(tmp_path / "broken.jsonl.zst", b"\x28\xb5\x2f\xfd not zstd at all"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr


def test_usage_errors_are_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path / "clean.jsonl", jsonl(*CLEAN))
    assert run("validate", path, "--from", "pdf").returncode == 2
    assert run("validate").returncode == 2
    assert run("validate", path, "--no-such-option").returncode == 2


def test_a_folder_stands_for_its_input_files(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    write(folder / "a.jsonl", jsonl(*CLEAN))
    write(folder / "b.jsonl.gz", gzip.compress(jsonl(renege_game())))
    write(folder / "notes.txt", b"not an input")
    by_folder = json.loads(run("validate", str(folder), "--json").stdout)
    one_by_one = json.loads(
        run("validate", str(folder / "a.jsonl"), str(folder / "b.jsonl.gz"), "--json").stdout
    )
    assert by_folder == one_by_one and by_folder["files"] == 2
    loaded = run("load", str(folder), "--db", str(tmp_path / "w.duckdb"), "--json")
    assert json.loads(loaded.stdout)["games_loaded"] == 3
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("validate", str(empty))
    assert result.returncode == 2 and "a folder with no input files" in result.stderr


def test_games_without_an_id_at_the_same_line_of_two_files_are_two_games(tmp_path: Path) -> None:
    """Such games are named by their line; the same line number in another file is
    another game, so a copy between them is a copy (it went unseen before)."""
    anonymous = {k: v for k, v in CLEAN[0].items() if k != "game_id"}
    first = write(tmp_path / "a.jsonl", jsonl(anonymous))
    second = write(tmp_path / "b.jsonl", jsonl(anonymous))
    result = run("validate", first, second, "--json")
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["by_code"].get("duplicate_game") == 1
