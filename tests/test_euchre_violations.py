"""Every violation code of the spec, raised by a minimal record, with its path and message."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from euchre_fixtures import ALL_PASSED_HAND, ALONE_HAND, CALLED_HAND, ORDERED_HAND, game, rotation_game

from pipeline.games.euchre.codes import CODES
from pipeline.games.euchre.replay import replay_game
from pipeline.sources import SourceItem, parse_line
from pipeline.validate import check_games

Record = dict[str, Any]


def codes(record: Record) -> list[str]:
    return [v.code for v in replay_game(record).violations]


@pytest.mark.parametrize(
    "record",
    [
        game(CALLED_HAND),
        game(ORDERED_HAND),
        game(ALONE_HAND),
        game(ALL_PASSED_HAND, rules={"preset": "pagat"}),
        rotation_game(4),
        rotation_game(3, ORDERED_HAND),
    ],
    ids=["called", "ordered", "alone", "all_passed", "rotation", "ordered-rotation"],
)
def test_legal_fixtures_are_clean(record: Record) -> None:
    assert codes(record) == []


def hand_with(base: Record, change: Callable[[Record], None]) -> Record:
    hand = copy.deepcopy(base)
    change(hand)
    return hand


def changed(record: Record, change: Callable[[Record], None]) -> Record:
    change(record)
    return record


def set_trick(t: int, plays: list[list[Any]]) -> Callable[[Record], None]:
    def change(hand: Record) -> None:
        hand["tricks"][t] = plays

    return change


CASES: list[tuple[str, Record, str, str]] = [
    # (code, record, path, a phrase of the message)
    ("schema", {**game(CALLED_HAND), "players": ["ana", "ben"]}, "players", "4 names"),
    (
        "schema",
        game(hand_with(CALLED_HAND, lambda h: h["bids"].__setitem__(0, {"seat": 9, "call": "pass"}))),
        "hands[0].bids[0]",
        "a bid is",
    ),
    (
        "bad_card",
        game(hand_with(CALLED_HAND, lambda h: h["deal"][2].__setitem__(4, "ZZ"))),
        "hands[0].deal[2][4]",
        "'ZZ' is not a card",
    ),
    (
        "bad_card",
        game(hand_with(CALLED_HAND, lambda h: h.__setitem__("upcard", "7H"))),
        "hands[0].upcard",
        "not a card of the 24-card deck",
    ),
    (
        "deck",
        game(hand_with(CALLED_HAND, lambda h: h["kitty"].__setitem__(0, "AS"))),
        "hands[0].kitty[0]",
        "AS is dealt twice",
    ),
    (
        "deck",
        game(hand_with(CALLED_HAND, lambda h: h["deal"][1].pop())),
        "hands[0].deal",
        "5 cards to each of 4 seats",
    ),
    (
        "dealer_rotation",
        game(CALLED_HAND, CALLED_HAND),
        "hands[1].dealer",
        "it was seat 0's",
    ),
    (
        "bid_turn",
        game(hand_with(CALLED_HAND, lambda h: h["bids"].__setitem__(1, {"seat": 2, "call": "pass"}))),
        "hands[0].bids[1]",
        "seat 2 called out of turn: it was seat 1's turn",
    ),
    (
        "bid_turn",
        game(hand_with(CALLED_HAND, lambda h: h["bids"].append({"seat": 1, "call": "pass"}))),
        "hands[0].bids[5]",
        "after the bidding had ended",
    ),
    (
        "bid_illegal",
        game(hand_with(CALLED_HAND, lambda h: h["bids"][1].__setitem__("alone", True))),
        "hands[0].bids[1]",
        "seat 1 passed and declared alone",
    ),
    (
        "bid_illegal",
        game(hand_with(ALL_PASSED_HAND, lambda h: None)),  # cards4net: stick the dealer
        "hands[0].thrown_in",
        "stick the dealer",
    ),
    (
        "bid_illegal",
        game(hand_with(CALLED_HAND, lambda h: h.__setitem__("defender_alone", 1))),
        "hands[0].defender_alone",
        "do not allow",
    ),
    (
        "discard",
        game(hand_with(ORDERED_HAND, lambda h: h.pop("discard"))),
        "hands[0].discard",
        "no discard is recorded",
    ),
    (
        "discard",
        game(hand_with(ORDERED_HAND, lambda h: h.__setitem__("discard", "AS"))),
        "hands[0].discard",
        "discarded AS, a card not held",
    ),
    (
        "discard",
        game(hand_with(CALLED_HAND, lambda h: h.__setitem__("discard", "9H"))),
        "hands[0].discard",
        "did not pick the upcard up",
    ),
    (
        "lead",
        game(hand_with(CALLED_HAND, set_trick(0, [[1, "9S"], [2, "TS"], [3, "KH"], [0, "AS"]]))),
        "hands[0].tricks[0][0]",
        "seat 1 led; seat 0 leads first",
    ),
    (
        "play_turn",
        game(hand_with(CALLED_HAND, set_trick(0, [[0, "AS"], [1, "9S"], [3, "KH"], [2, "TS"]]))),
        "hands[0].tricks[0][2]",
        "seat 3 played out of turn; it was seat 2's turn",
    ),
    (
        "not_held",
        game(hand_with(CALLED_HAND, set_trick(0, [[0, "AS"], [1, "KS"], [2, "TS"], [3, "KH"]]))),
        "hands[0].tricks[0][1]",
        "played KS, which lay in the kitty",
    ),
    (
        "renege",
        game(
            hand_with(
                CALLED_HAND,
                lambda h: (
                    set_trick(1, [[0, "AD"], [1, "QS"], [2, "KD"], [3, "TD"]])(h),
                    set_trick(2, [[0, "JD"], [1, "9D"], [2, "QD"], [3, "JH"]])(h),
                ),
            )
        ),
        "hands[0].tricks[1][1]",
        "hand 0, trick 1: seat 1 played QS on a diamond (trump) lead while holding 9D",
    ),
    (
        "sitting_out",
        game(hand_with(ALONE_HAND, lambda h: h["tricks"][0].insert(2, [2, "TS"]))),
        "hands[0].tricks[0][2]",
        "seat 2 played, but sits out",
    ),
    (
        "trick_winner",
        game(hand_with(CALLED_HAND, lambda h: h["claimed"]["trick_winners"].__setitem__(3, 1))),
        "hands[0].claimed.trick_winners[3]",
        "the log says seat 1 won it, the replay gives seat 0",
    ),
    (
        "points",
        changed(game(CALLED_HAND), lambda g: g["hands"][0]["claimed"].__setitem__("points", [1, 0])),
        "hands[0].claimed.points",
        "the replay gives 2-0",
    ),
    (
        "score",
        {**game(CALLED_HAND), "final_score": [3, 0]},
        "final_score",
        "the replay gives 2-0",
    ),
    (
        "schema",
        changed(game(CALLED_HAND), lambda r: r["hands"][0]["claimed"].__setitem__("points", [1.5, 0])),
        "hands[0].claimed.points",
        "points must be [team0, team1], not [1.5, 0]",
    ),
    (
        "schema",
        changed(game(CALLED_HAND), lambda r: r["hands"][0]["claimed"].__setitem__("score", "2-0")),
        "hands[0].claimed.score",
        "score must be [team0, team1], not '2-0'",
    ),
    (
        "schema",
        game(hand_with(CALLED_HAND, lambda h: h["claimed"].__setitem__("trick_winners", 3))),
        "hands[0].claimed.trick_winners",
        "trick_winners must be a list of seats",
    ),
    ("schema", {**game(CALLED_HAND), "started_at": 1704067200}, "started_at", "must be a string"),
    ("schema", {**game(CALLED_HAND), "source": {"site": "x"}}, "source", "must be a string (free text)"),
    (
        "schema",
        {**game(CALLED_HAND), "started_at": "5/3/2024 19:02"},
        "started_at",
        "not an ISO-8601 timestamp such as 2024-03-05T19:02:00Z: '5/3/2024 19:02' (kept as written",
    ),
    (
        "game_over",
        rotation_game(4, rules={"preset": "cards4net", "target": 4}),
        "hands[3]",
        "after the game ended at 4-2 in hand 2",
    ),
]


@pytest.mark.parametrize(
    ("code", "record", "path", "phrase"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_violation_code_path_and_message(code: str, record: Record, path: str, phrase: str) -> None:
    violations = replay_game(record).violations
    assert [v.code for v in violations] == [code], [v.message for v in violations]
    (v,) = violations
    assert v.path == path
    assert phrase in v.message
    assert v.game_id == record["game_id"]
    if path.startswith("hands["):
        assert v.hand == int(path[6 : path.index("]")])


#: (hand, trick, seat at fault) of each case's violation, by (code, path): the seat is the one
#: that made the faulty action as the record says it, None where no seat is at fault.
WHERE: dict[tuple[str, str], tuple[int | None, int | None, int | None]] = {
    ("schema", "players"): (None, None, None),
    ("schema", "hands[0].bids[0]"): (0, None, None),  # seat 9: no seat
    ("bad_card", "hands[0].deal[2][4]"): (0, None, None),
    ("bad_card", "hands[0].upcard"): (0, None, None),
    ("deck", "hands[0].kitty[0]"): (0, None, None),
    ("deck", "hands[0].deal"): (0, None, None),
    ("dealer_rotation", "hands[1].dealer"): (1, None, 3),  # seat 3 dealt out of rotation
    ("bid_turn", "hands[0].bids[1]"): (0, None, 2),
    ("bid_turn", "hands[0].bids[5]"): (0, None, 1),
    ("bid_illegal", "hands[0].bids[1]"): (0, None, 1),
    ("bid_illegal", "hands[0].thrown_in"): (0, None, 3),  # the stuck dealer
    ("bid_illegal", "hands[0].defender_alone"): (0, None, 1),
    ("discard", "hands[0].discard"): (0, None, 3),  # the dealer
    ("lead", "hands[0].tricks[0][0]"): (0, 0, 1),  # the seat that led wrongly
    ("play_turn", "hands[0].tricks[0][2]"): (0, 0, 3),  # the seat that played out of turn
    ("not_held", "hands[0].tricks[0][1]"): (0, 0, 1),
    ("renege", "hands[0].tricks[1][1]"): (0, 1, 1),
    ("sitting_out", "hands[0].tricks[0][2]"): (0, 0, 2),  # the partner who played
    ("trick_winner", "hands[0].claimed.trick_winners[3]"): (0, 3, None),
    ("points", "hands[0].claimed.points"): (0, None, None),
    ("score", "final_score"): (None, None, None),
    ("schema", "hands[0].claimed.points"): (0, None, None),
    ("schema", "hands[0].claimed.score"): (0, None, None),
    ("schema", "hands[0].claimed.trick_winners"): (0, None, None),
    ("schema", "started_at"): (None, None, None),
    ("schema", "source"): (None, None, None),
    ("game_over", "hands[3]"): (3, None, None),
}


@pytest.mark.parametrize(
    ("code", "record", "path", "phrase"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_violation_hand_trick_and_seat(code: str, record: Record, path: str, phrase: str) -> None:
    replay = replay_game(record)
    (v,) = replay.violations
    assert (v.hand, v.trick, v.seat) == WHERE[code, path]
    # valid means valid: exactly the hand the violation names is not.
    assert [h.valid for h in replay.hands] == [h.index != v.hand for h in replay.hands]


def test_a_wrong_running_score_or_a_hand_after_the_end_makes_the_hand_invalid() -> None:
    record = rotation_game(4)
    record["hands"][2]["claimed"]["score"][0] += 1
    replay = replay_game(record)
    assert [(v.code, v.hand, v.seat) for v in replay.violations] == [("score", 2, None)]
    assert [h.valid for h in replay.hands] == [True, True, False, True]
    over = replay_game(rotation_game(4, rules={"preset": "cards4net", "target": 4}))
    assert [h.valid for h in over.hands] == [True, True, True, False]


def test_a_short_trick_names_the_seat_that_did_not_play() -> None:
    hand = copy.deepcopy(CALLED_HAND)
    del hand["tricks"][1][2]  # seat 2 does not play to trick 1
    hand.pop("claimed")
    found = [(v.code, v.path, v.trick, v.seat) for v in replay_game(game(hand)).violations]
    assert ("play_turn", "hands[0].tricks[1]", 1, 2) in found


def test_after_a_trick_a_card_short_the_next_is_led_by_the_seat_recorded() -> None:
    """No one is known to have taken a trick a card short (the missing card may have
    won it): no winner, no maker's trick, and the next trick's recorded leader is
    not reported as leading out of turn, nor the claimed winner as wrong."""
    for trick in range(4):
        for position in (1, 2, 3):  # not the leader (its trick would be led by another)
            hand = copy.deepcopy(CALLED_HAND)
            del hand["tricks"][trick][position]
            replay = replay_game(game(hand))
            found = {
                (v.code, v.trick) for v in replay.violations if v.code not in ("score", "points", "renege")
            }
            assert found == {("play_turn", trick)}, (trick, position)
            result = replay.hands[0]
            assert result.winners[trick] is None and not result.complete
            full = replay_game(game(copy.deepcopy(CALLED_HAND))).hands[0]
            maker = full.maker_team
            assert result.maker_tricks == sum(
                w is not None and w % 2 == maker for t, w in enumerate(full.winners) if t != trick
            )


def test_a_last_trick_cut_short_has_no_winner_in_the_warehouse(tmp_path: Path) -> None:
    from pipeline.warehouse.api import Warehouse, load

    hand = copy.deepcopy(CALLED_HAND)
    hand["tricks"][4] = hand["tricks"][4][:2]
    hand.pop("claimed")
    (tmp_path / "g.jsonl").write_bytes(orjson.dumps(game(hand)) + b"\n")
    load([str(tmp_path / "g.jsonl")], tmp_path / "w.duckdb")
    with Warehouse.open(tmp_path / "w.duckdb") as wh:
        rows = wh.sql("select trick_no, winner, cards from euchre.tricks order by trick_no").rows()
        maker_tricks = wh.sql("select maker_tricks from euchre.hands").rows()[0][0]
    assert rows[4] == (4, None, 2) and all(w is not None for _, w, _ in rows[:4])
    full = replay_game(game(copy.deepcopy(CALLED_HAND))).hands[0]
    assert maker_tricks == sum(w % 2 == full.maker_team for w in full.winners[:4] if w is not None)


def test_two_calls_recorded_swapped_are_one_bid_turn() -> None:
    """Two passes written in each other's place: the first is out of turn, the
    second is the seat it went before (one fault, one violation)."""
    record = game(copy.deepcopy(CALLED_HAND))
    bids = record["hands"][0]["bids"]
    passes = [j for j in range(len(bids) - 1) if bids[j]["call"] == bids[j + 1]["call"] == "pass"]
    assert passes
    for j in passes:
        swapped = copy.deepcopy(record)
        calls = swapped["hands"][0]["bids"]
        calls[j]["seat"], calls[j + 1]["seat"] = calls[j + 1]["seat"], calls[j]["seat"]
        found = [(v.code, v.path, v.seat) for v in replay_game(swapped).violations]
        assert found == [("bid_turn", f"hands[0].bids[{j}]", calls[j]["seat"])]


def test_naming_the_turned_down_suit() -> None:
    hand = copy.deepcopy(CALLED_HAND)
    hand["bids"][4]["call"] = "H"  # the upcard was the 9H
    first = replay_game(game(hand)).violations[0]
    assert (first.code, first.path, first.rule) == ("bid_illegal", "hands[0].bids[4]", "turned_down_suit")
    assert "named hearts, the suit turned down in round one" in first.message


def test_running_score_claim_is_reported_once_per_departure() -> None:
    record = rotation_game(4)
    record["hands"][1]["claimed"]["score"] = [2, 3]  # one point too many from here on
    for h in record["hands"][2:]:
        h["claimed"]["score"][1] += 1
    violations = replay_game(record).violations
    assert [(v.code, v.path) for v in violations] == [("score", "hands[1].claimed.score")]


def test_malformed_json_and_duplicate_game_are_reported_by_the_reader() -> None:
    bad = parse_line("f.jsonl", 7, b'{"format": "euchre/1", "game_id": ')
    assert bad.record is None and bad.raw is not None
    assert [(v.code, v.line) for v in bad.violations] == [("malformed_json", 7)]
    assert "line 7" in bad.violations[0].message
    record = game(CALLED_HAND)
    items = [SourceItem("f.jsonl", 1, None, record), SourceItem("f.jsonl", 2, None, copy.deepcopy(record))]
    checked = list(check_games(items))
    assert [v.code for v in checked[0].violations] == []
    (dup,) = checked[1].violations
    assert (dup.code, dup.line, dup.game_id) == ("duplicate_game", 2, "t-1")
    assert checked[1].replay is not None  # the repeat is still replayed


def test_every_spec_code_is_covered_here() -> None:
    covered = {c[0] for c in CASES} | {"malformed_json", "duplicate_game"}
    assert covered >= set(CODES) - {"unsupported"}


def test_lone_maker_lead_rules() -> None:
    # cards4net: the first active seat left of the dealer leads, even when alone.
    assert codes(game(ALONE_HAND)) == []
    # pagat: left of the loner; seat 0 alone -> seat 1 leads.
    pagat = game(ALONE_HAND, rules={"preset": "pagat"})
    lead = replay_game(pagat).violations
    assert [(v.code, v.path) for v in lead] == [("lead", "hands[0].tricks[0][0]")]
    assert "seat 0 led; seat 1 leads first" in lead[0].message


def test_both_alone_the_lone_defender_leads() -> None:
    hand = copy.deepcopy(ALONE_HAND)
    hand["defender_alone"] = 1  # seat 3 sits out now too
    hand["tricks"] = [
        [[1, "9S"], [0, "AS"]],
        [[0, "AD"], [1, "9D"]],
        [[0, "JD"], [1, "QS"]],
        [[0, "AC"], [1, "9C"]],
        [[0, "KC"], [1, "TC"]],
    ]
    hand["claimed"] = {"trick_winners": [0, 0, 0, 0, 0], "points": [4, 0]}
    replay = replay_game(game(hand, rules={"preset": "pagat"}))
    assert replay.violations == []
    assert replay.hands[0].leaders[0] == 1
    assert replay.hands[0].points == (4, 0)


def test_deal_absent_still_catches_renege_and_double_play() -> None:
    hand = copy.deepcopy(CALLED_HAND)
    del hand["deal"], hand["kitty"]
    assert codes(game(hand)) == []
    # Seat 1 discards QS on the diamond lead, then plays 9D later: a renege by inference.
    hand["tricks"][1] = [[0, "AD"], [1, "QS"], [2, "KD"], [3, "TD"]]
    hand["tricks"][2] = [[0, "JD"], [1, "9D"], [2, "QD"], [3, "JH"]]
    (v,) = replay_game(game(hand)).violations
    assert (v.code, v.path) == ("renege", "hands[0].tricks[1][1]")
    # A card played by two seats cannot have been held by both.
    hand = copy.deepcopy(CALLED_HAND)
    del hand["deal"]
    hand["tricks"][4] = [[0, "KC"], [1, "TC"], [2, "JC"], [3, "AS"]]
    held = [v for v in replay_game(game(hand)).violations if v.code == "not_held"]
    assert [v.path for v in held] == ["hands[0].tricks[4][3]"]
    assert "already played by seat 0 in trick 0" in held[0].message


def test_partly_unknown_deal() -> None:
    hand = copy.deepcopy(CALLED_HAND)
    hand["deal"][1] = ["??"] * 5
    assert codes(game(hand)) == []
    hand["tricks"][0] = [[0, "AS"], [1, "KD"], [2, "TS"], [3, "KH"]]  # KD was dealt to seat 2
    assert "not_held" in codes(game(hand))


def test_abandoned_hand_is_incomplete_but_valid() -> None:
    hand = copy.deepcopy(CALLED_HAND)
    hand["tricks"] = hand["tricks"][:3]
    hand.pop("claimed")
    replay = replay_game(game(hand))
    assert replay.violations == []
    assert not replay.hands[0].complete and replay.hands[0].valid
    assert replay.hands[0].points == (0, 0)


def seed_hand(seat1: list[str], play: str) -> Record:
    """Hearts trump (seat 0 orders JH up); seat 0 leads AD; seat 1 answers with ``play``."""
    others = {"AD", "KS", "QS", "JS", "TS", "KD", "QD", "TD", "AC", "KC", "AH", "KH", "QH", "TH", "9H", "JH"}
    kitty = sorted(set(SEED_DECK) - others - set(seat1))[:3]
    return {
        "dealer": 3,
        "deal": [
            ["AD", "KS", "QS", "JS", "TS"],
            seat1,
            ["KD", "QD", "TD", "AC", "KC"],
            ["AH", "KH", "QH", "TH", "9H"],
        ],
        "upcard": "JH",
        "kitty": kitty,
        "bids": [{"seat": 0, "call": "order"}],
        "discard": "9H",
        "tricks": [[[0, "AD"], [1, play], [2, "KD"], [3, "TH"]]],
    }


SEED_DECK = [r + s for s in "CDHS" for r in "9TJQKA"]


def test_seed_example_left_bower_belongs_to_trump() -> None:
    # Hearts trump, holding JD and 9D: a diamond lead must be followed with the 9D.
    assert codes(game(seed_hand(["JD", "9D", "9C", "TC", "9S"], "9D"))) == []
    renege = replay_game(game(seed_hand(["JD", "9D", "9C", "TC", "9S"], "JD"))).violations
    assert [v.code for v in renege] == ["renege"]
    assert "played JD on a diamond lead while holding 9D" in renege[0].message
    # JD as the only diamond-printed card: no diamond is held, any card is legal.
    assert codes(game(seed_hand(["JD", "QC", "9C", "TC", "9S"], "9C"))) == []
    as_trump = replay_game(game(seed_hand(["JD", "QC", "9C", "TC", "9S"], "JD")))
    assert as_trump.violations == []
    # ... and JD counts as trump: the left bower beats the ten of hearts.
    assert as_trump.hands[0].winners == [1]


def test_seed_example_at_the_rules_level() -> None:
    from pipeline.games.euchre.cards import DIAMONDS, HEARTS, mask_of
    from pipeline.games.euchre.trick import legal_plays

    assert legal_plays(mask_of("JD 9D 9C TC 9S"), HEARTS, DIAMONDS) == mask_of("9D")
    hand = mask_of("JD QC 9C TC 9S")
    assert legal_plays(hand, HEARTS, DIAMONDS) == hand
    assert legal_plays(hand, HEARTS, HEARTS) == mask_of("JD")


def test_dealer_may_leave_the_upcard_where_the_rules_allow_it() -> None:
    """The dealer is ordered up, records no discard and keeps all five of its own cards."""
    hand = copy.deepcopy(ORDERED_HAND)
    del hand["discard"], hand["claimed"]
    hand["tricks"] = [[[0, "AS"], [1, "9S"], [2, "TS"], [3, "KH"]]]  # an abandoned hand: one trick
    assert [v.code for v in replay_game(game(hand)).violations] == ["discard"]
    left = replay_game(game(hand, rules={"preset": "pagat", "dealer_may_leave_upcard": True}))
    assert left.violations == [] and left.hands[0].trump == 2 and left.hands[0].winners == [3]
    # The upcard left lying is out of play: the dealer cannot play it.
    hand["tricks"][0][3] = [3, "9H"]
    broken = replay_game(game(hand, rules={"preset": "pagat", "dealer_may_leave_upcard": True}))
    assert [v.code for v in broken.violations] == ["not_held"]
    assert "played 9H, the upcard, which the dealer did not take up" in broken.violations[0].message


def test_the_turned_down_suit_may_be_named_where_the_rules_allow_it() -> None:
    hand = copy.deepcopy(CALLED_HAND)
    hand["bids"][4]["call"] = "H"
    assert replay_game(game(hand)).violations[0].rule == "turned_down_suit"
    allowed = replay_game(game(hand, rules={"preset": "french", "may_name_turned_down_suit": True}))
    assert "turned_down_suit" not in {v.rule for v in allowed.violations}


def test_a_call_out_of_turn_in_a_hand_thrown_in_as_all_passed() -> None:
    """Eight passes are not enough: each in turn from the dealer's left, as in any
    bidding; and no fast path clears the hand either."""
    from pipeline.games.euchre import fast

    swapped = copy.deepcopy(ALL_PASSED_HAND)
    swapped["bids"][0:2] = [{"seat": 1, "call": "pass"}, {"seat": 0, "call": "pass"}]
    record = game(swapped, rules={"preset": "pagat"})
    found = replay_game(record).violations
    assert [(v.code, v.path, v.seat) for v in found] == [
        ("bid_turn", "hands[0].bids[0]", 1),
        ("bid_turn", "hands[0].bids[1]", 0),
    ]
    assert "seat 1 called out of turn: it was seat 0's turn" in found[0].message
    assert fast.fast_check([record, game(ALL_PASSED_HAND, rules={"preset": "pagat"})], min_games=0) == [
        False,
        True,
    ]


def test_a_dealer_passing_out_of_turn_is_not_yet_stuck() -> None:
    """With stick the dealer, the dealer's pass is illegal only as the eighth call; an
    earlier one is a call out of turn, and only that."""
    bids = [{"seat": s, "call": "pass"} for s in (0, 1, 2, 3, 3, 1, 2)] + [{"seat": 3, "call": "D"}]
    hand = {k: v for k, v in CALLED_HAND.items() if k not in ("tricks", "claimed", "discard")}
    found = replay_game(game(dict(hand, bids=bids), rules={"preset": "cards4net"})).violations
    assert [(v.code, v.path, v.seat) for v in found] == [("bid_turn", "hands[0].bids[4]", 3)]


def test_hands_after_the_end_do_not_change_the_game_s_score_or_winner() -> None:
    """The game ends when a team reaches the target: a hand recorded after it is a
    game_over violation, replayed, but the score, the winner and the claimed
    final_score are those of the end."""
    record = rotation_game(4, rules={"preset": "cards4net", "target": 4})
    over = replay_game(record)
    assert (over.ended_at, over.score, over.winner) == (2, (4, 2), 0)
    assert [h.score for h in over.hands] == [(2, 0), (2, 2), (4, 2), (4, 4)]  # running, as recorded
    wrong = replay_game(dict(record, final_score=[4, 4]))
    assert [(v.code, v.path) for v in wrong.violations] == [
        ("game_over", "hands[3]"),
        ("score", "final_score"),
    ]
    assert not [v for v in replay_game(dict(record, final_score=[4, 2])).violations if v.code == "score"]
