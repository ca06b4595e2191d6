"""One hand, and one game, of Euchre played by the bots, written as euchre/1.

The flow follows the rules of the record's preset: a deal of five each, two
rounds of bidding from the dealer's left (stick the dealer, or an all-pass
throw-in), the dealer's pick-up and discard, a lone defender where allowed,
five tricks led as the replay expects, and the points of ``team_points``.
The bots (:mod:`bots`) make every choice; the rules come from :mod:`cards`,
:mod:`rules`, :mod:`trick` and :mod:`scoring`, the replay's own, never from a
second copy.

>>> import random
>>> from pipeline.games.euchre.replay import replay_game
>>> from pipeline.games.euchre.rules import PRESETS
>>> game = play_game(PRESETS["pagat"], "demo-0", ["ana", "ben", "cleo", "dev"], random.Random(7))
>>> replay = replay_game(game)
>>> replay.violations, replay.ended_at == len(game["hands"]) - 1, max(game["final_score"]) >= 10
([], True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from pipeline.games.euchre import bots
from pipeline.games.euchre.cards import CARD_NAMES, JOKER, NUM_CARDS, bit, cards_in, deck_mask, suit_of
from pipeline.games.euchre.rules import (
    Call,
    Rules,
    ThrowIn,
    caller,
    can_call,
    can_defend_alone,
    dealer_picks_up,
    first_leader,
    is_farmers_hand,
    next_dealer,
    sitting_out,
    team_of,
)
from pipeline.games.euchre.scoring import team_points
from pipeline.games.euchre.trick import play_order, trick_winner_index

#: A game that has not ended after this many hands is a bug, not bad luck.
MAX_HANDS = 500


@dataclass(slots=True)
class Contract:
    """Who made trump, how, and who is alone."""

    maker: int
    trump: int
    round: int
    alone: bool
    defender_alone: int | None = None


@dataclass(slots=True)
class HandPlay:
    """A simulated hand: its record (without the claimed score) and its points."""

    record: dict[str, Any]
    points: tuple[int, int]
    contract: Contract | None


@cache
def _deck_cards(size: int) -> tuple[int, ...]:
    return tuple(cards_in(deck_mask(size)))


@cache
def _not_in_deck(size: int) -> int:
    return ~deck_mask(size) & ((1 << NUM_CARDS) - 1)


def _shuffled(cards: tuple[int, ...], rng: random.Random) -> list[int]:
    """A uniformly random order (sorting by random keys is cheaper than ``rng.shuffle``)."""
    return sorted(cards, key=lambda _card: rng.random())


def play_hand(rules: Rules, dealer: int, rng: random.Random) -> HandPlay:
    """Deal, bid and play one hand; the record lacks only ``claimed.score``."""
    deck = _shuffled(_deck_cards(rules.deck), rng)
    deal = [deck[5 * s : 5 * s + 5] for s in range(4)]
    upcard = deck[20]
    record: dict[str, Any] = {
        "dealer": dealer,
        "deal": [[CARD_NAMES[c] for c in cards] for cards in deal],
        "upcard": CARD_NAMES[upcard],
        "kitty": [CARD_NAMES[c] for c in deck[21:]],
    }
    hands = [sum(1 << c for c in cards) for cards in deal]
    if rules.farmers_hand and any(is_farmers_hand(h) for h in hands):
        return _thrown_in(record, ThrowIn.FARMERS_HAND, [])
    bids, contract = _bidding(rules, hands, dealer, upcard, rng)
    if contract is None:
        return _thrown_in(record, ThrowIn.ALL_PASSED, bids)
    record["bids"] = bids
    gone = _not_in_deck(rules.deck)
    if dealer_picks_up(rules, dealer, contract.maker, contract.alone, contract.round):
        discard = _pick_up(hands, dealer, upcard, contract.trump)
        record["discard"] = CARD_NAMES[discard]
    else:
        gone |= bit(upcard)
    contract.defender_alone = _lone_defender(rules, hands, contract)
    if contract.defender_alone is not None:
        record["defender_alone"] = contract.defender_alone
    tricks, winners, points = _play_tricks(rules, hands, dealer, contract, gone)
    record["tricks"] = tricks
    record["claimed"] = {"trick_winners": winners, "points": list(points)}
    return HandPlay(record, points, contract)


def _thrown_in(record: dict[str, Any], reason: ThrowIn, bids: list[dict[str, Any]]) -> HandPlay:
    record["bids"] = bids
    record["thrown_in"] = reason.value
    record["claimed"] = {"points": [0, 0]}
    return HandPlay(record, (0, 0), None)


def _bidding(
    rules: Rules, hands: list[int], dealer: int, upcard: int, rng: random.Random
) -> tuple[list[dict[str, Any]], Contract | None]:
    """Two rounds of calls from the dealer's left: the bids spoken and the contract, if any.

    Each seat judges its hand with a little noise, as people do.
    """
    bids: list[dict[str, Any]] = []
    turned = None if upcard == JOKER else suit_of(upcard)
    seats = [caller(dealer, k) for k in range(4)]
    if turned is not None:
        for seat in seats:
            strength = bots.round_one_strength(hands[seat], seat, dealer, upcard, turned)
            judged = strength + rng.gauss(0.0, bots.JUDGEMENT_NOISE)
            if judged >= (bots.DEALER_ORDER_AT if seat == dealer else bots.ORDER_AT):
                alone = bots.goes_alone(hands[seat], turned, judged) and can_call(
                    rules, Call.ORDER, True, 1, seat, dealer, turned
                )
                return _call(bids, seat, Call.ORDER, alone), Contract(seat, turned, 1, alone)
            bids.append({"seat": seat, "call": Call.PASS.value})
    for seat in seats:
        suit, strength = bots.best_named_suit(hands[seat], seat, dealer, turned)
        judged = strength + rng.gauss(0.0, bots.JUDGEMENT_NOISE)
        stuck = not can_call(rules, Call.PASS, False, 2, seat, dealer, turned)  # stick the dealer
        if judged >= bots.NAME_AT or stuck:
            alone = bots.goes_alone(hands[seat], suit, judged) and can_call(
                rules, NAMING[suit], True, 2, seat, dealer, turned
            )
            return _call(bids, seat, NAMING[suit], alone), Contract(seat, suit, 2, alone)
        bids.append({"seat": seat, "call": Call.PASS.value})
    return bids, None


#: The round-two call that names each suit.
NAMING = (Call.CLUBS, Call.DIAMONDS, Call.HEARTS, Call.SPADES)


def _call(bids: list[dict[str, Any]], seat: int, call: Call, alone: bool) -> list[dict[str, Any]]:
    bid = {"seat": seat, "call": call.value}
    bids.append({**bid, "alone": True} if alone else bid)
    return bids


def _pick_up(hands: list[int], dealer: int, upcard: int, trump: int) -> int:
    six = hands[dealer] | bit(upcard)
    discard = bots.choose_discard(six, trump, upcard)
    hands[dealer] = six & ~bit(discard)
    return discard


def _lone_defender(rules: Rules, hands: list[int], contract: Contract) -> int | None:
    """The first defender, clockwise from the maker, who may and will defend alone."""
    for step in (1, 3):
        seat = (contract.maker + step) % 4
        if can_defend_alone(rules, seat, contract.maker) and bots.defends_alone(hands[seat], contract.trump):
            return seat
    return None


def _play_tricks(
    rules: Rules, hands: list[int], dealer: int, contract: Contract, gone: int
) -> tuple[list[list[list[Any]]], list[int], tuple[int, int]]:
    """Five tricks: the plays as recorded, the winners and the hand's points by team."""
    out = sitting_out(contract.maker, contract.alone, contract.defender_alone)
    leader = first_leader(rules, dealer, contract.maker, contract.alone, contract.defender_alone)
    table = bots.Table(contract.trump, contract.maker, hands, gone, out)
    tricks: list[list[list[Any]]] = []
    winners: list[int] = []
    maker_team = team_of(contract.maker)
    maker_tricks = 0
    trump = contract.trump
    choose = bots.choose_card
    for _ in range(5):
        plays: list[tuple[int, int]] = []
        for seat in play_order(leader, out):
            card = choose(table, seat, plays)
            hands[seat] ^= 1 << card
            plays.append((seat, card))
        cards = [card for _, card in plays]
        table.gone |= sum(1 << card for card in cards)
        leader = plays[trick_winner_index(cards, trump)][0]
        winners.append(leader)
        maker_tricks += team_of(leader) == maker_team
        tricks.append([[seat, CARD_NAMES[card]] for seat, card in plays])
    points = team_points(
        rules, contract.maker, maker_tricks, contract.alone, contract.defender_alone is not None
    )
    return tricks, winners, points


def play_game(
    rules: Rules,
    game_id: str,
    players: list[str],
    rng: random.Random,
    *,
    started_at: str | None = None,
    source: str = "tricklog-simulate",
) -> dict[str, Any]:
    """A whole game from a random first dealer until a team reaches the target."""
    record: dict[str, Any] = {
        "format": "euchre/1",
        "game_id": game_id,
        "players": players,
        "rules": {"preset": rules.preset},
        "source": source,
    }
    if started_at is not None:
        record["started_at"] = started_at
    dealer = rng.randrange(4)
    score = [0, 0]
    hands: list[dict[str, Any]] = []
    while max(score) < rules.target:
        if len(hands) >= MAX_HANDS:
            raise RuntimeError(f"{game_id}: no team reached {rules.target} in {MAX_HANDS} hands")
        hand = play_hand(rules, dealer, rng)
        score[0] += hand.points[0]
        score[1] += hand.points[1]
        hand.record["claimed"]["score"] = list(score)
        hands.append(hand.record)
        dealer = next_dealer(dealer)
    record["hands"] = hands
    record["final_score"] = score
    return record
