"""Every tarot/1 violation code from a minimal record: its code, path, hand, trick, seat and sentence.

The base record (``fixtures/tarot/one-hand.json``) is one clean simulated hand:
seat 0 deals, seat 2 takes a garde and discards 4C 5D 10C ND QD 1H.  Most
cases keep only its first trick (a hand may stop early: it is then simply
incomplete) and change one thing in it.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from pipeline.games.tarot.codes import CODES
from pipeline.games.tarot.corrupt import CorruptionPlanner, corrupt_record
from pipeline.games.tarot.replay import replay_game
from pipeline.sources import parse_line
from pipeline.violations import Violation

FIXTURES = Path(__file__).parent / "fixtures" / "tarot"
BASE: dict[str, Any] = json.loads((FIXTURES / "one-hand.json").read_text())
FIRST_TRICK = [[1, "KD"], [2, "T1"], [3, "1D"], [0, "4D"]]


def base() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def first_trick_only(record: dict[str, Any], trick: list[list[Any]] | None = None) -> dict[str, Any]:
    hand = record["hands"][0]
    hand["tricks"] = [trick if trick is not None else copy.deepcopy(FIRST_TRICK)]
    del hand["claimed"]
    return record


def only(record: dict[str, Any]) -> Violation:
    found = replay_game(record).violations
    assert len(found) == 1, [(v.code, v.message) for v in found]
    return found[0]


def where(v: Violation) -> tuple[str, str, int | None, int | None, int | None]:
    return v.code, v.path, v.hand, v.trick, v.seat


def test_the_base_record_is_clean() -> None:
    game = replay_game(base())
    assert game.violations == []
    hand = game.hands[0]
    assert (hand.contract, hand.taker, hand.taker_points, hand.made, hand.scores) == (
        "garde",
        2,
        48.0,
        True,
        (-74, -74, 222, -74),
    )
    assert (hand.taker_position, hand.taker_score, hand.bouts, hand.excuse_owner_side) == (
        "second",
        222,
        3,
        "taker",
    )
    outcome = json.loads(json.dumps(hand.to_json()))
    assert outcome["ecart"] == ["4C", "5D", "10C", "ND", "QD", "1H"] and outcome["taker_points"] == 48.0
    assert outcome["tricks"][0] == {"leader": 1, "winner": 2, "plays": FIRST_TRICK}
    assert replay_game(first_trick_only(base())).violations == []
    assert replay_game(first_trick_only(base())).hands[0].complete is False


def test_schema() -> None:
    record = base()
    record["players"] = ["ana", "ben", "cleo"]
    v = only(record)
    assert where(v) == ("schema", "players", None, None, None)
    assert v.message == "players must be a list of 4 names, indexed by seat"


def test_bad_card() -> None:
    record = base()
    record["hands"][0]["deal"][1][0] = "T22"
    v = only(record)
    assert where(v) == ("bad_card", "hands[0].deal[1][0]", 0, None, 1)
    assert v.message == "hand 0: 'T22' is not a card of the Tarot deck"


def test_deck_card_dealt_twice() -> None:
    record = base()
    record["hands"][0]["chien"][0] = "KH"  # seat 0 holds it
    v = replay_game(record).violations[0]
    assert where(v) == ("deck", "hands[0].chien[0]", 0, None, None)
    assert v.message == "hand 0: KH is dealt twice: to seat 0 and to the chien"


def test_deck_wrong_count() -> None:
    record = first_trick_only(base())
    record["hands"][0]["deal"][3].pop()
    v = only(record)
    assert where(v) == ("deck", "hands[0].deal[3]", 0, None, 3)
    assert v.message == "hand 0: seat 3 was dealt 17 cards; each seat gets 18"


def test_malformed_json_is_the_readers() -> None:
    item = parse_line("games.jsonl", 4, b'{"format": "tarot/1", "game_id": ')
    assert [v.code for v in item.violations] == ["malformed_json"]


def test_duplicate_game_is_planted_with_an_earlier_id() -> None:
    planner = CorruptionPlanner(random.Random(0))
    planner.saw_clean("tarot-sim-0-0")
    planner.queue.extend(["duplicate_game"])
    corruption = planner.corrupt(base(), line=2)
    assert corruption is not None and corruption.code == "duplicate_game"
    assert orjson.loads(corruption.text)["game_id"] == "tarot-sim-0-0"


def all_passed(dealer: int) -> dict[str, Any]:
    hand = copy.deepcopy(BASE["hands"][0])
    for key in ("ecart", "tricks", "claimed"):
        del hand[key]
    hand["dealer"] = dealer
    hand["bids"] = [{"seat": (dealer + 1 + i) % 4, "call": "pass"} for i in range(4)]
    hand["thrown_in"] = "all_passed"
    return hand


def test_dealer_rotation() -> None:
    record = base()
    record["hands"].append(all_passed(2))
    v = only(record)
    assert where(v) == ("dealer_rotation", "hands[1].dealer", 1, None, 2)
    assert v.message == "hand 1: seat 2 dealt; the deal passes to the next seat, so it was seat 1's"
    record["hands"][1] = all_passed(1)
    assert replay_game(record).violations == []
    assert replay_game(record).hands[1].thrown_in == "all_passed"


def test_bid_turn() -> None:
    record = base()
    bids = record["hands"][0]["bids"]
    bids[2], bids[3] = bids[3], bids[2]  # seat 0 speaks before seat 3
    v = only(record)
    assert where(v) == ("bid_turn", "hands[0].bids[2]", 0, None, 0)
    assert v.message.startswith("hand 0: seat 0 called out of turn; it was seat 3's turn")


def test_bid_illegal_not_higher() -> None:
    record = base()
    record["hands"][0]["bids"][2]["call"] = "prise"  # seat 3, after seat 2's garde
    v = only(record)
    assert where(v) == ("bid_illegal", "hands[0].bids[2]", 0, None, 3)
    assert v.message == (
        "hand 0: seat 3 called prise after garde; a call must be higher than every one before it"
    )


def petit_sec_deal(record: dict[str, Any]) -> dict[str, Any]:
    """Seat 2 keeps the Petit as its only trump: its other trumps and the Excuse go to seat 1."""
    deal = record["hands"][0]["deal"]
    seat2 = [c for c in deal[2] if (c.startswith("T") and c != "T1") or c == "EX"]
    seat1 = [c for c in deal[1] if not c.startswith("T")][: len(seat2)]
    deal[2] = [c for c in deal[2] if c not in seat2] + seat1
    deal[1] = [c for c in deal[1] if c not in seat1] + seat2
    return record


def test_petit_sec_throw_in() -> None:
    record = petit_sec_deal(base())
    hand = record["hands"][0]
    for key in ("ecart", "tricks", "claimed"):
        del hand[key]
    hand["bids"] = []
    hand["thrown_in"] = "petit_sec"
    game = replay_game(record)
    assert game.violations == []
    assert (game.hands[0].thrown_in, game.hands[0].complete, game.hands[0].scores) == (
        "petit_sec",
        True,
        (0, 0, 0, 0),
    )
    v = only(dict(base(), hands=[dict(all_passed(0), thrown_in="petit_sec", bids=[])]))
    assert (v.code, v.rule, v.path) == ("bid_illegal", "petit_sec", "hands[0].thrown_in")
    assert (
        v.message
        == "hand 0: the hand was thrown in for a petit sec, but no seat holds the Petit as its only trump"
    )


def test_thrown_in_after_four_passes_but_a_seat_took() -> None:
    record = base()
    record["hands"][0]["thrown_in"] = "all_passed"
    v = only(record)
    assert (v.code, v.rule, v.path, v.seat) == ("bid_illegal", "all_passed", "hands[0].thrown_in", 2)


def test_bid_illegal_petit_sec_played() -> None:
    record = petit_sec_deal(first_trick_only(base()))
    assert record["hands"][0]["deal"][2].count("T1") == 1
    found = replay_game(record).violations
    assert found[0].code == "bid_illegal" and found[0].rule == "petit_sec" and found[0].seat == 2
    assert "seat 2 holds the Petit sec" in found[0].message


def test_lead() -> None:
    record = first_trick_only(base(), [[2, "KC"], [3, "2C"], [0, "5C"], [1, "1C"]])
    v = only(record)
    assert where(v) == ("lead", "hands[0].tricks[0][0]", 0, 0, 2)
    assert v.message == "hand 0, trick 0: seat 2 led; seat 1 sits after the dealer and leads first"


def test_play_turn() -> None:
    record = first_trick_only(base(), [[1, "KD"], [3, "1D"], [2, "T1"], [0, "4D"]])
    v = only(record)
    assert where(v) == ("play_turn", "hands[0].tricks[0][1]", 0, 0, 3)
    assert v.message == "hand 0, trick 0: seat 3 played out of turn; it was seat 2's turn"


def test_not_held() -> None:
    record = first_trick_only(base(), [[1, "KD"], [2, "T1"], [3, "1D"], [0, "9D"]])
    v = only(record)
    assert where(v) == ("not_held", "hands[0].tricks[0][3]", 0, 0, 0)
    assert v.message == "hand 0, trick 0: seat 0 played 9D, held by seat 3"


def test_trick_winner() -> None:
    record = base()
    record["hands"][0]["claimed"]["trick_winners"][4] = 1
    v = only(record)
    assert where(v) == ("trick_winner", "hands[0].claimed.trick_winners[4]", 0, 4, None)
    assert v.message == "hand 0, trick 4: the log says seat 1 won the trick, the replay gives seat 0"


def test_points() -> None:
    record = base()
    record["hands"][0]["claimed"]["taker_points"] = 47
    v = only(record)
    assert where(v) == ("points", "hands[0].claimed.taker_points", 0, None, None)
    assert v.message == "hand 0: the log claims 47 points for the taker, the replay gives 48"


def test_points_half_point() -> None:
    record = base()
    record["hands"][0]["claimed"]["taker_points"] = 48.5
    v = only(record)
    assert (v.code, v.rule) == ("points", "half_point")
    assert v.message == (
        "hand 0: the log claims 48.5 points for the taker; at four players the taker's total is a whole number"
    )


def test_score() -> None:
    record = base()
    record["hands"][0]["claimed"]["scores"] = [-64, -74, 212, -74]
    v = only(record)
    assert where(v) == ("score", "hands[0].claimed.scores", 0, None, None)
    assert v.message == (
        "hand 0: the log claims scores [-64, -74, 212, -74] for the hand, the replay gives [-74, -74, 222, -74]"
    )


def test_score_running_totals_once() -> None:
    record = base()
    record["hands"].append(all_passed(1))
    for hand in record["hands"]:
        hand.setdefault("claimed", {})["totals"] = [-84, -74, 232, -74]
    v = only(record)
    assert where(v) == ("score", "hands[0].claimed.totals", 0, None, None)


def test_renege() -> None:
    record = first_trick_only(base(), [[1, "KD"], [2, "T1"], [3, "KS"], [0, "4D"]])
    v = only(record)
    assert where(v) == ("renege", "hands[0].tricks[0][2]", 0, 0, 3)
    assert v.message == "hand 0, trick 0: seat 3 played KS on a diamond lead while holding 1D"


def test_must_trump() -> None:
    record = first_trick_only(base(), [[1, "KD"], [2, "KC"], [3, "1D"], [0, "4D"]])
    v = only(record)
    assert where(v) == ("must_trump", "hands[0].tricks[0][1]", 0, 0, 2)
    assert (
        v.message
        == "hand 0, trick 0: seat 2 played KC on a diamond lead, void in diamonds, while holding the trump T1"
    )


def test_must_overtrump() -> None:
    record = first_trick_only(base(), [[1, "T6"], [2, "T12"], [3, "T3"], [0, "T17"]])
    v = only(record)
    assert where(v) == ("must_overtrump", "hands[0].tricks[0][2]", 0, 0, 3)
    assert v.message == "hand 0, trick 0: seat 3 played T3 under T12 while holding T14, a higher trump"


def test_renege_on_a_trump_lead() -> None:
    record = first_trick_only(base(), [[1, "T6"], [2, "T12"], [3, "KS"], [0, "T17"]])
    v = only(record)
    assert where(v) == ("renege", "hands[0].tricks[0][2]", 0, 0, 3)
    assert v.message == "hand 0, trick 0: seat 3 played KS on a trump lead while holding T14"


def test_excuse_may_always_be_played_and_after_it_the_next_card_leads() -> None:
    record = first_trick_only(base(), [[1, "KD"], [2, "EX"], [3, "1D"], [0, "4D"]])
    assert replay_game(record).violations == []
    record = base()
    hand = record["hands"][0]
    hand["tricks"] = [
        [[1, "KD"], [2, "T1"], [3, "1D"], [0, "4D"]],
        [[2, "EX"], [3, "2C"], [0, "5C"], [1, "1C"]],
    ]
    del hand["claimed"]
    game = replay_game(record)
    assert game.violations == []
    assert game.hands[0].tricks[1].winner == 0  # 5C: clubs were set by the card after the Excuse


def test_ecart_king() -> None:
    record = first_trick_only(base())
    record["hands"][0]["ecart"][0] = "KC"
    v = only(record)
    assert where(v) == ("ecart", "hands[0].ecart[0]", 0, None, 2)
    assert v.message == "hand 0: seat 2 discarded KC: a King may never be discarded"


def test_ecart_bout() -> None:
    record = first_trick_only(base(), [[1, "KD"], [2, "T2"], [3, "1D"], [0, "4D"]])
    record["hands"][0]["ecart"][0] = "T1"
    v = only(record)
    assert where(v) == ("ecart", "hands[0].ecart[0]", 0, None, 2)
    assert (
        v.message
        == "hand 0: seat 2 discarded T1: a bout (the Petit, the 21 or the Excuse) may never be discarded"
    )


def test_ecart_avoidable_trump() -> None:
    record = first_trick_only(base())
    record["hands"][0]["ecart"][0] = "T4"
    v = only(record)
    assert where(v) == ("ecart", "hands[0].ecart[0]", 0, None, 2)
    assert v.message == (
        "hand 0: seat 2 discarded T4: a trump may only be discarded when no suit card is left to discard, "
        "and it kept 8S"
    )


def test_ecart_trump_not_shown() -> None:
    record = first_trick_only(base())
    record["hands"][0]["ecart_shown"] = []
    assert replay_game(record).violations == []  # no trump in the écart, nothing to show
    record["hands"][0]["ecart"][0] = "T4"
    found = replay_game(record).violations
    assert [(v.code, v.rule) for v in found] == [("ecart", None), ("ecart", "trump_not_shown")]
    assert (
        found[1].message
        == "hand 0: seat 2 discarded T4 without showing it; a discarded trump is shown to the defence"
    )


def test_ecart_in_garde_sans() -> None:
    record = first_trick_only(base())
    record["hands"][0]["bids"][1]["call"] = "garde_sans"
    v = only(record)
    assert where(v) == ("ecart", "hands[0].ecart", 0, None, 2)
    assert (
        v.message
        == "hand 0: an écart is recorded in a garde_sans, where the chien stays unseen and there is none"
    )


def test_poignee_wrong_size() -> None:
    record = first_trick_only(base())
    shown = ["T1", "T2", "T4", "T5", "T12", "T13", "T16", "T21", "EX"]
    record["hands"][0]["announcements"] = [{"seat": 2, "type": "poignee", "trumps": shown}]
    v = only(record)
    assert where(v) == ("poignee", "hands[0].announcements[0].trumps", 0, None, 2)
    assert v.message == "hand 0: seat 2 showed 9 trumps; a poignée is 10, 13 or 15 (simple, double, triple)"


def test_poignee_not_held() -> None:
    record = first_trick_only(base())
    shown = ["T1", "T2", "T4", "T5", "T12", "T13", "T16", "T21", "EX", "T3"]
    record["hands"][0]["announcements"] = [{"seat": 2, "type": "poignee", "trumps": shown}]
    v = only(record)
    assert where(v) == ("poignee", "hands[0].announcements[0].trumps", 0, None, 2)
    assert v.message == "hand 0: seat 2 showed T3 in its poignée, a card it did not hold (held by seat 3)"


def test_poignee_late() -> None:
    record = first_trick_only(base())
    shown = ["T1", "T2", "T4", "T5", "T12", "T13", "T16", "T21", "EX", "T3"]
    record["hands"][0]["announcements"] = [{"seat": 2, "type": "poignee", "trumps": shown, "trick": 3}]
    v = only(record)
    assert (v.code, v.rule, v.path) == ("poignee", "poignee_late", "hands[0].announcements[0].trick")
    assert v.message == (
        "hand 0: seat 2 showed its poignée in trick 3, after its first card; it is shown just before it"
    )


def spec_example(game_id: str) -> dict[str, Any]:
    for line in (FIXTURES / "spec-examples" / "tarot-fft.jsonl").read_text().splitlines():
        record: dict[str, Any] = json.loads(line)
        if record["game_id"] == game_id:
            return record
    raise KeyError(game_id)


def test_poignee_excuse_only_when_short() -> None:
    record = spec_example("tarot-905-0")
    record["hands"] = record["hands"][:1]
    poignee = record["hands"][0]["announcements"][0]
    assert replay_game(record).violations == []
    poignee["trumps"][-1] = "EX"  # instead of T6, which seat 3 still holds
    v = only(record)
    assert (v.code, v.rule, v.seat) == ("poignee", "excuse_in_poignee", 3)
    assert v.message == (
        "hand 0: seat 3 showed the Excuse for a trump while holding T6 unshown; "
        "the Excuse stands for a trump only when no other is left"
    )


def test_chelem_announcer_must_lead() -> None:
    record = first_trick_only(base())
    record["hands"][0]["announcements"] = [{"seat": 2, "type": "chelem"}]
    v = only(record)
    assert where(v) == ("chelem", "hands[0].tricks[0][0]", 0, 0, 2)
    assert v.message == "hand 0, trick 0: seat 1 led, but seat 2 announced a chelem and leads the first trick"


def test_unsupported_misere() -> None:
    record = base()
    record["rules"] = {"preset": "fft", "misere": True}
    v = only(record)
    assert (v.code, v.path, v.hand) == ("unsupported", "rules.misere", None)


def test_every_code_is_covered_here_and_by_the_corruptions() -> None:
    tested = {
        "schema", "bad_card", "deck", "malformed_json", "duplicate_game", "dealer_rotation", "bid_turn",
        "bid_illegal", "lead", "play_turn", "not_held", "trick_winner", "points", "score", "renege",
        "must_trump", "must_overtrump", "ecart", "poignee", "chelem", "unsupported",
    }  # fmt: skip
    assert tested == set(CODES)


@pytest.mark.parametrize(
    "code", ["renege", "must_trump", "must_overtrump", "not_held", "lead", "ecart", "chelem"]
)
def test_planted_faults_give_one_code_with_its_place(code: str) -> None:
    from pipeline.games.tarot.simulate import simulate_game

    for n in range(30):
        found = corrupt_record(simulate_game(n, seed=11), code, random.Random(n))
        if found is None:
            continue
        _, record, violation = found
        assert {v.code for v in replay_game(record).violations} == {code}
        assert violation.hand is not None and violation.path.startswith(f"hands[{violation.hand}]")
        if violation.trick is not None:
            assert violation.path.startswith(f"hands[{violation.hand}].tricks[{violation.trick}]")
            assert violation.message.startswith(f"hand {violation.hand}, trick {violation.trick}: ")
        return
    pytest.fail(f"no game took a {code} fault")


def test_deck_short_trick() -> None:
    record = first_trick_only(base(), [[1, "KD"], [2, "T1"], [3, "1D"]])
    v = only(record)
    assert where(v) == ("deck", "hands[0].tricks[0]", 0, 0, None)
    assert v.message == "hand 0, trick 0: the trick has 3 cards; each of the 4 seats plays one"


def codes_of(record: dict[str, Any]) -> list[str]:
    return [v.code for v in replay_game(record).violations]


def test_a_trick_short_of_its_winning_card_is_won_by_the_next_leader() -> None:
    record = base()
    record["hands"][0]["tricks"][12].pop()  # [3, "T14"], the card that won it: seat 3 leads trick 13
    v = only(record)
    assert where(v) == ("deck", "hands[0].tricks[12]", 0, 12, None)
    assert replay_game(record).hands[0].tricks[12].winner == 3


def test_a_seat_listed_twice_in_a_trick_is_one_play_turn() -> None:
    record = base()
    record["hands"][0]["tricks"][12][3][0] = 2  # seat 3's T14, recorded as seat 2's second card
    v = only(record)
    assert where(v) == ("play_turn", "hands[0].tricks[12][3]", 0, 12, 2)
    assert v.message == "hand 0, trick 12: seat 2 played a second card to the trick"
    assert replay_game(record).hands[0].tricks[12].winner == 3


@pytest.mark.parametrize("missing", ["ND", "T2"])  # the taker discards ND and plays T2
def test_a_chien_short_of_a_card_is_the_one_deck_violation(missing: str) -> None:
    record = base()
    record["hands"][0]["chien"].remove(missing)
    v = only(record)
    assert where(v) == ("deck", "hands[0].chien", 0, None, None)


def test_a_missing_chien_is_the_cards_the_four_hands_do_not_hold() -> None:
    record = base()
    del record["hands"][0]["chien"]
    v = only(record)
    assert where(v) == ("schema", "hands[0].chien", 0, None, None)
    assert sorted(replay_game(record).hands[0].chien) == sorted(replay_game(base()).hands[0].chien)


def test_a_short_chien_and_a_short_hand_leave_the_taker_read_from_its_plays() -> None:
    record = base()
    record["hands"][0]["chien"].remove("T2")
    record["hands"][0]["deal"][1].remove("3S")
    assert [where(v) for v in replay_game(record).violations] == [
        ("deck", "hands[0].deal[1]", 0, None, 1),
        ("deck", "hands[0].chien", 0, None, None),
    ]


@pytest.mark.parametrize(("wrong", "right"), [(0, 1), (1, 0)])
def test_a_card_dealt_twice_is_the_one_deck_violation_whichever_copy_is_wrong(wrong: int, right: int) -> None:
    record = base()
    deal = record["hands"][0]["deal"]
    kept = {0: "1S", 1: "3S"}  # each played later by its seat
    deal[wrong][deal[wrong].index(kept[wrong])] = kept[right]
    v = only(record)
    assert (v.code, v.hand, v.path) == ("deck", 0, "hands[0].deal[1][0]")


def test_a_card_moved_from_a_hand_to_the_chien_is_not_reported_again_when_played() -> None:
    from pipeline.games.tarot.simulate import simulate_game

    record, index = next(
        (game, i)
        for game in (simulate_game(n, seed=n) for n in range(50))
        for i, hand in enumerate(game["hands"])
        if any(bid["call"] in ("garde_sans", "garde_contre") for bid in hand["bids"])
    )
    record["hands"] = record["hands"][: index + 1]
    hand = record["hands"][index]
    hand["chien"].append(hand["deal"][1].pop(0))  # the chien stays unseen; seat 1 plays the card
    assert [where(v) for v in replay_game(record).violations] == [
        ("deck", f"hands[{index}].deal[1]", index, None, 1),
        ("deck", f"hands[{index}].chien", index, None, None),
    ]


def test_a_hand_with_no_dealer_passes_the_deal_on_as_the_rotation_says() -> None:
    record = base()
    record["hands"] += [all_passed(1), all_passed(2)]
    record["hands"][1]["dealer"] = 4
    v = only(record)
    assert where(v) == ("schema", "hands[1].dealer", 1, None, None)


def test_running_totals_take_up_a_hand_with_no_dealer() -> None:
    record = base()
    record["hands"][0]["dealer"] = -1  # the hand is not replayed, so not scored
    record["hands"].append(all_passed(1))
    record["hands"][1]["claimed"] = {"totals": [-74, -74, 222, -74]}  # the log scored it
    v = only(record)
    assert where(v) == ("schema", "hands[0].dealer", 0, None, None)
    record["hands"].append(all_passed(2))
    record["hands"][2]["claimed"] = {"totals": [-64, -74, 212, -74]}  # but this is wrong
    assert [where(v) for v in replay_game(record).violations][1:] == [
        ("score", "hands[2].claimed.totals", 2, None, None)
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda w: w[:17], "hand 0: trick_winners names 17 winners for 18 tricks; it names one a trick"),
        (lambda w: [*w, 0], "hand 0: trick_winners names 19 winners for 18 tricks; it names one a trick"),
        (lambda w: [9] * 18, f"hand 0: trick_winners must be a list of seats 0-3, not {[9] * 18!r}"),
        (lambda w: {"0": 2}, "hand 0: trick_winners must be a list of seats 0-3, not {'0': 2}"),
    ],
)
def test_claimed_trick_winners_are_one_seat_a_trick(change: Any, message: str) -> None:
    record = base()
    claimed = record["hands"][0]["claimed"]
    claimed["trick_winners"] = change(claimed["trick_winners"])
    v = only(record)
    assert where(v) == ("schema", "hands[0].claimed.trick_winners", 0, None, None)
    assert v.message == message


def test_claimed_trick_winners_of_an_unfinished_hand_name_its_tricks() -> None:
    record = base()
    hand = record["hands"][0]
    hand["tricks"] = hand["tricks"][:5]
    hand["claimed"] = {"trick_winners": hand["claimed"]["trick_winners"][:5]}
    assert replay_game(record).violations == []


def test_a_last_trick_a_card_short_is_taken_by_no_one(tmp_path: Path) -> None:
    """The record ends inside a trick: its fault is the deck's, and no one is known to
    have taken the trick (the missing cards may win it), so it has no winner, in the
    replay and in the warehouse, and counts for neither side."""
    from pipeline.warehouse.api import Warehouse, load

    record = base()
    hand = record["hands"][0]
    hand["tricks"] = hand["tricks"][:4]
    hand["tricks"][3] = hand["tricks"][3][:2]
    del hand["claimed"]
    result = replay_game(record)
    assert [v.code for v in result.violations] == ["deck"]
    tricks = result.hands[0].tricks
    assert tricks[3].winner is None and all(t.winner is not None for t in tricks[:3])
    taker = result.hands[0].taker
    assert result.hands[0].taker_tricks == sum(t.winner == taker for t in tricks[:3])
    (tmp_path / "g.jsonl").write_bytes(orjson.dumps(record) + b"\n")
    load([str(tmp_path / "g.jsonl")], tmp_path / "w.duckdb")
    with Warehouse.open(tmp_path / "w.duckdb") as wh:
        rows = wh.sql("select trick_no, winner, cards from tarot.tricks order by trick_no").rows()
    assert rows[3] == (3, None, 2)


@pytest.mark.parametrize(
    ("order", "found"),
    [
        ([1, 2, 3, 0], []),
        ([2, 3, 0, 1], [("hands[0].bids[0]", 2)]),  # begun from the wrong seat, then in turn
        ([2, 1, 3, 0], [("hands[0].bids[0]", 2)]),  # two calls recorded swapped
        ([1, 3, 2, 0], [("hands[0].bids[1]", 3)]),
        ([1, 2, 3], [("hands[0].bids", 0)]),  # a call left out: that seat never called, no more
        ([1, 2, 0], [("hands[0].bids", 3)]),  # and not seat 0 out of turn after it
    ],
)
def test_one_misordered_bidding_is_one_bid_turn(order: list[int], found: list[tuple[str, int]]) -> None:
    record = base()
    hand = record["hands"][0]
    assert hand["dealer"] == 0
    by_seat = {b["seat"]: b for b in hand["bids"]}
    hand["bids"] = [by_seat[s] for s in order]
    got = [(v.path, v.seat) for v in replay_game(record).violations if v.code == "bid_turn"]
    assert got == found
    assert all(v.code == "bid_turn" for v in replay_game(record).violations)
