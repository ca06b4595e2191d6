"""Known faults, injected into simulated games to test the validator.

Each fault is one small function that breaks a clean euchre/1 record the way
a buggy exporter or a careless player would, aiming at exactly one violation
code of the spec.  Faults that move cards or seats recompute the ``claimed``
values afterwards, as the buggy exporter would have recorded them, so that the
fault does not cascade into ``trick_winner``, ``points`` or ``score``.  Every
candidate is checked by replaying it: a corruption is kept only when the replay
reports exactly the intended code (generate and verify).  Each fault says
where it struck (a :class:`Site`: the hand, the trick and the seat at fault),
which the replay's violation must name too.

Two codes are about the line rather than the game: ``malformed_json`` (the line
is truncated or loses a quote) and ``duplicate_game`` (the game comes with the
id of an earlier one).

>>> import orjson
>>> from pipeline.games.euchre.simulate import simulate_game
>>> record = simulate_game(0, seed=1)
>>> corruption = corrupt_game(record, "renege", random.Random(1), line=1)
>>> corruption.code, sorted(codes_of(orjson.loads(corruption.text)))
('renege', ['renege'])
>>> site = corruption.site
>>> [(v.hand, v.trick, v.seat) for v in replay_game(orjson.loads(corruption.text)).violations] == [
...     (site.hand, site.trick, site.seat)]
True
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from pipeline import faults
from pipeline.faults import GAME, Corruption, Fault, Site, copy_record, malformed_line
from pipeline.faults import pick_played as _pick_played
from pipeline.faults import played_hands as _played
from pipeline.games.euchre.cards import EFFECTIVE, parse_card, suit_of
from pipeline.games.euchre.codes import CODES
from pipeline.games.euchre.play import play_hand
from pipeline.games.euchre.replay import replay_game
from pipeline.games.euchre.rules import Call, Rules, next_dealer, partner_of, sitting_out
from pipeline.violations import Violation

Record = dict[str, Any]
Hand = dict[str, Any]

#: Every code of the spec a fault can produce (``unsupported`` is not a fault).
FAULT_CODES: tuple[str, ...] = tuple(code for code in CODES if code != "unsupported")
#: How many candidates are tried for one code on one game before giving up.
ATTEMPTS = 12
#: Tokens that are not cards of the 24-card deck.
BAD_TOKENS = ("QX", "1H", "8S", "JK", "AA", "10", "K")


def violations_of(record: Record) -> list[Violation]:
    return replay_game(record).violations


def codes_of(record: Record) -> set[str]:
    """The violation codes the replay reports for one record."""
    return {v.code for v in violations_of(record)}


def reclaim(record: Record) -> None:
    """Overwrite every claimed value with what the replay finds."""
    game = replay_game(record)
    for result in game.hands:
        claimed = record["hands"][result.index].setdefault("claimed", {})
        if "trick_winners" in claimed and None in result.winners:  # a trick a card short: no one took it
            del claimed["trick_winners"]
        elif "trick_winners" in claimed:
            claimed["trick_winners"] = list(result.winners)
        claimed["points"] = list(result.points)
        claimed["score"] = list(result.score)
    record["final_score"] = list(game.score)


# --------------------------------------------------------------------------
# Choosing where to strike


def _index(items: list[Any], item: object) -> int:
    """The position of ``item`` itself (not an equal one) in ``items``."""
    return next(i for i, x in enumerate(items) if x is item)


def _at(record: Record, hand: Hand, trick: list[Any] | None = None, seat: int | None = None) -> Site:
    """The site of a fault in ``hand`` of ``record`` (and in ``trick`` of it, by ``seat``)."""
    t = None if trick is None else _index(hand["tricks"], trick)
    return Site(_index(record["hands"], hand), t, seat)


def _maker_bid(hand: Hand) -> dict[str, Any]:
    return next(b for b in hand["bids"] if b["call"] != "pass")


def _trump(hand: Hand) -> int:
    call = Call(_maker_bid(hand)["call"])
    if call == Call.ORDER:
        return suit_of(_card(hand["upcard"]))
    trump = call.suit
    assert trump is not None
    return trump


def _card(token: str) -> int:
    card = parse_card(token)
    assert card is not None
    return card


def _sitting_out(hand: Hand) -> int | None:
    """The seat that sits out of a played hand, if any (the loner's partner first)."""
    maker = _maker_bid(hand)
    out = sitting_out(maker["seat"], bool(maker.get("alone")), hand.get("defender_alone"))
    return out[0] if out else None


# --------------------------------------------------------------------------
# The faults, one small function each


def players_short(record: Record, rng: random.Random) -> Site | None:
    """schema: three players for four seats."""
    del record["players"][rng.randrange(4)]
    return GAME


def format_wrong(record: Record, rng: random.Random) -> Site | None:
    """schema: the format is misspelt."""
    record["format"] = rng.choice(["euchre/2", "Euchre/1", "euchre"])
    return GAME


def alone_not_bool(record: Record, rng: random.Random) -> Site | None:
    """schema: a bid's ``alone`` is a string."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    bid = rng.choice(hand["bids"])
    bid["alone"] = "no"
    return _at(record, hand, seat=bid["seat"])


def final_score_text(record: Record, rng: random.Random) -> Site | None:
    """schema: the final score written as text."""
    a, b = record["final_score"]
    record["final_score"] = f"{a}-{b}"
    return GAME


def bad_kitty_token(record: Record, rng: random.Random) -> Site | None:
    """bad_card: a kitty card that is no card of the deck."""
    hand = rng.choice(record["hands"])
    hand["kitty"][rng.randrange(len(hand["kitty"]))] = rng.choice(BAD_TOKENS)
    return _at(record, hand)


def bad_deal_token(record: Record, rng: random.Random) -> Site | None:
    """bad_card: a dealt card garbled (the seat's plays still make sense)."""
    hand = rng.choice(record["hands"])
    seat_cards = hand["deal"][rng.randrange(4)]
    seat_cards[rng.randrange(5)] = rng.choice(BAD_TOKENS)
    return _at(record, hand)


def kitty_dealt_twice(record: Record, rng: random.Random) -> Site | None:
    """deck: a kitty card that was also dealt to a seat."""
    hand = rng.choice(record["hands"])
    hand["kitty"][rng.randrange(len(hand["kitty"]))] = rng.choice(rng.choice(hand["deal"]))
    return _at(record, hand)


def kitty_short(record: Record, rng: random.Random) -> Site | None:
    """deck: the kitty lost a card."""
    hand = rng.choice(record["hands"])
    del hand["kitty"][rng.randrange(len(hand["kitty"]))]
    return _at(record, hand)


def _shift_seats(hand: Hand) -> None:
    """Move every seat of a hand two places on: partners swap, the teams stay."""
    hand["dealer"] = partner_of(hand["dealer"])
    hand["deal"] = hand["deal"][2:] + hand["deal"][:2]
    for bid in hand["bids"]:
        bid["seat"] = partner_of(bid["seat"])
    if "defender_alone" in hand:
        hand["defender_alone"] = partner_of(hand["defender_alone"])
    for trick in hand.get("tricks", []):
        for play in trick:
            play[0] = partner_of(play[0])
    claimed = hand.get("claimed", {})
    if "trick_winners" in claimed:
        claimed["trick_winners"] = [partner_of(s) for s in claimed["trick_winners"]]


def dealer_skipped(record: Record, rng: random.Random) -> Site | None:
    """dealer_rotation: from some hand on, the deal jumps two seats (scores unchanged)."""
    hands = record["hands"]
    if len(hands) < 2:
        return None
    first = rng.randrange(1, len(hands))
    for hand in hands[first:]:
        _shift_seats(hand)
    return Site(first, None, hands[first]["dealer"])


def call_after_bidding(record: Record, rng: random.Random) -> Site | None:
    """bid_turn: a pass recorded after trump was made."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    last = hand["bids"][-1]["seat"]
    hand["bids"].append({"seat": (last + 1) % 4, "call": "pass"})
    return _at(record, hand, seat=hand["bids"][-1]["seat"])


def passes_swapped(record: Record, rng: random.Random) -> Site | None:
    """bid_turn: two passes before the call recorded in the wrong order."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    bids = hand["bids"]
    pairs = [j for j in range(len(bids) - 1) if bids[j]["call"] == bids[j + 1]["call"] == "pass"]
    if not pairs:
        return None
    j = rng.choice(pairs)
    bids[j]["seat"], bids[j + 1]["seat"] = bids[j + 1]["seat"], bids[j]["seat"]
    return _at(record, hand, seat=bids[j]["seat"])  # the first to call out of turn


def pass_alone(record: Record, rng: random.Random) -> Site | None:
    """bid_illegal: a seat passed and declared alone before trump was made."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    passes = [b for b in hand["bids"] if b["call"] == "pass"]
    if not passes:
        return None
    bid = rng.choice(passes)
    bid["alone"] = True
    return _at(record, hand, seat=bid["seat"])


def maker_team_defends_alone(record: Record, rng: random.Random) -> Site | None:
    """bid_illegal: a maker's partner recorded as the lone defender."""
    hands = [h for h in _played(record) if "defender_alone" not in h]
    if not hands:
        return None
    hand = rng.choice(hands)
    hand["defender_alone"] = partner_of(_maker_bid(hand)["seat"])
    return _at(record, hand, seat=hand["defender_alone"])


def discard_without_pickup(record: Record, rng: random.Random) -> Site | None:
    """discard: a discard recorded although trump was named in round two."""
    hands = [h for h in _played(record) if "discard" not in h]
    if not hands:
        return None
    hand = rng.choice(hands)
    hand["discard"] = rng.choice(hand["deal"][hand["dealer"]])
    return _at(record, hand, seat=hand["dealer"])


def discard_missing(record: Record, rng: random.Random) -> Site | None:
    """discard: the dealer picked the upcard up, but no discard is recorded."""
    hands = [h for h in record["hands"] if "discard" in h]
    if not hands:
        return None
    hand = rng.choice(hands)
    del hand["discard"]
    return _at(record, hand, seat=hand["dealer"])


def wrong_first_leader(record: Record, rng: random.Random) -> Site | None:
    """lead: a trick led by the next seat (the plays rotated by one)."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    trick = rng.choice(hand["tricks"])
    trick.append(trick.pop(0))
    return _at(record, hand, trick, seat=trick[0][0])  # the seat that led wrongly


def followers_swapped(record: Record, rng: random.Random) -> Site | None:
    """play_turn: two seats after the leader play in the wrong order."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    trick = rng.choice(hand["tricks"])
    k = rng.randrange(1, len(trick) - 1)
    trick[k], trick[k + 1] = trick[k + 1], trick[k]
    return _at(record, hand, trick, seat=trick[k][0])  # the seat that played out of turn


def kitty_card_played(record: Record, rng: random.Random) -> Site | None:
    """not_held: in the last trick a seat plays a card that lay in the kitty."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    trump = _trump(hand)
    play = rng.choice(hand["tricks"][-1][1:])
    suit = EFFECTIVE[trump][_card(play[1])]
    same = [t for t in hand["kitty"] if EFFECTIVE[trump][_card(t)] == suit]
    play[1] = rng.choice(same or hand["kitty"])
    return _at(record, hand, hand["tricks"][-1], seat=play[0])


def card_played_twice(record: Record, rng: random.Random) -> Site | None:
    """not_held: in the last trick a seat plays again a card it played before."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    play = rng.choice(hand["tricks"][-1][1:])
    before = [c for trick in hand["tricks"][:-1] for s, c in trick if s == play[0]]
    play[1] = rng.choice(before)
    return _at(record, hand, hand["tricks"][-1], seat=play[0])


def cards_swapped_between_tricks(record: Record, rng: random.Random) -> Site | None:
    """renege: a seat plays off-suit early and the card that followed suit later."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    trump = _trump(hand)
    tricks = hand["tricks"]
    t1 = rng.randrange(len(tricks) - 1)
    led = EFFECTIVE[trump][_card(tricks[t1][0][1])]
    early = [p for p in tricks[t1][1:] if EFFECTIVE[trump][_card(p[1])] == led]
    if not early:
        return None
    first = rng.choice(early)
    later = [p for trick in tricks[t1 + 1 :] for p in trick if p[0] == first[0]]
    off_suit = [p for p in later if EFFECTIVE[trump][_card(p[1])] != led]
    if not off_suit:
        return None
    second = rng.choice(off_suit)
    first[1], second[1] = second[1], first[1]
    return _at(record, hand, tricks[t1], seat=first[0])


def partner_of_lone_plays(record: Record, rng: random.Random) -> Site | None:
    """sitting_out: the partner of a lone player plays a card to the last trick."""
    hands = [h for h in _played(record) if _sitting_out(h) is not None]
    if not hands:
        return None
    hand = rng.choice(hands)
    seat = _sitting_out(hand)
    assert seat is not None
    hand["tricks"][-1].append([seat, rng.choice(hand["deal"][seat])])
    return _at(record, hand, hand["tricks"][-1], seat=seat)


def wrong_trick_winner(record: Record, rng: random.Random) -> Site | None:
    """trick_winner: the log names the wrong seat as a trick's winner."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    winners = hand["claimed"]["trick_winners"]
    t = rng.randrange(len(winners))
    seats = [s for s, _ in hand["tricks"][t] if s != winners[t]]
    winners[t] = rng.choice(seats)
    return _at(record, hand, hand["tricks"][t])  # a claim: no seat at fault


def wrong_points(record: Record, rng: random.Random) -> Site | None:
    """points: the log claims a point too many for a played hand."""
    hand = _pick_played(record, rng)
    if hand is None:
        return None
    hand["claimed"]["points"][rng.randrange(2)] += 1
    return _at(record, hand)


def wrong_running_score(record: Record, rng: random.Random) -> Site | None:
    """score: one hand's running score is off by one (the next ones are right again)."""
    hand = rng.choice(record["hands"])
    hand["claimed"]["score"][rng.randrange(2)] += rng.choice([-1, 1])
    return _at(record, hand)


def wrong_final_score(record: Record, rng: random.Random) -> Site | None:
    """score: the final score claims a point too many."""
    record["final_score"][rng.randrange(2)] += 1
    return GAME


def hand_after_game_end(record: Record, rng: random.Random) -> Site | None:
    """game_over: one more hand played after a team reached the target, claimed
    consistently (its running score goes on; ``final_score`` stays the end's)."""
    rules = Rules.from_record(record.get("rules"))
    hands = record["hands"]
    extra = play_hand(rules, next_dealer(hands[-1]["dealer"]), rng)
    score = [a + b for a, b in zip(record["final_score"], extra.points, strict=True)]
    extra.record["claimed"]["score"] = score
    hands.append(extra.record)
    return Site(len(hands) - 1)


FAULTS: tuple[Fault, ...] = (
    Fault("players_short", "schema", players_short),
    Fault("format_wrong", "schema", format_wrong),
    Fault("alone_not_bool", "schema", alone_not_bool),
    Fault("final_score_text", "schema", final_score_text),
    Fault("bad_kitty_token", "bad_card", bad_kitty_token),
    Fault("bad_deal_token", "bad_card", bad_deal_token),
    Fault("kitty_dealt_twice", "deck", kitty_dealt_twice),
    Fault("kitty_short", "deck", kitty_short),
    Fault("dealer_skipped", "dealer_rotation", dealer_skipped),
    Fault("call_after_bidding", "bid_turn", call_after_bidding),
    Fault("passes_swapped", "bid_turn", passes_swapped),
    Fault("pass_alone", "bid_illegal", pass_alone),
    Fault("maker_team_defends_alone", "bid_illegal", maker_team_defends_alone),
    Fault("discard_without_pickup", "discard", discard_without_pickup),
    Fault("discard_missing", "discard", discard_missing),
    Fault("wrong_first_leader", "lead", wrong_first_leader, reclaim=True),
    Fault("followers_swapped", "play_turn", followers_swapped),
    Fault("kitty_card_played", "not_held", kitty_card_played, reclaim=True),
    Fault("card_played_twice", "not_held", card_played_twice, reclaim=True),
    Fault("cards_swapped_between_tricks", "renege", cards_swapped_between_tricks, reclaim=True),
    Fault("partner_of_lone_plays", "sitting_out", partner_of_lone_plays),
    Fault("wrong_trick_winner", "trick_winner", wrong_trick_winner),
    Fault("wrong_points", "points", wrong_points),
    Fault("wrong_running_score", "score", wrong_running_score),
    Fault("wrong_final_score", "score", wrong_final_score),
    Fault("hand_after_game_end", "game_over", hand_after_game_end),
)
PLANTER = faults.FaultPlanter(
    FAULTS, FAULT_CODES, violations_of=violations_of, reclaim=reclaim, attempts=ATTEMPTS
)
FAULTS_BY_CODE = PLANTER.by_code


# --------------------------------------------------------------------------
# Applying faults


def corrupt_record(record: Record, code: str, rng: random.Random) -> tuple[Fault, Record, Site] | None:
    """A copy of ``record`` broken so that the replay reports exactly ``code``
    (the fault, the copy and where the fault is), or None."""
    planted = PLANTER.plant(record, code, rng)
    return None if planted is None else (planted.fault, planted.record, planted.site)


#: Game ``record`` written with a fault raising ``code`` (None when none fits this game).
corrupt_game = PLANTER.corrupt_game
#: ``CorruptionPlanner(rng)`` deals the game's codes out in turn.
CorruptionPlanner = partial(faults.CorruptionPlanner, PLANTER)


__all__ = [
    "GAME",
    "Corruption",
    "CorruptionPlanner",
    "Fault",
    "Site",
    "copy_record",
    "corrupt_game",
    "corrupt_record",
    "malformed_line",
]
