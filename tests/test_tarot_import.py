"""TarotClub's saved played deals, read as tarot/1 records.

The fixtures are written in the shape of TarotClub's ``Deal::GenerateEndDealLog``
(file version 3): a taker's handle, a defender's handle, a slam announced and
made with the Excuse led to the last trick, and an Excuse played to a last
trick its own side wins (where TarotClub and the FFT differ).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.games.tarot.importers.tarotclub import (
    deal_to_record,
    game_id_for,
    looks_like_tarotclub,
    parse_card,
    read_tarotclub,
)
from pipeline.games.tarot.replay import replay_game
from pipeline.games.tarot.rules import Rules
from pipeline.games.tarot.state import TarotReplay

FIXTURES = Path(__file__).parent / "fixtures" / "tarot"


def imported(name: str, rules: Rules | None = None) -> tuple[dict[str, Any], TarotReplay]:
    items = list(read_tarotclub(str(FIXTURES / f"tarotclub-{name}.json")))
    assert len(items) == 1 and items[0].violations == []
    record = items[0].record
    assert record is not None
    return record, replay_game(record, rules)


def test_sniffing() -> None:
    for path in FIXTURES.glob("tarotclub-*.json"):
        assert looks_like_tarotclub(path.read_bytes()[:512])
    assert not looks_like_tarotclub((FIXTURES / "one-hand.json").read_bytes()[:512])
    assert not looks_like_tarotclub(b"[Event]\n")


def test_cards() -> None:
    assert parse_card("00-T") == 77 and parse_card("01-T") == 56 and parse_card("14-C") == 55
    for bad in ("22-T", "15-H", "00-S", "1-H", "01-X"):
        with pytest.raises(ValueError):
            parse_card(bad)


def test_taker_handle() -> None:
    record, game = imported("handle")
    assert game.violations == []
    hand = game.hands[0]
    assert (hand.contract, hand.taker, hand.poignees) == ("garde", 2, [(2, "simple")])
    assert (hand.taker_points, hand.bouts, hand.made, hand.scores) == (69.0, 3, True, (-136, -136, 408, -136))
    assert record["origin"]["format"] == "tarotclub" and record["players"] == [
        "South",
        "East",
        "North",
        "West",
    ]
    assert record["hands"][0]["ecart"] and len(record["hands"][0]["ecart"]) == 6


def test_defence_handle_goes_to_the_defender_who_holds_it() -> None:
    _, game = imported("defence-handle")
    assert game.violations == []
    hand = game.hands[0]
    assert (hand.taker, hand.poignees, hand.made) == (2, [(1, "simple")], False)
    # the taker is down by 1: -(25 + 1) and the defence's poignée, 20, to the defence
    assert hand.contract_score == -(25 + 1) - 20


def test_slam_announced_and_made_with_the_excuse_last() -> None:
    record, game = imported("slam")
    assert game.violations == []
    hand = game.hands[0]
    assert record["hands"][0]["announcements"] == [{"seat": 0, "type": "chelem"}]
    assert (hand.contract, hand.chelem_announced, hand.chelem_made, hand.taker_tricks) == (
        "garde_sans",
        True,
        True,
        18,
    )
    assert hand.tricks[17].plays[0] == (0, 77) and hand.tricks[17].winner == 0  # the Excuse led, and it wins
    assert (hand.taker_points, hand.bouts) == (91.0, 3)
    assert hand.contract_score == (25 + 55) * 4 + 400


def test_excuse_on_the_last_trick_tarotclub_and_fft_differ() -> None:
    record, game = imported("excuse-last")
    assert record["rules"] == {"preset": "fft", "excuse_last_trick": "lost", "petit_au_bout_excuse_by": "any"}
    assert game.violations == []
    last = game.hands[0].tricks[17]
    owner = last.seat_of(77)
    assert owner is not None and last.winner is not None and last.winner != game.hands[0].taker
    # TarotClub: the Excuse is lost at the last trick even to its own side
    hand = game.hands[0]
    assert (hand.excuse_owner_side, hand.taker_points, hand.bouts, hand.made) == ("taker", 49.0, 2, True)
    # FFT: it goes to the side that wins the trick, here its own
    fft = replay_game(record, Rules()).hands[0]
    assert (fft.excuse_owner_side, fft.taker_points, fft.bouts, fft.made) == ("defence", 45.0, 1, False)


def test_the_deal_is_rebuilt_from_the_play() -> None:
    record, game = imported("handle")
    hand = record["hands"][0]
    assert sorted(len(cards) for cards in hand["deal"]) == [18, 18, 18, 18]
    assert game.hands[0].deal_known
    assert hand["bids"] == [
        {
            "seat": (hand["dealer"] + 1 + i) % 4,
            "call": "garde" if (hand["dealer"] + 1 + i) % 4 == 2 else "pass",
        }
        for i in range(4)
    ]


def test_same_deal_same_id_and_json_lines_of_deals(tmp_path: Path) -> None:
    deals = [json.loads(p.read_text()) for p in sorted(FIXTURES.glob("tarotclub-*.json"))]
    lines = tmp_path / "deals.jsonl"
    lines.write_bytes(b"\n".join(json.dumps(d).encode() for d in deals) + b"\n{not json\n")
    items = list(read_tarotclub(str(lines)))
    assert [i.record is not None for i in items] == [True] * len(deals) + [False]
    assert items[-1].violations[0].code == "malformed_json" and items[-1].violations[0].line == len(deals) + 1
    ids = {i.record["game_id"] for i in items if i.record}
    assert len(ids) == len(deals) and all(i.startswith("tarotclub-") for i in ids)
    assert game_id_for({"a": 1, "b": 2}) == game_id_for({"b": 2, "a": 1})


def test_the_id_is_the_deals_content_not_its_formatting(tmp_path: Path) -> None:
    """The same deal compact, indented with CRLF line endings, its keys reordered,
    and as a line of JSON Lines: one id (the raw bytes' digest gave four)."""
    deal = json.loads((FIXTURES / "tarotclub-handle.json").read_text())
    reordered = dict(reversed(list(deal.items())))
    reordered["deal_info"] = dict(reversed(list(deal["deal_info"].items())))
    files = {
        "compact.json": json.dumps(deal, separators=(",", ":")).encode(),
        "crlf.json": json.dumps(deal, indent=4).replace("\n", "\r\n").encode(),
        "reordered.json": json.dumps(reordered, indent=1).encode(),
        "lines.jsonl": b"\n" + json.dumps(reordered).encode() + b"  \n",
    }
    ids = set()
    for name, text in files.items():
        (tmp_path / name).write_bytes(text)
        (item,) = read_tarotclub(str(tmp_path / name))
        assert item.record is not None, item.violations
        ids.add(item.record["game_id"])
    assert ids == {game_id_for(deal)}


def indented_deal() -> bytes:
    return json.dumps(json.loads((FIXTURES / "tarotclub-handle.json").read_text()), indent=2).encode()


@pytest.mark.parametrize(
    "text",
    [
        indented_deal()[: len(indented_deal()) // 2],  # cut in half
        indented_deal().replace(b'"Guard"', b'"Garde\xe9"'),  # Latin-1, not UTF-8
        indented_deal().replace(b"\n", b"\r\n")[:-40],  # CRLF, cut short
        b"[\n" + indented_deal() + b"\n",  # a list never closed
    ],
    ids=["truncated", "latin-1", "crlf-truncated", "open-list"],
)
def test_a_broken_document_is_one_malformed_json(text: bytes, tmp_path: Path) -> None:
    """A deal written over many lines that is not JSON is one violation for the
    file (its lines were each reported, 16 or 33 of them), keeping its bytes."""
    path = tmp_path / "deal.json"
    path.write_bytes(text)
    (item,) = read_tarotclub(str(path))
    assert item.record is None and item.raw == text and item.line is None
    (violation,) = item.violations
    assert (violation.code, violation.file, violation.line) == ("malformed_json", str(path), None)
    assert violation.message.startswith(f"{path} is not valid JSON")


def test_json_lines_in_a_json_file_are_still_read_line_by_line(tmp_path: Path) -> None:
    deal = json.loads((FIXTURES / "tarotclub-handle.json").read_text())
    path = tmp_path / "deals.json"
    path.write_bytes(
        b"{not json\n" + json.dumps(deal).encode() + b"\n" + json.dumps(deal)[:30].encode() + b"\n"
    )
    assert [(i.line, [v.code for v in i.violations]) for i in read_tarotclub(str(path))] == [
        (1, ["malformed_json"]),
        (2, []),
        (3, ["malformed_json"]),
    ]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: d["deal_info"].update(number_of_players=5), "unsupported"),
        (lambda d: d["deal_info"].update(contract="Guard twice"), "schema"),
        (lambda d: d["deal_info"].update(taker="Nowhere"), "schema"),
        (lambda d: d["tricks"].__setitem__(3, "01-H;02-H;03-H"), "deck"),
        (lambda d: d["tricks"].__setitem__(3, "01-H;02-H;03-H;99-Z"), "bad_card"),
    ],
)
def test_unreadable_deals_are_one_violation(change: Any, code: str) -> None:
    deal = json.loads((FIXTURES / "tarotclub-handle.json").read_text())
    change(deal)
    record, problems = deal_to_record(deal, game_id="x")
    assert record is None and [v.code for v in problems] == [code]


def test_a_card_played_twice_is_one_violation() -> None:
    deal = json.loads((FIXTURES / "tarotclub-handle.json").read_text())
    first = deal["tricks"][0].split(";")
    second = deal["tricks"][1].split(";")
    second[1] = first[1]
    deal["tricks"][1] = ";".join(second)
    record, problems = deal_to_record(deal, game_id="x")
    assert record is None
    assert [(v.code, v.path, v.hand) for v in problems] == [("not_held", "tricks[1]", 0)]
    assert problems[0].message == f"trick 1: {problems[0].message.split()[2]} was already played in trick 0"


def test_a_short_deal_is_one_violation() -> None:
    deal = json.loads((FIXTURES / "tarotclub-handle.json").read_text())
    deal["tricks"].pop()
    record, problems = deal_to_record(deal, game_id="x")
    assert record is None and [v.code for v in problems] == ["deck"]


def test_a_folder_of_deals_is_read_with_from_tarotclub(tmp_path: Path) -> None:
    """``.json`` is too common an ending to read a folder's files by, unless
    ``--from tarotclub`` says they are deals; without it the refusal says so."""
    from cli import run

    from pipeline.sources import expand_inputs

    deals = tmp_path / "deals"
    deals.mkdir()
    for name in ("handle", "defence-handle", "slam"):
        (deals / f"{name}.json").write_bytes((FIXTURES / f"tarotclub-{name}.json").read_bytes())
    refused = run("validate", str(deals))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"tricklog: {deals}: a folder with no input files (.jsonl, .egn, .emn; each also .gz, .zst);"
        " to read its .json files as tarotclub, give --from tarotclub\n"
    )
    last = json.loads((FIXTURES / "tarotclub-excuse-last.json").read_bytes())
    (deals / "more.jsonl").write_bytes(json.dumps(last).encode() + b"\n")
    (deals / "games.egn").write_text("not a deal: not read as one")
    (deals / "notes.txt").write_text("not read")
    assert [Path(p).name for p in expand_inputs([str(deals)], "tarotclub")] == [
        "defence-handle.json",
        "handle.json",
        "more.jsonl",
        "slam.json",
    ]
    checked = run("validate", "--from", "tarotclub", str(deals), "--json")
    assert checked.returncode == 0, checked.stderr
    summary = json.loads(checked.stdout)
    assert (summary["files"], summary["games"], summary["violations"]) == (4, 4, 0)
    loaded = run("load", "--from", "tarotclub", str(deals), "--db", str(tmp_path / "w.duckdb"), "--json")
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout)["games_loaded"] == 4
