"""Property-based tests of the Euchre engine against a second, naive implementation.

The oracle below plays random legal hands with cards as strings and the rules
written out plainly (no bit masks, no tables); the engine must find every such
game clean, must score it as the spec's table says, and must catch a renege or
a card not held wherever one is planted.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.euchre.cards import mask_of
from pipeline.games.euchre.replay import replay_game
from pipeline.games.euchre.rules import PRESETS, Rules
from pipeline.games.euchre.scoring import hand_points
from pipeline.games.euchre.trick import is_legal_play, legal_plays, play_order, trick_winner

SUITS = "CDHS"
PARTNER_SUIT = {"C": "S", "S": "C", "D": "H", "H": "D"}

# The spec's scoring table: (make 3-4, march, lone make, lone march, euchre, lone euchre,
# lone defender 3-4, lone defender 5).
SPEC_POINTS = {
    "cards4net": (1, 2, 1, 4, 2, 2, None, None),
    "pagat": (1, 2, 1, 4, 2, 2, 2, 4),
    "french": (1, 2, 1, 4, 2, 4, 2, 4),
}


def oracle_points(preset: str, tricks: int, alone: bool, defender_alone: bool) -> tuple[int, int]:
    make, march, lone_make, lone_march, euchre, lone_euchre, def34, def5 = SPEC_POINTS[preset]
    if tricks == 5:
        return (lone_march if alone else march), 0
    if tricks >= 3:
        return (lone_make if alone else make), 0
    against = lone_euchre if alone else euchre
    if defender_alone:
        assert def34 is not None and def5 is not None
        against = max(against, def5 if tricks == 0 else def34)
    return 0, against


@pytest.mark.parametrize("preset", sorted(SPEC_POINTS))
def test_scoring_matches_the_spec_table(preset: str) -> None:
    rules = PRESETS[preset]
    for tricks in range(6):
        for alone in (False, True):
            for defender in (False, True) if rules.defend_alone else (False,):
                assert hand_points(rules, tricks, alone, defender) == oracle_points(
                    preset, tricks, alone, defender
                )


# --- the oracle: plain rules over string cards -------------------------------------------------


def suit_as_played(card: str, trump: str) -> str:
    if card[0] == "J" and card[1] == PARTNER_SUIT[trump]:
        return trump
    return card[1]


def strength(card: str, trump: str, led: str) -> int:
    order = "9TJQKA"
    if card == "J" + trump:
        return 200
    if card == "J" + PARTNER_SUIT[trump]:
        return 199
    if suit_as_played(card, trump) == trump:
        return 100 + order.index(card[0])
    if card[1] == led:
        return 1 + order.index(card[0])
    return 0


def oracle_legal(hand: list[str], trump: str, led: str | None) -> list[str]:
    if led is None:
        return list(hand)
    follow = [c for c in hand if suit_as_played(c, trump) == led]
    return follow or list(hand)


def random_hand(rng: random.Random, rules: Rules, dealer: int) -> tuple[dict[str, Any], tuple[int, int]]:
    """One random legal hand of five tricks, and its points by team, played out by the oracle."""
    deck = [r + s for s in SUITS for r in "9TJQKA"]
    rng.shuffle(deck)
    deal = [deck[i * 5 : i * 5 + 5] for i in range(4)]
    upcard, kitty = deck[20], deck[21:24]
    hands = [list(h) for h in deal]
    bids: list[dict[str, Any]] = []
    order_up = rng.random() < 0.5
    first = [(dealer + 1 + i) % 4 for i in range(4)]
    maker = rng.choice(first)
    for seat in first:
        if order_up and seat == maker:
            break
        bids.append({"seat": seat, "call": "pass"})
    if not order_up:
        for seat in first:
            if seat == maker:
                break
            bids.append({"seat": seat, "call": "pass"})
    trump = upcard[1] if order_up else rng.choice([s for s in SUITS if s != upcard[1]])
    alone = rng.random() < 0.25
    bids.append({"seat": maker, "call": "order" if order_up else trump, **({"alone": True} if alone else {})})
    record: dict[str, Any] = {"dealer": dealer, "deal": deal, "upcard": upcard, "kitty": kitty, "bids": bids}
    out: set[int] = set()
    if alone:
        out.add((maker + 2) % 4)
    defender = None
    if rules.defend_alone and rng.random() < 0.2:
        defender = rng.choice([(maker + 1) % 4, (maker + 3) % 4])
        record["defender_alone"] = defender
        out.add((defender + 2) % 4)
    if order_up:
        hands[dealer].append(upcard)
        discard = rng.choice(hands[dealer])
        hands[dealer].remove(discard)
        record["discard"] = discard
    if alone and defender is not None:
        leader = defender
    else:
        lone = maker if alone else defender
        start = dealer + 1 if lone is None or rules.alone_lead == "left_of_dealer" else lone + 1
        leader = next((start + i) % 4 for i in range(4) if (start + i) % 4 not in out)
    tricks, winners, maker_tricks = [], [], 0
    for _ in range(5):
        trick: list[list[Any]] = []
        led = None
        for i in range(4):
            seat = (leader + i) % 4
            if seat in out:
                continue
            card = rng.choice(oracle_legal(hands[seat], trump, led))
            hands[seat].remove(card)
            led = led or suit_as_played(card, trump)
            trick.append([seat, card])
        assert led is not None
        winner = max(trick, key=lambda p: strength(p[1], trump, led))[0]
        tricks.append(trick)
        winners.append(winner)
        maker_tricks += winner % 2 == maker % 2
        leader = winner
    makers, defenders = oracle_points(rules.preset, maker_tricks, alone, defender is not None)
    points = (makers, defenders) if maker % 2 == 0 else (defenders, makers)
    record["tricks"] = tricks
    record["claimed"] = {"trick_winners": winners, "points": list(points)}
    return record, points


def random_game(seed: int, preset: str, hands: int = 4) -> dict[str, Any]:
    rng = random.Random(seed)
    rules = PRESETS[preset]
    dealer = rng.randrange(4)
    score = [0, 0]
    played = []
    for _ in range(hands):
        hand, points = random_hand(rng, rules, dealer)
        score = [score[0] + points[0], score[1] + points[1]]
        hand["claimed"]["score"] = list(score)
        played.append(hand)
        dealer = (dealer + 1) % 4
        if max(score) >= rules.target:
            break
    return {
        "format": "euchre/1",
        "game_id": f"oracle-{seed}",
        "players": ["a", "b", "c", "d"],
        "rules": {"preset": preset},
        "hands": played,
        "final_score": score,
    }


PRESET_NAMES = st.sampled_from(sorted(PRESETS))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), preset=PRESET_NAMES)
def test_random_legal_games_replay_clean(seed: int, preset: str) -> None:
    record = random_game(seed, preset)
    replay = replay_game(record)
    assert replay.violations == []
    assert list(replay.score) == record["final_score"]
    for hand, result in zip(record["hands"], replay.hands, strict=True):
        assert result.winners == hand["claimed"]["trick_winners"]


def plays_of(record: dict[str, Any]) -> list[tuple[int, int, int]]:
    return [
        (h, t, k)
        for h, hand in enumerate(record["hands"])
        for t, trick in enumerate(hand["tricks"])
        for k in range(len(trick))
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=st.integers(0, 2**32), preset=PRESET_NAMES, pick=st.randoms(use_true_random=False))
def test_a_planted_renege_is_caught(seed: int, preset: str, pick: random.Random) -> None:
    """Swap two of a seat's cards between tricks so that it fails to follow: always a renege."""
    record = random_game(seed, preset)
    candidates = []
    for h, hand in enumerate(record["hands"]):
        trump = _trump_of(hand)
        for t, trick in enumerate(hand["tricks"]):
            led = suit_as_played(trick[0][1], trump)
            for k in range(1, len(trick)):
                seat, card = trick[k]
                if suit_as_played(card, trump) != led:
                    continue
                for t2 in range(t + 1, 5):
                    for k2, (seat2, card2) in enumerate(hand["tricks"][t2]):
                        if seat2 == seat and suit_as_played(card2, trump) != led:
                            candidates.append((h, t, k, t2, k2))
    if not candidates:
        return
    h, t, k, t2, k2 = pick.choice(candidates)
    broken = copy.deepcopy(record)
    tricks = broken["hands"][h]["tricks"]
    tricks[t][k][1], tricks[t2][k2][1] = tricks[t2][k2][1], tricks[t][k][1]
    found = [(v.code, v.path) for v in replay_game(broken).violations]
    assert ("renege", f"hands[{h}].tricks[{t}][{k}]") in found


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), preset=PRESET_NAMES, pick=st.randoms(use_true_random=False))
def test_a_card_not_held_is_caught(seed: int, preset: str, pick: random.Random) -> None:
    record = random_game(seed, preset)
    h, t, k = pick.choice(plays_of(record))
    hand = record["hands"][h]
    broken = copy.deepcopy(record)
    broken["hands"][h]["tricks"][t][k][1] = hand["kitty"][0]
    found = {(v.code, v.path) for v in replay_game(broken).violations}
    assert ("not_held", f"hands[{h}].tricks[{t}][{k}]") in found


def _trump_of(hand: dict[str, Any]) -> str:
    call = hand["bids"][-1]["call"]
    return str(hand["upcard"][1]) if call == "order" else str(call)


@given(
    st.lists(st.sampled_from([r + s for s in SUITS for r in "9TJQKA"]), min_size=1, max_size=6, unique=True),
    st.sampled_from(SUITS),
    st.sampled_from([*SUITS, None]),
)
def test_legal_plays_agree_with_the_oracle(hand: list[str], trump: str, led: str | None) -> None:
    """The bit-mask fast path and the plain rule give the same legal cards."""
    t = SUITS.index(trump)
    got = legal_plays(mask_of(" ".join(hand)), t, None if led is None else SUITS.index(led))
    want = mask_of(" ".join(oracle_legal(hand, trump, led)))
    assert got == want


@given(
    st.lists(st.sampled_from([r + s for s in SUITS for r in "9TJQKA"]), min_size=1, max_size=6, unique=True),
    st.sampled_from(SUITS),
    st.sampled_from([*SUITS, None]),
)
def test_the_legality_predicate_agrees_with_the_oracle(hand: list[str], trump: str, led: str | None) -> None:
    """is_legal_play, the one predicate the replay, the bots and the importers use, card by card."""
    t = SUITS.index(trump)
    mask = mask_of(" ".join(hand))
    legal = oracle_legal(hand, trump, led)
    for card in hand:
        got = is_legal_play(
            mask, mask_of(card).bit_length() - 1, t, None if led is None else SUITS.index(led)
        )
        assert got == (card in legal), card


@given(
    st.permutations([r + s for s in SUITS for r in "9TJQKA"]).map(lambda cards: cards[:4]),
    st.sampled_from(SUITS),
    st.integers(0, 3),
    st.sampled_from([(), (0,), (3,), (1, 2), (2, 1)]),
)
def test_trick_winner_and_play_order_agree_with_the_oracle(
    cards: list[str], trump: str, leader: int, out: tuple[int, ...]
) -> None:
    """The seats of a trick come clockwise from its leader, skipping those out; the
    strongest card wins (the oracle's ``strength``)."""
    if leader in out:
        return
    seats = [s for s in ((leader + i) % 4 for i in range(4)) if s not in out]
    assert list(play_order(leader, out)) == seats
    plays = [(seat, mask_of(card).bit_length() - 1) for seat, card in zip(seats, cards, strict=False)]
    led = suit_as_played(cards[0], trump)
    strongest = max(zip(seats, cards, strict=False), key=lambda p: strength(p[1], trump, led))[0]
    assert trick_winner(plays, SUITS.index(trump)) == strongest


DECK_24 = [r + s for s in SUITS for r in "9TJQKA"]
DEAL_TOKENS = st.one_of(
    st.permutations(DECK_24).map(lambda cards: cards[:20]),
    st.lists(st.sampled_from([*DECK_24, "??", "7H", "jd", "10h"]), min_size=20, max_size=20),
)


@settings(max_examples=300, deadline=None)
@given(deal=DEAL_TOKENS, seen=st.sampled_from([0, 1 << 2, 1 << 31]))
def test_the_fast_deal_reader_agrees_with_the_card_by_card_one(deal: list[str], seen: int) -> None:
    """The bit-mask shortcut for a clean deal ends in the same state as reading card by card."""
    from pipeline.games.euchre.holdings import read_clean_deal, read_deal_by_card
    from pipeline.games.euchre.state import Context, HandState

    seats = [deal[i * 5 : i * 5 + 5] for i in range(4)]
    slow = HandState(Context("g"), PRESETS["cards4net"], 0, 0)
    slow_seen = read_deal_by_card(slow, seats, seen)
    fast = HandState(Context("g"), PRESETS["cards4net"], 0, 0)
    if read_clean_deal(fast, seats, seen):
        assert (fast.held, fast.slots, fast.result.deal_known) == (
            slow.held,
            slow.slots,
            slow.result.deal_known,
        )
        assert slow.ctx.violations == [] and slow_seen == seen | sum(fast.held)
    else:
        assert slow.ctx.violations or not slow.result.deal_known or slow_seen & seen
