"""Small hand-written euchre/1 records for the engine tests.

Every hand here is legal; tests copy one and change the one thing they test.
"""

from __future__ import annotations

import copy
from typing import Any

DEAL = [
    ["JD", "AD", "KC", "AC", "AS"],
    ["9D", "QS", "9C", "TC", "9S"],
    ["KD", "QD", "QC", "JC", "TS"],
    ["TD", "AH", "KH", "QH", "JH"],
]

#: Dealer 3; all pass round one; seat 0 names diamonds and takes all five tricks.
CALLED_HAND: dict[str, Any] = {
    "dealer": 3,
    "deal": DEAL,
    "upcard": "9H",
    "kitty": ["TH", "JS", "KS"],
    "bids": [{"seat": s, "call": "pass"} for s in (0, 1, 2, 3)] + [{"seat": 0, "call": "D"}],
    "tricks": [
        [[0, "AS"], [1, "9S"], [2, "TS"], [3, "KH"]],
        [[0, "AD"], [1, "9D"], [2, "KD"], [3, "TD"]],
        [[0, "JD"], [1, "QS"], [2, "QD"], [3, "JH"]],
        [[0, "AC"], [1, "9C"], [2, "QC"], [3, "AH"]],
        [[0, "KC"], [1, "TC"], [2, "JC"], [3, "QH"]],
    ],
    "claimed": {"trick_winners": [0, 0, 0, 0, 0], "points": [2, 0], "score": [2, 0]},
}

#: Dealer 3 orders the 9H up himself, discards TD and takes all five tricks.
ORDERED_HAND: dict[str, Any] = {
    "dealer": 3,
    "deal": DEAL,
    "upcard": "9H",
    "kitty": ["TH", "JS", "KS"],
    "bids": [{"seat": s, "call": "pass"} for s in (0, 1, 2)] + [{"seat": 3, "call": "order"}],
    "discard": "TD",
    "tricks": [
        [[0, "AS"], [1, "9S"], [2, "TS"], [3, "9H"]],
        [[3, "JH"], [0, "JD"], [1, "9C"], [2, "QC"]],
        [[3, "AH"], [0, "AD"], [1, "9D"], [2, "KD"]],
        [[3, "KH"], [0, "KC"], [1, "TC"], [2, "JC"]],
        [[3, "QH"], [0, "AC"], [1, "QS"], [2, "QD"]],
    ],
    "claimed": {"trick_winners": [3, 3, 3, 3, 3], "points": [0, 2], "score": [0, 2]},
}

#: Seat 0 names diamonds alone; seat 2 sits out; seat 0 marches (4 points).
ALONE_HAND: dict[str, Any] = {
    **CALLED_HAND,
    "bids": [{"seat": s, "call": "pass"} for s in (0, 1, 2, 3)] + [{"seat": 0, "call": "D", "alone": True}],
    "tricks": [[p for p in trick if p[0] != 2] for trick in CALLED_HAND["tricks"]],
    "claimed": {"trick_winners": [0, 0, 0, 0, 0], "points": [4, 0], "score": [4, 0]},
}

ALL_PASSED_HAND: dict[str, Any] = {
    "dealer": 3,
    "deal": DEAL,
    "upcard": "9H",
    "kitty": ["TH", "JS", "KS"],
    "bids": [{"seat": s % 4, "call": "pass"} for s in range(8)],
    "thrown_in": "all_passed",
    "claimed": {"points": [0, 0], "score": [0, 0]},
}


def rotate_hand(hand: dict[str, Any], k: int) -> dict[str, Any]:
    """The same hand with every seat moved k places clockwise (points swap teams on odd k)."""
    out = copy.deepcopy(hand)
    out["dealer"] = (hand["dealer"] + k) % 4
    if "deal" in hand:
        out["deal"] = [hand["deal"][(s - k) % 4] for s in range(4)]
    out["bids"] = [{**b, "seat": (b["seat"] + k) % 4} for b in hand["bids"]]
    if "tricks" in hand:
        out["tricks"] = [[[(s + k) % 4, c] for s, c in trick] for trick in hand["tricks"]]
    if "defender_alone" in hand:
        out["defender_alone"] = (hand["defender_alone"] + k) % 4
    claimed = out.get("claimed", {})
    if "trick_winners" in claimed:
        claimed["trick_winners"] = [(w + k) % 4 for w in claimed["trick_winners"]]
    if "points" in claimed and k % 2:
        claimed["points"] = claimed["points"][::-1]
    claimed.pop("score", None)
    return out


def game(*hands: dict[str, Any], game_id: str = "t-1", **fields: Any) -> dict[str, Any]:
    """A game record of the given hands, with claimed running scores filled in."""
    hand_list = [copy.deepcopy(h) for h in hands]
    score = [0, 0]
    for h in hand_list:
        claimed = h.get("claimed")
        if claimed and "points" in claimed:
            score = [score[0] + claimed["points"][0], score[1] + claimed["points"][1]]
            claimed["score"] = list(score)
    record: dict[str, Any] = {
        "format": "euchre/1",
        "game_id": game_id,
        "players": ["ana", "ben", "cleo", "dev"],
        "rules": {"preset": "cards4net"},
        "hands": hand_list,
    }
    record.update(fields)
    return record


def rotation_game(n: int, hand: dict[str, Any] = CALLED_HAND, **fields: Any) -> dict[str, Any]:
    """n hands, the deal passing clockwise each time."""
    return game(*(rotate_hand(hand, k) for k in range(n)), **fields)
