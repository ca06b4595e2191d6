"""Properties of the Tarot replay on simulated games and random positions.

- simulated games replay with no violation;
- every played deal's card points add up to 91 (182 half points);
- each hand's four scores sum to zero, and the taker's points are a whole number;
- the play obligations and who wins a trick, written here a second time as
  plainly as the rulebook states them, agree with the replay's
  ``legal_cards`` and ``winner_index`` everywhere;
- one fault gives one violation: a trick shown led by the wrong seat, or two
  seats' cards swapped in a trick.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.games.tarot.cards import CARD_CODES, card_name, cards_in
from pipeline.games.tarot.replay import replay_game
from pipeline.games.tarot.scoring import count_cards
from pipeline.games.tarot.simulate import simulate_game
from pipeline.games.tarot.trick import highest_trump, legal_cards, play_fault, winner_index

TOKENS = sorted(CARD_CODES, key=CARD_CODES.__getitem__)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 50))
def test_simulated_games_replay_clean_and_conserve_points(seed: int, n: int) -> None:
    record = simulate_game(n, seed=seed)
    game = replay_game(record)
    assert game.violations == []
    totals = [0, 0, 0, 0]
    for hand in game.hands:
        assert sum(hand.scores) == 0
        totals = [t + s for t, s in zip(totals, hand.scores, strict=True)]
        assert hand.valid and hand.complete and hand.deal_known
        if hand.taker is None:
            assert hand.thrown_in in ("all_passed", "petit_sec") and hand.scores == (0, 0, 0, 0)
            continue
        counted = count_cards(hand, game.rules)
        assert counted.taker_half + counted.defence_half == 182
        assert hand.taker_half_points % 2 == 0  # a whole number of points at four players
        assert hand.scores[hand.taker] == 3 * hand.contract_score
        assert len(hand.tricks) == 18 and all(len(t.plays) == 4 for t in hand.tricks)
    assert list(game.totals) == totals and sum(game.totals) == 0


def _suit(token: str) -> str:
    return "EX" if token == "EX" else "T" if token.startswith("T") else token[-1]


def plain_legal(hand: list[str], trick: list[str]) -> set[str]:
    """What may be played, as the rulebook says it, on card names."""
    led = next((_suit(c) for c in trick if c != "EX"), None)
    if led is None:
        return set(hand)  # leading, or only the Excuse so far: anything
    has_led = any(_suit(c) == led for c in hand)
    trumps = [int(c[1:]) for c in hand if _suit(c) == "T"]
    top = max((int(c[1:]) for c in trick if _suit(c) == "T"), default=0)
    allowed = set()
    for card in hand:
        if card == "EX":
            allowed.add(card)  # the Excuse, at any time
        elif led != "T" and has_led:
            if _suit(card) == led:
                allowed.add(card)  # follow suit
        elif not trumps:
            allowed.add(card)  # neither the suit nor a trump: anything
        elif _suit(card) == "T" and (int(card[1:]) > top or max(trumps) < top):
            allowed.add(card)  # a trump, higher than the trick's if one can be
    return allowed


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    cards = draw(st.permutations(TOKENS))
    size = draw(st.integers(1, 18))
    before = draw(st.integers(0, 3))
    # bias towards trumps in the trick, where the rules are subtle
    return cards[:size], cards[size : size + before]


@settings(max_examples=600, deadline=None)
@given(position=positions())
def test_the_plain_rules_agree_with_legal_cards(position: tuple[list[str], list[str]]) -> None:
    hand, trick = position
    mask = sum(1 << CARD_CODES[c] for c in hand)
    played = [CARD_CODES[c] for c in trick]
    assert {card_name(c) for c in cards_in(legal_cards(mask, played))} == plain_legal(hand, trick)
    for token in hand:
        card = CARD_CODES[token]
        assert (play_fault(mask & ~(1 << card), played, card) is None) == (token in plain_legal(hand, trick))


@settings(max_examples=300, deadline=None)
@given(
    hand=st.lists(
        st.sampled_from([t for t in TOKENS if t.startswith("T") or t in ("EX", "KH", "2H", "3C")]),
        min_size=1,
        max_size=8,
        unique=True,
    ),
    trick=st.lists(
        st.sampled_from([t for t in TOKENS if t.startswith("T") or t in ("EX", "QH", "1H", "QS")]),
        max_size=3,
        unique=True,
    ),
)
def test_the_plain_rules_agree_on_trump_heavy_positions(hand: list[str], trick: list[str]) -> None:
    trick = [c for c in trick if c not in hand]
    mask = sum(1 << CARD_CODES[c] for c in hand)
    played = [CARD_CODES[c] for c in trick]
    assert {card_name(c) for c in cards_in(legal_cards(mask, played))} == plain_legal(hand, trick)


def _rank(token: str) -> int:
    """A suit card's rank (1-10, then J N Q K as 11-14) or a trump's number."""
    face = token[1:] if token.startswith("T") else token[:-1]
    return {"J": 11, "N": 12, "Q": 13, "K": 14}.get(face) or int(face)


def plain_winner(trick: list[str], excuse_wins: bool = False) -> int:
    """Who wins a trick, as the rulebook says it: the highest trump, else the highest
    card of the suit led; the Excuse never (but in a chelem's last trick)."""
    if excuse_wins and "EX" in trick:
        return trick.index("EX")
    trumps = [c for c in trick if _suit(c) == "T"]
    if trumps:
        return trick.index(max(trumps, key=_rank))
    led = next((_suit(c) for c in trick if c != "EX"), None)
    following = [c for c in trick if _suit(c) == led]
    return trick.index(max(following, key=_rank)) if following else 0


@settings(max_examples=600, deadline=None)
@given(
    trick=st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4, unique=True), excuse_wins=st.booleans()
)
def test_the_plain_rules_agree_on_who_wins_a_trick(trick: list[str], excuse_wins: bool) -> None:
    cards = [CARD_CODES[c] for c in trick]
    assert winner_index(cards, excuse_wins=excuse_wins) == plain_winner(trick, excuse_wins)
    assert highest_trump(cards) == max((_rank(c) for c in trick if _suit(c) == "T"), default=0)


def _played_hand(n: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    record = simulate_game(n, seed=33)
    hands = [h for h in record["hands"] if h.get("tricks")]
    return (record, hands[n % len(hands)]) if hands else None


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 200), t=st.integers(1, 17), shift=st.integers(1, 3))
def test_one_wrong_lead_is_one_violation(n: int, t: int, shift: int) -> None:
    found = _played_hand(n)
    if found is None:
        return
    record, hand = found
    trick = hand["tricks"][t]
    hand["tricks"][t] = trick[shift:] + trick[:shift]  # another seat shown leading
    assert [v.code for v in replay_game(record).violations] == ["lead"]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 200), t=st.integers(0, 17), pair=st.sampled_from([(0, 1), (0, 2), (1, 3), (2, 3)]))
def test_two_cards_swapped_between_seats_is_one_violation(n: int, t: int, pair: tuple[int, int]) -> None:
    found = _played_hand(n)
    if found is None:
        return
    record, hand = found
    trick = hand["tricks"][t]
    i, j = pair
    trick[i][1], trick[j][1] = trick[j][1], trick[i][1]
    found_codes = [v.code for v in replay_game(record).violations]
    assert found_codes == ["not_held"], found_codes
