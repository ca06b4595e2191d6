"""Replaying a tarot/1 game record against French Tarot rules (FFT by default).

A game is replayed hand by hand; a hand goes through explicit phases, each in
a module that reads like its part of the rulebook:

1. :mod:`deal` -- the deal, and the petit sec throw-in;
2. :mod:`bidding` -- one call a seat, each higher than the last; four passes;
3. :mod:`chien` -- the chien taken up and the écart (prise, garde);
4. :mod:`announcements` -- poignées and the chelem;
5. :mod:`play` -- the 18 tricks and their obligations (:mod:`trick`);
6. :mod:`scoring` -- card points, bouts, target, the contract's value;
7. :mod:`claims` -- every figure the record claims.

Each phase checks what the record says happened against what the rules
allow, adds one violation a fault and goes on with what the record says.
Nothing raises, whatever the JSON.

>>> import json
>>> game = replay_game(json.loads(_DOCTEST_GAME))
>>> [v.code for v in game.violations]
['renege']
>>> game.violations[0].message
'hand 0, trick 8: seat 0 played T4 on a spade lead while holding 9S'
>>> v = game.violations[0]; (v.path, v.hand, v.trick, v.seat)
('hands[0].tricks[8][3]', 0, 8, 0)
>>> h = game.hands[0]
>>> h.contract, h.taker, h.taker_points, h.bouts, h.target, h.margin, h.made
('prise', 1, 35.0, 2, 41, -6.0, False)
>>> h.scores, game.totals, h.petit_au_bout, h.excuse_owner_side
((31, -93, 31, 31), (31, -93, 31, 31), None, 'taker')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pipeline.games.tarot.announcements import announcement_phase
from pipeline.games.tarot.bidding import bidding_phase
from pipeline.games.tarot.chien import chien_phase
from pipeline.games.tarot.claims import Totals, claims_phase, four_ints
from pipeline.games.tarot.deal import deal_phase, throw_in_phase
from pipeline.games.tarot.play import play_phase
from pipeline.games.tarot.rules import PRESETS, Rules, RulesError
from pipeline.games.tarot.scoring import scoring_phase
from pipeline.games.tarot.state import Context, HandState, TarotHand, TarotReplay
from pipeline.record import check_game_fields, hand_dealer, mark_valid, record_game_id, unknown_fields

FORMAT = "tarot/1"
GAME_FIELDS = frozenset(("format", "game_id", "players", "rules", "started_at", "source", "hands", "origin"))

__all__ = ["FORMAT", "GAME_FIELDS", "TarotHand", "TarotReplay", "replay_game", "replay_hand"]

if TYPE_CHECKING:
    from pipeline.games import Replay


def replay_game(record: dict[str, Any], rules: Rules | None = None) -> TarotReplay:
    """Replay one tarot/1 game object; ``rules`` overrides the record's own."""
    if not isinstance(record, dict):
        ctx = Context(None)
        ctx.add("malformed_json", None, "", "a game record must be a JSON object")
        return TarotReplay(None, PRESETS["fft"], violations=ctx.violations)
    ctx = Context(record_game_id(record))
    check_game_fields(ctx, record, FORMAT)
    if rules is None:
        try:
            rules = Rules.from_record(record.get("rules"))
        except RulesError as e:
            ctx.add("schema", None, "rules", f"{e}; replayed with the FFT preset")
            rules = PRESETS["fft"]
    if rules.misere:
        ctx.add(
            "unsupported",
            None,
            "rules.misere",
            "misères are not scored by tricklog; they are ignored",
            rule="misere",
        )
    game = TarotReplay(ctx.game_id, rules)
    players = record.get("players")
    if isinstance(players, list):
        game.players = [p for p in players if isinstance(p, str)]
    game.unknown_fields = unknown_fields(record, GAME_FIELDS)
    hands = record.get("hands")
    if isinstance(hands, list):
        _replay_hands(ctx, game, rules, hands)
    game.violations = ctx.violations
    if ctx.violations:
        mark_valid(game.hands, ctx.violations)
    return game


def _replay_hands(ctx: Context, game: TarotReplay, rules: Rules, hands: list[Any]) -> None:
    totals = [0, 0, 0, 0]
    previous_dealer: int | None = None
    offset: Totals | None = (0, 0, 0, 0)
    for index, hand in enumerate(hands):
        result = replay_hand(ctx, rules, index, hand, previous_dealer)
        if result is None:
            # Not replayed (reported): the deal passed on all the same, and the
            # log scored the hand, which the replay cannot.
            previous_dealer = None if previous_dealer is None else (previous_dealer + 1) % 4
            offset = _offset_of(hand, totals)
            continue
        previous_dealer = result.dealer
        for seat in range(4):
            totals[seat] += result.scores[seat]
        result.totals = (totals[0], totals[1], totals[2], totals[3])
        offset = _check_totals(ctx, result, hand, offset)
        game.hands.append(result)
    game.totals = (totals[0], totals[1], totals[2], totals[3])


def replay_hand(
    ctx: Context, rules: Rules, index: int, hand: object, previous_dealer: int | None
) -> TarotHand | None:
    """One hand through its phases (None when it is not even an object with a dealer)."""
    dealer = hand_dealer(ctx, index, hand)
    if dealer is None:
        return None
    assert isinstance(hand, dict)
    state = HandState(ctx, rules, index, dealer)
    if previous_dealer is not None and dealer != (previous_dealer + 1) % 4:
        state.add(
            "dealer_rotation",
            ".dealer",
            f"seat {dealer} dealt; the deal passes to the next seat, so it was seat {(previous_dealer + 1) % 4}'s",
            seat=dealer,
        )
    deal_phase(state, hand)
    if throw_in_phase(state, hand):
        state.result.complete = True
    elif bidding_phase(state, hand):
        chien_phase(state, hand)
        announcement_phase(state, hand)
        play_phase(state, hand)
        scoring_phase(state)
    else:
        state.result.complete = True  # four passes: thrown in
        if hand.get("tricks"):
            state.add("schema", ".tricks", "tricks are recorded for a hand thrown in after four passes")
    claims_phase(state, hand)
    return state.result


def _offset_of(hand: object, totals: list[int]) -> Totals | None:
    """How far the running totals a hand claims are from the replay's (None: not said)."""
    claimed = hand.get("claimed") if isinstance(hand, dict) else None
    said = four_ints(claimed.get("totals")) if isinstance(claimed, dict) else None
    return None if said is None else _difference(said, totals)


def _difference(said: Totals, totals: Sequence[int]) -> Totals:
    return (said[0] - totals[0], said[1] - totals[1], said[2] - totals[2], said[3] - totals[3])


def _check_totals(
    ctx: Context, result: TarotHand, hand: dict[str, Any], offset: Totals | None
) -> Totals | None:
    """Report claimed running totals that depart from the replay by a new amount;
    returns the new offset (None while no claimed totals set it after a hand
    the replay could not score)."""
    claimed = hand.get("claimed")
    raw = claimed.get("totals") if isinstance(claimed, dict) else None
    if raw is None:
        return offset
    said = four_ints(raw)
    if said is None:
        result.valid = False
        ctx.add(
            "schema",
            result.index,
            f"hands[{result.index}].claimed.totals",
            f"totals must be 4 whole numbers, by seat, not {raw!r}",
        )
        return offset
    new = _difference(said, result.totals)
    if offset is None or not result.claims_checked:
        return new  # the hand's fault was reported; its totals set the new offset
    if new != offset and new != (0, 0, 0, 0):
        result.valid = False
        ctx.add(
            "score",
            result.index,
            f"hands[{result.index}].claimed.totals",
            f"the log claims running totals {list(said)}, the replay gives {list(result.totals)}",
        )
    return new


if TYPE_CHECKING:
    #: mypy's proof that a Tarot replay is a :class:`pipeline.games.Replay`.
    _ENGINE_REPLAY: Callable[[dict[str, Any]], Replay] = replay_game

_DOCTEST_GAME = """{"format": "tarot/1", "game_id": "doc", "players": ["a", "b", "c", "d"], "hands": [{"dealer": 3,
"deal": [["2S","3S","9S","NS","1H","5H","JH","4D","10D","KD","8C","9C","QC","KC","T2","T4","T12","T19"],
         ["1S","4S","8S","JS","2H","10H","NH","QH","2D","5D","1C","3C","7C","T5","T8","T20","T21","EX"],
         ["5S","7S","KS","6H","7H","8H","9H","1D","3D","8D","QD","2C","5C","6C","JC","T1","T13","T18"],
         ["10S","QS","3H","4H","KH","7D","9D","JD","ND","4C","T3","T6","T9","T11","T14","T15","T16","T17"]],
"chien": ["6S","6D","10C","NC","T7","T10"],
"bids": [{"seat":0,"call":"pass"},{"seat":1,"call":"prise"},{"seat":2,"call":"pass"},{"seat":3,"call":"pass"}],
"ecart": ["2D","5D","6D","2H","10H","NH"],
"tricks": [[[0,"KD"],[1,"T5"],[2,"1D"],[3,"7D"]], [[1,"QH"],[2,"6H"],[3,"KH"],[0,"JH"]],
 [[3,"4C"],[0,"8C"],[1,"10C"],[2,"JC"]], [[2,"KS"],[3,"10S"],[0,"2S"],[1,"1S"]],
 [[2,"5S"],[3,"QS"],[0,"3S"],[1,"4S"]], [[3,"3H"],[0,"5H"],[1,"T7"],[2,"7H"]],
 [[1,"6S"],[2,"7S"],[3,"T3"],[0,"NS"]], [[3,"4H"],[0,"1H"],[1,"T8"],[2,"8H"]],
 [[1,"8S"],[2,"T1"],[3,"T6"],[0,"T4"]], [[3,"9D"],[0,"10D"],[1,"T10"],[2,"3D"]],
 [[1,"EX"],[2,"2C"],[3,"T9"],[0,"KC"]], [[3,"JD"],[0,"4D"],[1,"T20"],[2,"8D"]],
 [[1,"JS"],[2,"T13"],[3,"T14"],[0,"T19"]], [[0,"9C"],[1,"NC"],[2,"5C"],[3,"T11"]],
 [[3,"ND"],[0,"T2"],[1,"T21"],[2,"QD"]], [[1,"1C"],[2,"6C"],[3,"T15"],[0,"QC"]],
 [[3,"T17"],[0,"9S"],[1,"3C"],[2,"T18"]], [[2,"9H"],[3,"T16"],[0,"T12"],[1,"7C"]]],
"claimed": {"trick_winners": [1,3,2,2,3,1,3,1,3,1,3,1,0,3,1,3,2,3], "taker_points": 35, "bouts": 2,
 "made": false, "scores": [31,-93,31,31], "totals": [31,-93,31,31]}}]}"""
