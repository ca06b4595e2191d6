"""Claimed results: what the log says came of the play, against the replay.

A record may claim each trick's winner, each hand's points and the running
score after it (``claimed``), and the game's final score.  None of these is
needed to replay a game; each is checked where present.  A claim names no
seat at fault: the log, not a player, is wrong.

>>> ctx = Context("g")
>>> check_final_score(ctx, GameReplay("g", None, score=(10, 4)), [10, 5])
>>> [(v.code, v.path, v.message) for v in ctx.violations]
[('score', 'final_score', 'the log claims a final score of 10-5, the replay gives 10-4')]
"""

from __future__ import annotations

from typing import Any

from pipeline.games.euchre.record import int_pair
from pipeline.games.euchre.state import Context, GameReplay, HandState
from pipeline.record import trick_winners_problem


def check_hand_claims(state: HandState, hand: dict[str, Any]) -> None:
    """The claimed trick winners and points of one hand."""
    result = state.result
    claimed = hand.get("claimed")
    if not isinstance(claimed, dict):
        if claimed is not None:
            state.add("schema", ".claimed", "claimed must be an object")
        return
    winners = claimed.get("trick_winners")
    problem = None if winners is None else trick_winners_problem(winners, _tricks_listed(hand))
    if problem is not None:
        state.add("schema", ".claimed.trick_winners", problem)
    elif isinstance(winners, list):
        for t, (said, replayed) in enumerate(zip(winners, result.winners, strict=False)):
            if replayed is not None and said != replayed:
                state.add(
                    "trick_winner",
                    f".claimed.trick_winners[{t}]",
                    f"trick {t}: the log says seat {said} won it, the replay gives seat {replayed}",
                    trick=t,
                )
    said = claimed.get("points")
    points = int_pair(said)
    if said is not None and points is None:
        state.add("schema", ".claimed.points", f"points must be [team0, team1], not {said!r}")
    if points is not None and result.complete and points != result.points:
        state.add(
            "points",
            ".claimed.points",
            f"the log claims {points[0]}-{points[1]} points for the hand, the replay gives "
            f"{result.points[0]}-{result.points[1]}",
        )


def _tricks_listed(hand: dict[str, Any]) -> int | None:
    """How many tricks the record lists: none when it has no ``tricks`` (a hand
    thrown in), None when ``tricks`` is no list of at most five."""
    tricks = hand.get("tricks")
    if tricks is None:
        return 0
    return len(tricks) if isinstance(tricks, list) and len(tricks) <= 5 else None


def check_claimed_score(
    ctx: Context, index: int, hand: dict[str, Any], score: tuple[int, int], offset: tuple[int, int]
) -> tuple[int, int]:
    """Report a claimed running score when it departs from the replay.

    A log whose running score went wrong once stays wrong by the same amount:
    that is one violation, not one per remaining hand.  Returns the new offset.
    """
    claimed = hand.get("claimed")
    said = claimed.get("score") if isinstance(claimed, dict) else None
    pair = int_pair(said)
    if pair is None:
        if said is not None:
            ctx.add(
                "schema",
                index,
                f"hands[{index}].claimed.score",
                f"score must be [team0, team1], not {said!r}",
            )
        return offset
    new_offset = (pair[0] - score[0], pair[1] - score[1])
    if new_offset != offset and new_offset != (0, 0):
        ctx.add(
            "score",
            index,
            f"hands[{index}].claimed.score",
            f"the log claims a score of {pair[0]}-{pair[1]}, the replay gives {score[0]}-{score[1]}",
        )
    return new_offset


def check_final_score(ctx: Context, game: GameReplay, claimed: object) -> None:
    """The claimed final score (a game-level claim: no hand)."""
    if claimed is None:
        return
    pair = int_pair(claimed)
    if pair is None:
        ctx.add("schema", None, "final_score", f"final_score must be [team0, team1], not {claimed!r}")
    elif pair != game.score:
        ctx.add(
            "score",
            None,
            "final_score",
            f"the log claims a final score of {pair[0]}-{pair[1]}, "
            f"the replay gives {game.score[0]}-{game.score[1]}",
        )
