"""Known faults, planted in simulated Tarot games to test the validator.

Each fault is one small function that breaks a clean tarot/1 record the way a
buggy exporter or a careless player would, aiming at one violation code.
Faults that move cards recompute the ``claimed`` figures afterwards, as the
buggy exporter would have written them, so that the fault does not cascade
into ``trick_winner``, ``points`` or ``score``.  Every candidate is replayed: a
corruption is kept only when the replay reports exactly the intended code
(generate and verify), and its hand, trick and seat are the replay's.

>>> import orjson
>>> from pipeline.games.tarot.simulate import simulate_game
>>> record = simulate_game(0, seed=1)
>>> corruption = corrupt_game(record, "not_held", random.Random(1), line=1)
>>> corruption.code, sorted(codes_of(orjson.loads(corruption.text)))
('not_held', ['not_held'])
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from pipeline import faults
from pipeline.faults import Corruption, Fault, copy_record, malformed_line
from pipeline.faults import pick_played as _pick_played
from pipeline.faults import played_hands as _played
from pipeline.games.tarot.cards import KINGS, TRUMPS, card_name, cards_in, parse_card
from pipeline.games.tarot.codes import CODES
from pipeline.games.tarot.replay import replay_game
from pipeline.games.tarot.rules import CALLS, Rules
from pipeline.violations import Violation

Record = dict[str, Any]
Hand = dict[str, Any]

#: Every code a fault can produce (``unsupported`` is not a fault).
FAULT_CODES: tuple[str, ...] = tuple(code for code in CODES if code != "unsupported")
ATTEMPTS = 16
BAD_TOKENS = ("T22", "T0", "11H", "KX", "EXC", "AS", "10", "")


def violations_of(record: Record) -> list[Violation]:
    return replay_game(record).violations


def codes_of(record: Record) -> set[str]:
    return {v.code for v in violations_of(record)}


def reclaim(record: Record) -> None:
    """Rewrite every hand's claimed figures from the replay of the (broken) record."""
    from pipeline.games.tarot.simulate import claims_of
    from pipeline.games.tarot.state import Context

    rules = Rules.from_record(record.get("rules"))
    totals = [0, 0, 0, 0]
    ctx = Context(record.get("game_id"))
    for index, hand in enumerate(record["hands"]):
        hand["claimed"] = claims_of(ctx, rules, index, hand, totals)


def _taker(hand: Hand) -> tuple[int, str] | None:
    best = None
    for bid in hand["bids"]:
        if bid["call"] != "pass":
            best = (bid["seat"], bid["call"])
    return best


# --------------------------------------------------------------------------
# The faults, one function each


def players_short(record: Record, rng: random.Random) -> bool:
    record["players"] = record["players"][:3]
    return True


def format_wrong(record: Record, rng: random.Random) -> bool:
    record["format"] = "tarot/2"
    return True


def bad_deal_token(record: Record, rng: random.Random) -> bool:
    hand = rng.choice(record["hands"])
    seat = rng.randrange(4)
    k = rng.randrange(len(hand["deal"][seat]))
    hand["deal"][seat][k] = rng.choice(BAD_TOKENS)
    return True


def card_dealt_twice(record: Record, rng: random.Random) -> bool:
    hand = rng.choice(record["hands"])
    a, b = rng.sample(range(4), 2)
    card = hand["deal"][a].pop(rng.randrange(18))
    hand["deal"][b].append(card)
    hand["deal"][a].append(hand["deal"][b][0])
    return True


def chien_short(record: Record, rng: random.Random) -> bool:
    hand = rng.choice([h for h in record["hands"] if h.get("thrown_in")] or record["hands"])
    hand["chien"].pop()
    return True


def dealer_skipped(record: Record, rng: random.Random) -> bool:
    """The last hand dealt by a seat out of turn (and played from there)."""
    from pipeline.games.tarot.simulate import play_hand

    if len(record["hands"]) < 2:
        return False
    last = record["hands"][-1]
    dealer = (last["dealer"] + rng.choice((1, 2, 3))) % 4
    rules = Rules.from_record(record.get("rules"))
    record["hands"][-1] = play_hand(rules, dealer, rng)
    return True


def passes_swapped(record: Record, rng: random.Random) -> bool:
    hand = rng.choice(record["hands"])
    bids = hand["bids"]
    passes = [k for k, b in enumerate(bids) if b["call"] == "pass"]
    if len(passes) < 2:
        return False
    i, j = rng.sample(passes, 2)
    bids[i]["seat"], bids[j]["seat"] = bids[j]["seat"], bids[i]["seat"]
    return True


def call_not_higher(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    taken = _taker(hand)
    assert taken is not None
    seen = False
    for bid in hand["bids"]:
        if seen and bid["call"] == "pass":
            bid["call"] = rng.choice([c for c in CALLS[1 : CALLS.index(taken[1]) + 1]])
            return True
        seen = seen or bid["seat"] == taken[0]
    return False


def unknown_call(record: Record, rng: random.Random) -> bool:
    hand = rng.choice(record["hands"])
    passes = [b for b in hand["bids"] if b["call"] == "pass"]
    if not passes:
        return False
    rng.choice(passes)["call"] = rng.choice(("misere", "petite", "contre"))
    return True


def wrong_leader(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    t = rng.randrange(1, 18)
    trick = hand["tricks"][t]
    shift = rng.choice((1, 2, 3))
    hand["tricks"][t] = trick[shift:] + trick[:shift]
    return True


def followers_swapped(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    trick = rng.choice(hand["tricks"])
    i = rng.choice((1, 2))
    trick[i], trick[i + 1] = trick[i + 1], trick[i]
    return True


def card_played_twice(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    t = rng.randrange(1, 18)
    earlier = rng.choice(hand["tricks"][rng.randrange(t)])
    play = rng.choice(hand["tricks"][t][1:])
    play[1] = earlier[1]
    return True


def chien_card_played(record: Record, rng: random.Random) -> bool:
    hands = [h for h in _played(record) if "ecart" in h]
    if not hands:
        return False
    hand = rng.choice(hands)
    play = rng.choice(rng.choice(hand["tricks"])[1:])
    play[1] = rng.choice(hand["ecart"])
    return True


def cards_swapped_between_tricks(record: Record, rng: random.Random) -> bool:
    """One seat's cards of two tricks swapped (the exporter mixed its plays up)."""
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    seat = rng.randrange(4)
    t1, t2 = sorted(rng.sample(range(18), 2))
    p1 = next(p for p in hand["tricks"][t1] if p[0] == seat)
    p2 = next(p for p in hand["tricks"][t2] if p[0] == seat)
    p1[1], p2[1] = p2[1], p1[1]
    return True


def king_discarded(record: Record, rng: random.Random) -> bool:
    """The taker discards a King it played, and plays an écart card in its place."""
    hands = [h for h in _played(record) if "ecart" in h]
    if not hands:
        return False
    hand = rng.choice(hands)
    taken = _taker(hand)
    assert taken is not None
    kings = [
        p
        for trick in hand["tricks"]
        for p in trick
        if p[0] == taken[0] and KINGS >> (parse_card(p[1]) or 0) & 1
    ]
    if not kings:
        return False
    play = rng.choice(kings)
    k = rng.randrange(6)
    play[1], hand["ecart"][k] = hand["ecart"][k], play[1]
    return True


def ecart_in_garde_sans(record: Record, rng: random.Random) -> bool:
    hands = [h for h in _played(record) if "ecart" not in h]
    if not hands:
        return False
    rng.choice(hands)["ecart"] = ["1S", "2S", "3S", "4S", "5S", "6S"]
    return True


def poignee_wrong_size(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    seat = rng.randrange(4)
    trumps = [t for t in hand["deal"][seat] if TRUMPS >> (parse_card(t) or 0) & 1]
    size = rng.choice((7, 8, 9, 11, 12))
    shown = (trumps + [card_name(c) for c in cards_in(TRUMPS)])[:size]
    if len(set(shown)) != size:
        return False
    hand.setdefault("announcements", []).append({"seat": seat, "type": "poignee", "trumps": shown})
    return True


def poignee_late(record: Record, rng: random.Random) -> bool:
    hands = [h for h in _played(record) if any(a["type"] == "poignee" for a in h.get("announcements", []))]
    if not hands:
        return False
    poignee = next(a for a in rng.choice(hands)["announcements"] if a["type"] == "poignee")
    poignee["trick"] = rng.randrange(1, 18)
    return True


def chelem_not_led(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None or hand.get("announcements"):
        return False
    leader = hand["tricks"][0][0][0]
    seat = rng.choice([s for s in range(4) if s != leader])
    hand["announcements"] = [{"seat": seat, "type": "chelem"}]
    return True


def wrong_trick_winner(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    t = rng.randrange(18)
    winners = hand["claimed"]["trick_winners"]
    winners[t] = (winners[t] + rng.choice((1, 2, 3))) % 4
    return True


def wrong_points(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    claimed = hand["claimed"]
    match rng.randrange(3):
        case 0:
            claimed["taker_points"] += rng.choice((-2, -1, 1, 2))
        case 1:
            claimed["taker_points"] += 0.5
        case _:
            claimed["bouts"] = (claimed["bouts"] + 1) % 4
    return True


def wrong_scores(record: Record, rng: random.Random) -> bool:
    hand = _pick_played(record, rng)
    if hand is None:
        return False
    seat = rng.randrange(4)
    hand["claimed"]["scores"][seat] += rng.choice((-10, 10, 1))
    return True


def wrong_totals(record: Record, rng: random.Random) -> bool:
    hand = rng.choice(record["hands"])
    seat = rng.randrange(4)
    hand["claimed"]["totals"][seat] += rng.choice((-10, 10))
    return True


FAULTS: tuple[Fault, ...] = (
    Fault("players_short", "schema", players_short),
    Fault("format_wrong", "schema", format_wrong),
    Fault("bad_deal_token", "bad_card", bad_deal_token),
    Fault("card_dealt_twice", "deck", card_dealt_twice),
    Fault("chien_short", "deck", chien_short),
    Fault("dealer_skipped", "dealer_rotation", dealer_skipped, reclaim=True),
    Fault("passes_swapped", "bid_turn", passes_swapped),
    Fault("call_not_higher", "bid_illegal", call_not_higher),
    Fault("unknown_call", "bid_illegal", unknown_call),
    Fault("wrong_leader", "lead", wrong_leader, reclaim=True),
    Fault("followers_swapped", "play_turn", followers_swapped),
    Fault("card_played_twice", "not_held", card_played_twice, reclaim=True),
    Fault("chien_card_played", "not_held", chien_card_played, reclaim=True),
    Fault("wrong_trick_winner", "trick_winner", wrong_trick_winner),
    Fault("wrong_points", "points", wrong_points),
    Fault("wrong_scores", "score", wrong_scores),
    Fault("wrong_totals", "score", wrong_totals),
    Fault("cards_swapped_between_tricks", "renege", cards_swapped_between_tricks, reclaim=True),
    Fault("cards_swapped_between_tricks", "must_trump", cards_swapped_between_tricks, reclaim=True),
    Fault("cards_swapped_between_tricks", "must_overtrump", cards_swapped_between_tricks, reclaim=True),
    Fault("king_discarded", "ecart", king_discarded, reclaim=True),
    Fault("ecart_in_garde_sans", "ecart", ecart_in_garde_sans),
    Fault("poignee_wrong_size", "poignee", poignee_wrong_size),
    Fault("poignee_late", "poignee", poignee_late),
    Fault("chelem_not_led", "chelem", chelem_not_led, reclaim=True),
)
PLANTER = faults.FaultPlanter(
    FAULTS, FAULT_CODES, violations_of=violations_of, reclaim=reclaim, attempts=ATTEMPTS
)
FAULTS_BY_CODE = PLANTER.by_code


# --------------------------------------------------------------------------
# Applying faults (a Tarot fault says whether it struck: the replay says where)


def corrupt_record(record: Record, code: str, rng: random.Random) -> tuple[Fault, Record, Violation] | None:
    """A copy of ``record`` broken so that the replay reports exactly ``code``, or None."""
    planted = PLANTER.plant(record, code, rng)
    return None if planted is None else (planted.fault, planted.record, planted.violations[0])


#: Game ``record`` written with a fault raising ``code`` (None when none fits this game).
corrupt_game = PLANTER.corrupt_game
#: ``CorruptionPlanner(rng)`` deals the game's codes out in turn.
CorruptionPlanner = partial(faults.CorruptionPlanner, PLANTER)


__all__ = ["Corruption", "CorruptionPlanner", "Fault", "copy_record", "corrupt_game", "malformed_line"]
