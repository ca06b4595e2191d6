"""The figures a record claims, each checked against the replay when present.

``claimed`` may hold ``trick_winners``, ``taker_points``, ``bouts``, ``made``,
``scores`` (this hand, by seat) and ``totals`` (running, by seat).  A running
total that went wrong once stays wrong by the same amount: that is one
violation, not one per remaining hand.  In a hand that already has a
violation, the claimed figures are only checked for their shape: a log
written from the real play disagrees with a replay of a faulty record only as
a consequence of the fault already reported (one fault, one violation).
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.play import TRICKS
from pipeline.games.tarot.scoring import contract_score, scores_of
from pipeline.games.tarot.state import HandState, is_int
from pipeline.record import trick_winners_problem

Totals = tuple[int, int, int, int]


def four_ints(value: object) -> Totals | None:
    if isinstance(value, list) and len(value) == 4 and all(is_int(x) and -(2**31) < x < 2**31 for x in value):
        return (value[0], value[1], value[2], value[3])
    return None


def _number(value: object) -> bool:
    return (is_int(value) or isinstance(value, float)) and abs(value) < 1e9  # type: ignore[arg-type]


def claims_phase(state: HandState, hand: dict[str, Any]) -> dict[str, Any] | None:
    """Check the claimed figures of one hand (totals are checked by the game)."""
    claimed = hand.get("claimed")
    if claimed is None:
        return None
    if not isinstance(claimed, dict):
        state.add("schema", ".claimed", "claimed must be an object")
        return None
    result = state.result
    result.claims_checked = compare = result.valid
    winners = claimed.get("trick_winners")
    if winners is not None:
        problem = trick_winners_problem(winners, _tricks_listed(hand))
        if problem is not None:
            state.add("schema", ".claimed.trick_winners", problem)
        elif compare:
            for t, (said, trick) in enumerate(zip(winners, result.tricks, strict=False)):
                if trick.winner is not None and said != trick.winner:
                    state.add(
                        "trick_winner",
                        f".claimed.trick_winners[{t}]",
                        f"the log says seat {said!r} won the trick, the replay gives seat {trick.winner}",
                        trick=t,
                    )
                    break
    played = compare and result.complete and result.taker is not None
    before = len(state.ctx.violations)
    _check_points(state, claimed, played)
    if len(state.ctx.violations) > before and _scores_follow_from_points(state, claimed):
        # The claimed scores are what the claimed points make: the same fault.
        result.claims_checked = compare = False
    scores = claimed.get("scores")
    if scores is not None:
        said = four_ints(scores)
        if said is None:
            state.add("schema", ".claimed.scores", f"scores must be 4 whole numbers, by seat, not {scores!r}")
        elif compare and (played or result.thrown_in is not None) and said != result.scores:
            state.add(
                "score",
                ".claimed.scores",
                f"the log claims scores {list(said)} for the hand, the replay gives {list(result.scores)}",
            )
    return claimed


def _tricks_listed(hand: dict[str, Any]) -> int | None:
    """How many tricks the record lists (None when ``tricks`` is not a list of at most 18)."""
    tricks = hand.get("tricks")
    return len(tricks) if isinstance(tricks, list) and len(tricks) <= TRICKS else None


def _scores_follow_from_points(state: HandState, claimed: dict[str, Any]) -> bool:
    """Whether the claimed scores are those the claimed taker points and bouts give."""
    result = state.result
    points, bouts, scores = (
        claimed.get("taker_points"),
        claimed.get("bouts", result.bouts),
        claimed.get("scores"),
    )
    said = four_ints(scores)
    if result.taker is None or result.contract is None or said is None or not _number(points):
        return False
    assert isinstance(points, int | float)
    if not (is_int(bouts) and 0 <= bouts <= 3):
        return False
    b = {"taker": 1, "defence": -1}.get(result.petit_au_bout or "", 0)
    x = contract_score(
        state.rules,
        result.contract,
        taker_half=int(points * 2),
        bouts=bouts,
        petit_au_bout=b,
        poignees=result.poignees,
        taker=result.taker,
        chelem_announcer=result.chelem_announcer,
        taker_tricks=result.taker_tricks,
    )
    return said == scores_of(x, result.taker)


def _check_points(state: HandState, claimed: dict[str, Any], played: bool) -> None:
    result = state.result
    points = claimed.get("taker_points")
    if points is not None:
        if not _number(points):
            state.add("schema", ".claimed.taker_points", f"taker_points must be a number, not {points!r}")
        elif points * 2 != int(points * 2) or (points * 2) % 2 == 1:
            state.add(
                "points",
                ".claimed.taker_points",
                f"the log claims {points} points for the taker; at four players the taker's total is a whole number",
                rule="half_point",
            )
        elif played and points * 2 != result.taker_half_points:
            state.add(
                "points",
                ".claimed.taker_points",
                f"the log claims {points:g} points for the taker, the replay gives {result.taker_points:g}",
            )
    bouts = claimed.get("bouts")
    if bouts is not None:
        if not (is_int(bouts) and 0 <= bouts <= 3):
            state.add("schema", ".claimed.bouts", f"bouts must be 0-3, not {bouts!r}")
        elif played and bouts != result.bouts:
            state.add(
                "points",
                ".claimed.bouts",
                f"the log claims {bouts} bouts for the taker, the replay gives {result.bouts}",
            )
    made = claimed.get("made")
    if made is not None:
        if not isinstance(made, bool):
            state.add("schema", ".claimed.made", f"made must be true or false, not {made!r}")
        elif played and made != result.made:
            state.add(
                "points",
                ".claimed.made",
                f"the log says the contract was {'made' if made else 'down'}, the replay gives "
                f"{result.taker_points:g} points against {result.target}: {'made' if result.made else 'down'}",
            )
