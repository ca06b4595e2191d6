"""EGN / EMN import: conversion to euchre/1, replay, and what is refused.

The fixtures in ``tests/fixtures/egn/`` were written from the EGN schema v1
(``schemas/egn-schema-v1.json``) with legal play; the corrupted ones differ
from a legal game by one card.  Round trips are checked against an independent
reading of the EGN replayer rules (``docs/replayer-logic.md``), not against the
importer's own seat logic.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from egn_encoder import encode_for_tests

from pipeline.games.euchre.importers.egn import looks_like_egn, read_egn
from pipeline.games.euchre.importers.egn_condensed import CondensedUnsupported, decode_condensed
from pipeline.games.euchre.replay import replay_game
from pipeline.games.euchre.rules import RULE_MAX
from pipeline.sources import SourceItem
from pipeline.validate import check_games

FIXTURES = Path(__file__).parent / "fixtures" / "egn"
VALID = [
    "standard.egn",
    "left-of-loner.egn",
    "lone-defender-lead.egn",
    "condensed.egn",
    "match.emn",
    "editor-v1.egn",
]


def items(name: str) -> list[SourceItem]:
    return list(read_egn(str(FIXTURES / name)))


def codes(item: SourceItem) -> list[str]:
    """Every violation of an item: found on import, then by the replay."""
    found = [v.code for v in item.violations]
    if item.record is not None:
        found += [v.code for v in replay_game(item.record).violations]
    return found


def load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return document


def read_items(document: dict[str, Any]) -> list[SourceItem]:
    """The items of an EGN document written to a temporary file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.egn"
        path.write_text(json.dumps(document))
        return list(read_egn(str(path)))


def read_one(document: dict[str, Any]) -> dict[str, Any]:
    (item,) = read_items(document)
    assert item.record is not None
    return item.record


# --------------------------------------------------------------------------
# The EGN rules, read independently from docs/replayer-logic.md

_VALUES = {"A": 14, "K": 13, "Q": 12, "J": 11, "T": 10, "9": 9}
_LEFT = {"d": "h", "h": "d", "s": "c", "c": "s"}


def _strength(card: str, led: str, trump: str) -> int:
    rank, suit = card[0], card[1]
    if rank == "J" and suit == trump:
        return 100
    if rank == "J" and suit == _LEFT[trump]:
        return 99
    if suit == trump:
        return 80 + _VALUES[rank]
    return 40 + _VALUES[rank] if suit == led else 0


def egn_rules_winners(deal: dict[str, Any], left_of_loner: bool) -> list[int]:
    """Trick winners as the EGN baseline replayer computes them."""
    dealer, upcard = deal["initialState"]["dealer"], deal["initialState"]["upCard"]
    bidding, play = deal["phases"]
    index = next(i for i, c in enumerate(bidding["calls"]) if c != "Pass")
    maker = (dealer + 1 + index) % 4
    trump = upcard[1] if index < 4 else bidding["calls"][index]
    out = (maker + 2) % 4 if bidding["isAlone"] else None
    if out is not None and left_of_loner:
        lead = (maker + 1) % 4
    elif out is not None and maker == (dealer + 3) % 4:
        lead = (dealer + 2) % 4
    else:
        lead = (dealer + 1) % 4
    winners = []
    for trick in play["tricks"]:
        seats = [lead]
        while len(seats) < len(trick):
            nxt = (seats[-1] + 1) % 4
            seats.append(nxt if nxt != out else (nxt + 1) % 4)
        best = max(range(len(trick)), key=lambda i: _strength(trick[i], trick[0][1], trump))
        lead = seats[best]
        winners.append(lead)
    return winners


# --------------------------------------------------------------------------
# Sniffing


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_every_fixture_sniffs_as_egn(name: str) -> None:
    assert looks_like_egn((FIXTURES / name).read_bytes()[:1024])


def test_a_native_record_does_not_sniff_as_egn() -> None:
    assert not looks_like_egn(b'{"format":"euchre/1","game_id":"g","fileType":"x"}')
    assert not looks_like_egn(b"not json at all")


# --------------------------------------------------------------------------
# Valid games: no false alarm, and the EGN rules' winners and scores


@pytest.mark.parametrize("name", VALID)
def test_valid_games_replay_without_a_violation(name: str) -> None:
    for item in items(name):
        assert item.record is not None
        assert codes(item) == []


@pytest.mark.parametrize("name", ["standard.egn", "partial.egn"])
def test_round_trip_gives_the_egn_rules_winners(name: str) -> None:
    (item,) = items(name)
    assert item.record is not None
    replay = replay_game(item.record)
    for deal, hand in zip(load(name)["deals"], replay.hands, strict=True):
        assert hand.winners == egn_rules_winners(deal, left_of_loner=False)


def test_round_trip_left_of_loner_and_a_lone_defender() -> None:
    (item,) = items("left-of-loner.egn")
    assert item.record is not None
    replay = replay_game(item.record)
    deals = load("left-of-loner.egn")["deals"]
    # Deals 0 and 2 are plain loners, led from the loner's left.
    for k in (0, 2):
        assert replay.hands[k].winners == egn_rules_winners(deals[k], left_of_loner=True)
        maker = replay.hands[k].maker
        assert maker is not None and replay.hands[k].leaders[0] == (maker + 1) % 4
    # Deal 1: both alone; the lone defender (seat 3) leads, two seats play.
    assert replay.hands[1].defender_alone == 3
    assert replay.hands[1].leaders[0] == 3
    assert {s for trick in item.record["hands"][1]["tricks"] for s, _ in trick} == {2, 3}
    assert list(replay.score) == load("left-of-loner.egn")["metadata"]["finalScore"]


def test_a_lone_defender_alone_leads_from_its_left_under_left_of_loner() -> None:
    """LEFT_OF_LONER is written ``alone_lead: left_of_alone``, which seats trick 1
    from the left of whoever is alone, a lone defender too (euchre/1's rule)."""
    (item,) = items("lone-defender-lead.egn")  # dealer 3, seat 0 names trump, seat 1 defends alone
    assert item.record is not None
    hand = item.record["hands"][0]
    assert (hand["dealer"], hand["defender_alone"], item.record["rules"]["alone_lead"]) == (
        3,
        1,
        "left_of_alone",
    )
    assert hand["tricks"][0][0][0] == 2  # left of seat 1; seat 0, left of the dealer, would be wrong
    assert codes(item) == []


def test_loner_left_of_dealer_skips_the_sitting_out_partner() -> None:
    (item,) = items("standard.egn")
    assert item.record is not None
    hand = item.record["hands"][2]  # dealer 1, seat 0 alone: seat 2 (left of dealer) sits out
    assert hand["dealer"] == 1 and hand["bids"][-1] == {"seat": 0, "call": "order", "alone": True}
    assert hand["tricks"][0][0][0] == 3


def test_fields_map_onto_the_record() -> None:
    (item,) = items("standard.egn")
    record = item.record
    assert record is not None
    assert record["game_id"] == "std-1" and record["players"] == ["Ana", "Ben", "Cleo", "Dev"]
    assert record["started_at"] == "2026-05-17T19:00:00Z"
    assert record["origin"] == {"format": "egn", "file": item.file, "game_id": "std-1", "deals": [0, 1, 2, 3]}
    assert record["final_score"] == load("standard.egn")["metadata"]["finalScore"]
    first, second, _, fourth = record["hands"]
    assert first["deal"][0] == ["JS", "AD", "AS", "AH", "QS"]  # playerCards, our tokens
    assert first["discard"] == "9H"  # discard present
    assert fourth["discard"] == "??"  # ordered up, discard absent: unknown, not missing
    assert "discard" not in second  # named in round two
    assert second["bids"][4:] == [{"seat": 1, "call": "pass"}, {"seat": 2, "call": "C"}]


@pytest.mark.parametrize(
    ("change", "path", "phrase"),
    [
        ({"date": 20260517}, "metadata.date", "must be a date as text, not 20260517: it was left out"),
        ({"ruleset": "std"}, "metadata.ruleset", "must be an object, not 'std': the default rules were used"),
        ({"players": [f"p{i}" for i in range(10)]}, "metadata.players", "10 players are named"),
    ],
)
def test_metadata_read_otherwise_is_said(change: dict[str, Any], path: str, phrase: str) -> None:
    """A date that is no text was dropped, a ruleset that is no object ignored and
    ten players cut to four, each without a word (exit 0)."""
    document = load("standard.egn")
    document["metadata"].update(change)
    (item,) = read_items(document)
    assert item.record is not None
    (said,) = [v for v in item.violations if v.code == "schema"]
    assert said.path == path and phrase in said.message


def test_ruleset_maps_onto_rule_options() -> None:
    (item,) = items("left-of-loner.egn")
    assert item.record is not None
    assert item.record["rules"] == {
        "preset": "cards4net",
        "deck": 24,
        "stick_the_dealer": False,
        "alone_lead": "left_of_alone",
        "points_alone_march": 5,
        "points_alone_euchre": 3,
        "defend_alone": True,
        "target": 10,
        "points_defender_alone_euchre": 4,
        "points_defender_alone_march": 4,
    }


def test_winning_score_0_keeps_the_ruleset_with_the_largest_target() -> None:
    """A fixed number of deals has no target; euchre/1 cannot say "none", so the
    largest target the record allows stands in.  1,000,000 was refused, and the
    whole ruleset with it (replayed with the default preset: stick the dealer)."""
    document = load("left-of-loner.egn")
    document["metadata"]["ruleset"]["winning_score"] = 0
    (item,) = read_items(document)
    assert item.record is not None
    rules = item.record["rules"]
    assert rules["target"] == RULE_MAX["target"] and rules["stick_the_dealer"] is False
    assert codes(item) == []


def test_a_game_with_no_deals_still_carries_its_origin() -> None:
    document = load("standard.egn")
    document["deals"] = []
    (item,) = read_items(document)
    assert item.record is not None and item.record["hands"] == []
    assert item.record["origin"] == {"format": "egn", "file": item.file, "game_id": "std-1", "deals": []}


def test_initial_score_starts_the_running_score() -> None:
    (item,) = items("partial.egn")
    assert item.record is not None
    metadata = load("partial.egn")["metadata"]
    assert item.record["initial_score"] == metadata["initialScore"] == [7, 8]
    replay = replay_game(item.record)
    assert replay.violations == []
    assert list(replay.score) == metadata["finalScore"]


# --------------------------------------------------------------------------
# Corrupted games: the right code, located in the source


def test_a_renege_is_reported_at_its_deal() -> None:
    (item,) = items("renege.egn")
    assert item.record is not None
    (violation,) = replay_game(item.record).violations
    assert violation.code == "renege"
    assert violation.message == "hand 0, trick 2: seat 0 played JH on a spade lead while holding KS"
    (located,) = next(check_games([item])).violations
    assert (located.file, located.code) == (item.file, "renege")
    assert located.message.startswith("deal 0 of the source: hand 0, trick 2:")


def test_a_card_played_twice_is_not_held() -> None:
    (item,) = items("played-twice.egn")
    assert codes(item) == ["not_held"]


def test_unknown_cards_map_to_unknown_and_an_unknown_play_is_unsupported() -> None:
    (item,) = items("unknown-cards.egn")
    record = item.record
    assert record is not None
    assert record["hands"][0]["discard"] == "??"
    assert record["hands"][0]["deal"][1][2] == "??"  # "Xc"
    assert record["hands"][1]["deal"][3] == ["??"] * 5  # the loner's partner, not recorded
    (unsupported,) = item.violations
    assert unsupported.code == "unsupported" and unsupported.rule == "unknown_card"
    assert "deal 2: trick 3 holds an unknown card" in unsupported.message
    assert record["game_id"] == "unknown-1@deals-0-1" and "final_score" not in record
    assert codes(item) == ["unsupported"]


def test_an_unfilled_kitty_is_unrecorded_and_player_cards_are_read() -> None:
    # The EGN 1.0 editor writes "kitty": [] or ["", "", ""] when the kitty is
    # unknown, and "player_cards" for the hands (here only a loner's partner).
    (item,) = items("editor-v1.egn")
    record = item.record
    assert record is not None
    first, second = record["hands"]
    assert "kitty" not in first and "kitty" not in second
    assert "deal" not in first  # four empty hands: nothing recorded
    assert second["deal"][2] == ["AC", "KC", "QC", "JC", "AD"]
    assert second["deal"][0] == ["??"] * 5
    assert codes(item) == []


def test_an_empty_card_string_is_unknown() -> None:
    document = load("editor-v1.egn")
    document["deals"][1]["initialState"]["kitty"] = ["", "Qh", ""]
    assert read_one(document)["hands"][1]["kitty"] == ["??", "QH", "??"]


def test_initial_lead_seats_the_first_trick_and_the_replay_judges_it() -> None:
    (item,) = items("initial-lead.egn")
    assert item.record is not None
    assert item.record["hands"][0]["tricks"][0][0] == [2, "KD"]
    (violation,) = replay_game(item.record).violations
    assert violation.code == "lead"
    assert violation.message == "hand 0, trick 0: seat 2 led; seat 1 leads first under these rules"


def test_an_initial_lead_outside_the_play_is_refused() -> None:
    document = load("editor-v1.egn")
    document["deals"][1]["phases"][1]["initialLead"] = 2  # the loner's partner sits out
    (unsupported,) = read_items(document)[0].violations
    assert (unsupported.code, unsupported.rule) == ("schema", "schema")
    assert "initialLead 2 is not a seat in play" in unsupported.message


def test_an_unsupported_deal_cuts_the_game_into_checked_stretches() -> None:
    first, second = items("no-trump.egn")
    assert [v.rule for v in first.violations] == ["no_trump"]
    assert first.violations[0].path == "deals[1]"
    assert first.record is not None and second.record is not None
    assert first.record["origin"]["deals"] == [0] and second.record["origin"]["deals"] == [2]
    assert second.record["game_id"] == "no-trump-1@deals-2-2"
    assert codes(second) == []


def test_a_rule_that_spoils_every_deal_gives_no_record() -> None:
    (item,) = items("go-under.egn")
    assert item.record is None
    assert [(v.code, v.rule) for v in item.violations] == [("unsupported", "go_under")]


def test_a_broken_document_keeps_its_bytes() -> None:
    (item,) = items("malformed.egn")
    assert item.record is None and item.raw == (FIXTURES / "malformed.egn").read_bytes()
    assert [v.code for v in item.violations] == ["malformed_json"]
    assert item.violations[0].file == item.file


def test_json_that_is_not_egn_is_a_schema_violation(tmp_path: Path) -> None:
    path = tmp_path / "x.egn"
    path.write_text('{"format": "euchre/1"}')
    (item,) = read_egn(str(path))
    assert item.record is None and [v.code for v in item.violations] == ["schema"]


def test_game_id_defaults_to_the_content_not_the_file_name(tmp_path: Path) -> None:
    document = load("renege.egn")
    del document["metadata"]["gameId"]
    ids = []
    for name in ("Friday night.egn", "Friday night (2).egn"):
        path = tmp_path / name
        path.write_text(json.dumps(document))
        (item,) = read_egn(str(path))
        assert item.record is not None
        ids.append(item.record["game_id"])
    assert ids[0] == ids[1] and ids[0].startswith("egn-") and "Friday" not in ids[0]


def test_more_deals_than_num_deals_is_game_over(tmp_path: Path) -> None:
    document = load("standard.egn")
    document["metadata"]["ruleset"] = {"winning_score": 0, "num_deals": 3}
    path = tmp_path / "fixed.egn"
    path.write_text(json.dumps(document))
    (item,) = read_egn(str(path))
    assert [v.code for v in item.violations] == ["game_over"]
    assert item.record is not None and item.record["rules"]["target"] >= 1000
    assert (item.violations[0].hand, item.violations[0].seat) == (3, None)  # the first deal too many


def test_every_hand_after_the_end_names_the_score_it_ended_at() -> None:
    """standard.egn runs 0-1, 0-3, 0-5, 0-6: to 3 it ends in hand 1 at 0-3.  The
    second hand after the end said 'ended at 0-5', the score run on past the end."""
    document = load("standard.egn")
    document["metadata"]["ruleset"] = {"winning_score": 3}
    del document["metadata"]["finalScore"]
    (item,) = read_items(document)
    assert item.record is not None
    over = [v for v in replay_game(item.record).violations if v.code == "game_over"]
    assert [(v.hand, v.message) for v in over] == [
        (2, "hand 2: recorded after the game ended at 0-3 in hand 1"),
        (3, "hand 3: recorded after the game ended at 0-3 in hand 1"),
    ]


def test_a_canadian_loner_fault_names_the_dealers_partner(tmp_path: Path) -> None:
    document = load("renege.egn")
    document["metadata"].setdefault("ruleset", {})["canadian"] = True
    path = tmp_path / "canadian.egn"
    path.write_text(json.dumps(document))
    (item,) = read_egn(str(path))
    (v,) = [v for v in item.violations if v.rule == "canadian_loner"]
    assert item.record is not None
    dealer = item.record["hands"][0]["dealer"]
    assert (v.code, v.hand, v.trick, v.seat) == ("bid_illegal", 0, None, (dealer + 2) % 4)


def test_more_than_four_players_is_unsupported(tmp_path: Path) -> None:
    document = load("standard.egn")
    document["metadata"]["ruleset"] = {"num_players": 6}
    path = tmp_path / "six.egn"
    path.write_text(json.dumps(document))
    (item,) = read_egn(str(path))
    assert item.record is None and [v.rule for v in item.violations] == ["num_players"]


# --------------------------------------------------------------------------
# Matches and condensed deals


def test_a_match_yields_one_item_per_game() -> None:
    games = items("match.emn")
    assert [g.line for g in games] == [0, 1]
    ids = [g.record["game_id"] for g in games if g.record]
    # the second game has no gameId: its id comes from its content, not the file name
    assert ids[0] == "m-g0" and ids[1].startswith("egn-") and "match" not in ids[1]
    assert [g.record["players"] for g in games if g.record][1] == ["Ana", "Ben", "Eve", "Dev"]


def test_condensed_deals_decode_to_the_same_game() -> None:
    (item,) = items("condensed.egn")
    assert item.record is not None
    hands = item.record["hands"]
    assert hands[0]["discard"] == "??"  # version 1 does not record the discard
    assert hands[2]["discard"] == "9C" and hands[2]["bids"][-1]["alone"] is True  # version 3 does
    assert list(replay_game(item.record).score) == load("condensed.egn")["metadata"]["finalScore"]


def test_a_legacy_condensed_deal_is_reported_and_skipped() -> None:
    first, second = items("condensed-legacy.egn")
    assert [(v.code, v.rule) for v in first.violations] == [("unsupported", "condensed_v0")]
    assert "deal 1" in first.violations[0].message
    assert codes(second) == []


def test_condensed_round_two_and_defender() -> None:
    text = encode_for_tests(
        dealer=1, upcard="9h", calls=[0, 0, 0, 0, 0, 3], alone=True, tricks=[], version=2, defender=0
    )
    deal = decode_condensed(text, 4)
    bidding = deal["phases"][0]
    assert deal["dealNumber"] == 4 and deal["initialState"] == {"dealer": 1, "upCard": "9h"}
    assert bidding["calls"] == ["Pass"] * 5 + ["d"] and bidding["aloneDefender"] == 0


@pytest.mark.parametrize("text", ["", "!!!", "EMhNCSk3RAnr1CNj6TKA_w"])
def test_a_broken_condensed_deal_is_refused(text: str, tmp_path: Path) -> None:
    document = load("condensed.egn")
    document["deals"] = [text]
    path = tmp_path / "broken.egn"
    path.write_text(json.dumps(document))
    (item,) = read_egn(str(path))
    assert item.record is None
    assert [v.code for v in item.violations] == ["unsupported"]


def test_alternative_lines_are_not_guessed() -> None:
    bits = "0001" + "11" + "00000" + "000" + "1" + "1010"
    text = bytes(int(bits.ljust(16, "0")[i : i + 8], 2) for i in (0, 8))
    import base64

    with pytest.raises(CondensedUnsupported) as e:
        decode_condensed(base64.urlsafe_b64encode(text).decode().rstrip("="))
    assert e.value.rule == "condensed_alternative_lines"


def test_an_unrecorded_discard_may_be_the_upcard() -> None:
    # The dealer (seat 3) takes 9H, never plays it and shows out of hearts: it
    # put the upcard straight back, which the default rules allow.
    (item,) = items("upcard-discarded.egn")
    assert item.record is not None
    assert item.record["hands"][0]["discard"] == "??"
    assert codes(item) == []


def test_an_unrecorded_discard_still_leaves_later_plays_as_proof() -> None:
    # The same deal with the dealer playing the upcard last: it held 9H on
    # each of the three heart leads it did not follow.
    document = load("upcard-discarded.egn")
    document["deals"][0]["phases"][1]["tricks"][4][3] = "9h"
    (item,) = read_items(document)
    assert item.record is not None
    reneges = [v.path for v in replay_game(item.record).violations if v.code == "renege"]
    assert reneges == ["hands[0].tricks[0][3]", "hands[0].tricks[1][3]", "hands[0].tricks[3][3]"]


@pytest.mark.parametrize("spelling", ["PickUp", "Call"])
def test_the_replayer_documents_round_one_spellings_mean_order(tmp_path: Path, spelling: str) -> None:
    text = (FIXTURES / "standard.egn").read_text().replace('"Order"', f'"{spelling}"')
    path = tmp_path / "spelled.egn"
    path.write_text(text)
    (item,) = read_egn(str(path))
    (original,) = items("standard.egn")
    assert item.record is not None and original.record is not None
    assert [h["bids"] for h in item.record["hands"]] == [h["bids"] for h in original.record["hands"]]
    assert codes(item) == []


def test_alone_as_a_call_makes_the_maker_alone(tmp_path: Path) -> None:
    document = load("standard.egn")
    deal = next(d for d in document["deals"] if "Order" in d["phases"][0]["calls"])
    bidding = deal["phases"][0]
    bidding["calls"] = ["Alone" if c == "Order" else c for c in bidding["calls"]]
    path = tmp_path / "alone.egn"
    path.write_text(json.dumps(document))
    (item,) = read_egn(str(path))
    assert item.record is not None
    hand = item.record["hands"][document["deals"].index(deal)]
    assert next(b for b in hand["bids"] if b["call"] == "order").get("alone") is True


def test_load_records_the_same_located_violations_as_validate(tmp_path: Path) -> None:
    """One path for both: the warehouse's violations of an imported game read as validate's."""
    import duckdb

    from pipeline.validate import read_inputs
    from pipeline.warehouse.api import load

    path = str(FIXTURES / "renege.egn")
    validated = [(v.code, v.path, v.message) for g in check_games(read_inputs([path])) for v in g.violations]
    load([path], tmp_path / "w.duckdb")
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as con:
        loaded = con.execute("select code, path, message from violations order by rowid").fetchall()
    assert loaded == validated
    assert validated[0][2].startswith("deal 0 of the source: ")
