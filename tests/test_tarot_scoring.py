"""Scoring French Tarot: the seed's worked example, the formula case by case, the Excuse.

X = s(25 + |P - T|)m + 10bm + s*poignee + chelem; the taker scores 3X and each
defender -X.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.games.tarot.cards import (
    BOUTS,
    DECK,
    EXCUSE,
    HALF_POINTS,
    PETIT,
    T21,
    cards_in,
    half_points_of,
    mask_of,
    parse_card,
)
from pipeline.games.tarot.replay import replay_game
from pipeline.games.tarot.rules import Rules
from pipeline.games.tarot.scoring import contract_score, contract_value, count_cards, petit_au_bout, scores_of
from pipeline.games.tarot.state import PlayedTrick, TarotHand

FFT = Rules()
#: The seed's example: the attack's tricks hold one bout (the Petit) and 44 points.
ATTACK = mask_of(["T1", "KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC", "NS", "NH", "ND"])
#: The chien: the 21 and five low cards, 7 points.
CHIEN = ["T21", "1S", "2S", "3S", "4S", "5S"]


def seed_hand(contract: str) -> TarotHand:
    """Seat 0 takes; it wins one trick holding the attack's cards, the defence one with the rest."""
    chien = mask_of(CHIEN)
    rest = ((1 << 78) - 1) & ~ATTACK & ~chien
    hand = TarotHand(0, 3, contract=contract, taker=0, chien=[c for c in cards_in(chien)])
    hand.tricks = [
        PlayedTrick(0, [(0, c) for c in cards_in(ATTACK)], winner=0),
        PlayedTrick(1, [(1, c) for c in cards_in(rest)], winner=1),
    ]
    return hand


def test_the_seed_example_cards() -> None:
    assert half_points_of(ATTACK) == 88 and (ATTACK & BOUTS).bit_count() == 1
    assert half_points_of(mask_of(CHIEN)) == 14


@given(mask=st.integers(0, DECK))
def test_half_points_of_any_cards_are_their_cards_points(mask: int) -> None:
    assert half_points_of(mask) == sum(HALF_POINTS[c] for c in cards_in(mask))


def test_seed_example_garde_sans_makes_by_10() -> None:
    counted = count_cards(seed_hand("garde_sans"), FFT)
    assert (counted.taker_half, counted.bouts) == (2 * 51, 2)
    assert contract_value(FFT, "garde_sans", taker_half=counted.taker_half, bouts=counted.bouts) == (
        41,
        10.0,
        True,
        (25 + 10) * 4,
    )


def test_seed_example_garde_contre_fails_by_7() -> None:
    counted = count_cards(seed_hand("garde_contre"), FFT)
    assert (counted.taker_half, counted.bouts) == (2 * 44, 1)
    assert contract_value(FFT, "garde_contre", taker_half=counted.taker_half, bouts=counted.bouts) == (
        51,
        -7.0,
        False,
        -(25 + 7) * 6,
    )


def test_points_are_conserved_in_the_seed_example() -> None:
    for contract in ("garde_sans", "garde_contre"):
        counted = count_cards(seed_hand(contract), FFT)
        assert counted.taker_half + counted.defence_half == 182


@pytest.mark.parametrize(("bouts", "target"), [(0, 56), (1, 51), (2, 41), (3, 36)])
def test_targets_and_reaching_them_exactly_is_made(bouts: int, target: int) -> None:
    assert contract_value(FFT, "prise", taker_half=2 * target, bouts=bouts) == (target, 0.0, True, 25)
    assert contract_value(FFT, "prise", taker_half=2 * target - 2, bouts=bouts)[2:] == (False, -26)


@pytest.mark.parametrize(
    ("contract", "made", "down"),
    [("prise", 35, -35), ("garde", 70, -70), ("garde_sans", 140, -140), ("garde_contre", 210, -210)],
)
def test_each_contract_multiplies_the_base(contract: str, made: int, down: int) -> None:
    # 1 bout, target 51: 61 points makes by 10, 41 is down by 10
    assert contract_score(FFT, contract, taker_half=2 * 61, bouts=1) == made
    assert contract_score(FFT, contract, taker_half=2 * 41, bouts=1) == down


@pytest.mark.parametrize(
    ("b", "made", "expected"),
    [
        (1, True, 70 + 20),  # the taker's petit au bout, garde made: 10 x 2 more
        (1, False, -70 + 20),  # it counts whatever the result
        (-1, True, 70 - 20),  # the defence's petit au bout
        (-1, False, -70 - 20),
    ],
)
def test_petit_au_bout_to_either_side(b: int, made: bool, expected: int) -> None:
    half = 2 * (61 if made else 41)
    assert contract_score(FFT, "garde", taker_half=half, bouts=1, petit_au_bout=b) == expected


@pytest.mark.parametrize(("name", "value"), [("simple", 20), ("double", 30), ("triple", 40)])
def test_each_poignee_goes_to_the_side_that_wins(name: str, value: int) -> None:
    for shown_by in (0, 2):  # the taker's own poignée, or a defender's
        assert (
            contract_score(FFT, "garde", taker_half=2 * 61, bouts=1, poignees=[(shown_by, name)])
            == 70 + value
        )
        assert (
            contract_score(FFT, "garde", taker_half=2 * 41, bouts=1, poignees=[(shown_by, name)])
            == -70 - value
        )


def test_poignee_local_table_kept_by_the_announcer() -> None:
    local = Rules.from_record({"poignee_values": [20, 40, 60], "poignee_to": "announcer"})
    assert contract_score(local, "prise", taker_half=2 * 41, bouts=1, poignees=[(0, "double")]) == -35 + 40
    assert contract_score(local, "prise", taker_half=2 * 61, bouts=1, poignees=[(1, "triple")]) == 35 - 60


def test_chelem_announced_and_made() -> None:
    x = contract_score(FFT, "garde_sans", taker_half=182, bouts=3, chelem_announcer=0, taker_tricks=18)
    assert x == (25 + 55) * 4 + 400


def test_chelem_made_unannounced() -> None:
    assert contract_score(FFT, "garde", taker_half=182, bouts=3, taker_tricks=18) == (25 + 55) * 2 + 200


def test_chelem_announced_and_failed() -> None:
    assert (
        contract_score(FFT, "garde", taker_half=2 * 61, bouts=1, chelem_announcer=0, taker_tricks=17)
        == 70 - 200
    )


def test_defence_chelem() -> None:
    assert contract_score(FFT, "prise", taker_half=0, bouts=0, taker_tricks=0) == -(25 + 56) - 200
    # announced by the taker and the defence takes every trick: -200 once, never twice
    assert (
        contract_score(FFT, "prise", taker_half=0, bouts=0, chelem_announcer=0, taker_tricks=0) == -81 - 200
    )


def test_scores_sum_to_zero() -> None:
    assert scores_of(-31, 1) == (31, -93, 31, 31)
    assert sum(scores_of(1234, 3)) == 0


def excuse_hand(last: bool, excuse_by: int, winner: int) -> TarotHand:
    """Seat 0 takes; the Excuse is played in trick 0 (or the last) by ``excuse_by``; ``winner`` wins it."""
    hand = TarotHand(0, 3, contract="garde_sans", taker=0, chien=[])
    cards = [c for c in range(78) if c != EXCUSE]
    tricks = []
    for _ in range(18):
        plays = [(s, cards.pop()) for s in range(4)]
        tricks.append(PlayedTrick(0, plays, winner=1))
    special = tricks[17 if last else 0]
    seat, card = special.plays[excuse_by]
    special.plays[excuse_by] = (seat, EXCUSE)
    cards.append(card)
    special.winner = winner
    hand.chien = cards[:6]
    hand.tricks = tricks
    return hand


def test_the_excuse_goes_back_to_its_side_for_a_half_point_card() -> None:
    counted = count_cards(excuse_hand(last=False, excuse_by=0, winner=1), FFT)
    assert counted.excuse_side == 0
    assert counted.taker_half + counted.defence_half == 182
    assert counted.exchange == (-1, 1)


def test_the_excuse_at_the_last_trick_goes_to_the_side_that_wins_it() -> None:
    fft = count_cards(excuse_hand(last=True, excuse_by=1, winner=2), FFT)
    assert fft.excuse_side == 1  # a defender's Excuse, a defender's trick: the defence keeps it
    lost = count_cards(
        excuse_hand(last=True, excuse_by=1, winner=2), Rules.from_record({"excuse_last_trick": "lost"})
    )
    assert lost.excuse_side == 0  # always lost at the last trick: the taker takes it
    assert lost.taker_half + lost.defence_half == 182
    taker_excuse = count_cards(excuse_hand(last=True, excuse_by=0, winner=1), FFT)
    assert taker_excuse.excuse_side == 1  # the taker's Excuse, lost to the defence: no exchange
    assert taker_excuse.exchange == (0, 0)


def test_tokens_and_bouts() -> None:
    assert [parse_card(t) for t in ("T1", "T21", "EX")] == [PETIT, T21, EXCUSE]
    assert parse_card("T22") is None and parse_card("11H") is None and parse_card(7) is None


def test_a_card_played_twice_in_a_trick_counts_once() -> None:
    """A corrupt record may show one card twice in a trick (the second play is a
    ``not_held`` violation): it is one card won, not the card above it (the
    Queen of clubs twice counted as the King)."""
    queen = parse_card("QC")
    hand = TarotHand(0, 3, contract="garde_sans", taker=0, chien=[])
    hand.tricks = [PlayedTrick(0, [(0, queen), (1, queen)], winner=0)]
    counted = count_cards(hand, FFT)
    assert counted.won == (1 << queen, 0)
    assert counted.taker_half == 7


#: A garde sans chelem: seat 1 holds every trump but T2 to T4 and wins every trick.
CHELEM_DEAL = [
    [
        "T4",
        "1S",
        "2S",
        "3S",
        "4S",
        "5S",
        "6S",
        "7S",
        "8S",
        "9S",
        "10S",
        "JS",
        "NS",
        "QS",
        "KS",
        "1H",
        "2H",
        "3H",
    ],
    [
        "T1",
        "T5",
        "T6",
        "T7",
        "T8",
        "T9",
        "T10",
        "T11",
        "T12",
        "T13",
        "T14",
        "T15",
        "T16",
        "T17",
        "T18",
        "T19",
        "T20",
        "T21",
    ],
    [
        "T2",
        "EX",
        "4H",
        "5H",
        "6H",
        "7H",
        "8H",
        "9H",
        "10H",
        "JH",
        "NH",
        "QH",
        "KH",
        "1D",
        "2D",
        "3D",
        "4D",
        "5D",
    ],
    [
        "T3",
        "6D",
        "7D",
        "8D",
        "9D",
        "10D",
        "JD",
        "ND",
        "QD",
        "KD",
        "1C",
        "2C",
        "3C",
        "4C",
        "5C",
        "6C",
        "7C",
        "8C",
    ],
]
#: What seats 2, 3 and 0 play to each trick, trick 0 to 16.
CHELEM_FOLLOWS = [
    ("T2", "T3", "T4"),
    ("1D", "1C", "1S"),
    ("2D", "2C", "1H"),
    ("3D", "3C", "2S"),
    ("4H", "4C", "2H"),
    ("4D", "5C", "3S"),
    ("5H", "6D", "3H"),
    ("5D", "6C", "4S"),
    ("6H", "7D", "5S"),
    ("7H", "7C", "6S"),
    ("8H", "8D", "7S"),
    ("9H", "8C", "8S"),
    ("10H", "9D", "9S"),
    ("JH", "10D", "10S"),
    ("NH", "JD", "JS"),
    ("QH", "ND", "NS"),
    ("KH", "QD", "QS"),
]


def chelem_record(taker_trumps: list[str]) -> dict[str, Any]:
    """Seat 1 leads ``taker_trumps`` (18, in order) in a garde sans and wins every
    trick; a defender (seat 2) plays the Excuse to the last trick."""
    follows = [*CHELEM_FOLLOWS, ("EX", "KD", "KS")]
    tricks = [
        [[1, lead], [2, a], [3, b], [0, c]] for lead, (a, b, c) in zip(taker_trumps, follows, strict=True)
    ]
    hand = {
        "dealer": 0,
        "deal": CHELEM_DEAL,
        "chien": ["9C", "10C", "JC", "NC", "QC", "KC"],
        "bids": [
            {"seat": 1, "call": "garde_sans"},
            {"seat": 2, "call": "pass"},
            {"seat": 3, "call": "pass"},
            {"seat": 0, "call": "pass"},
        ],
        "tricks": tricks,
    }
    return {"format": "tarot/1", "game_id": "chelem", "players": ["a", "b", "c", "d"], "hands": [hand]}


TRUMPS_DOWN = [f"T{n}" for n in range(21, 4, -1)]


@pytest.mark.parametrize(
    ("taker_trumps", "au_bout", "scores"),
    [
        # the Petit wins the last trick, where a defender threw the Excuse: au bout
        # X = (25 + 55) x 4 + 10 x 4 + 200 = 560
        ([*TRUMPS_DOWN, "T1"], "taker", (-560, 1680, -560, -560)),
        # the Petit in the last-but-one trick is au bout only when the chelem's
        # own side plays the Excuse last: not here; X = (25 + 55) x 4 + 200 = 520
        ([*TRUMPS_DOWN[:-1], "T1", "T5"], None, (-520, 1560, -520, -520)),
    ],
)
def test_a_defenders_excuse_in_the_last_trick_of_a_chelem_leaves_it_the_last(
    taker_trumps: list[str], au_bout: str | None, scores: tuple[int, ...]
) -> None:
    game = replay_game(chelem_record(taker_trumps))
    assert game.violations == []
    hand = game.hands[0]
    assert (hand.chelem_made, hand.bouts, hand.petit_au_bout, hand.scores) == (True, 3, au_bout, scores)


def chelem_hand(taker: int, excuse_by: int, petit_trick: int, winner: int) -> TarotHand:
    """Every trick won by ``winner``; the Excuse played by ``excuse_by`` to the
    last trick and the Petit (by ``winner``) to trick ``petit_trick``."""
    hand = TarotHand(0, 3, contract="garde", taker=taker, chien=[])
    others = iter(c for c in range(78) if c not in (EXCUSE, PETIT))
    tricks = [PlayedTrick(0, [(s, next(others)) for s in range(4)], winner=winner) for _ in range(18)]
    tricks[17].plays[excuse_by] = (excuse_by, EXCUSE)
    tricks[petit_trick].plays[winner] = (winner, PETIT)
    hand.tricks = tricks
    hand.chelem_made = winner == taker
    hand.defence_chelem = winner != taker
    return hand


@pytest.mark.parametrize(
    ("taker", "excuse_by", "petit_trick", "winner", "expected"),
    [
        (0, 0, 16, 0, 1),  # the taker's chelem, its own Excuse last: the Petit before it is au bout
        (0, 2, 16, 0, 0),  # a defender's Excuse last: the last trick has no Petit
        (0, 2, 17, 0, 1),  # ... and the Petit in it is au bout
        (0, 1, 16, 2, -1),  # a defence chelem, a defender's Excuse last
        (0, 0, 16, 2, 0),  # a defence chelem, the taker's Excuse last
        (0, 0, 17, 2, -1),
    ],
)
def test_petit_au_bout_before_the_chelem_sides_excuse(
    taker: int, excuse_by: int, petit_trick: int, winner: int, expected: int
) -> None:
    hand = chelem_hand(taker, excuse_by, petit_trick, winner)
    assert petit_au_bout(hand, FFT) == expected
    option_off = Rules.from_record({"petit_au_bout_before_excuse": False})
    assert petit_au_bout(hand, option_off) == (expected if petit_trick == 17 else 0)
    tarotclub = Rules.from_record({"petit_au_bout_excuse_by": "any"})  # any Excuse last: the trick before
    au_bout_before = 1 if winner == taker else -1
    assert petit_au_bout(hand, tarotclub) == (au_bout_before if petit_trick == 16 else 0)
