"""The bidding: each seat speaks once, from the seat after the dealer.

A call is ``pass`` or a contract higher than every contract called before it
(prise < garde < garde sans < garde contre).  The highest contract takes; four
passes throw the hand in.
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.rules import CALLS, CONTRACTS
from pipeline.games.tarot.state import Bid, HandState, is_seat


def rank_of_call(call: str) -> int:
    """0 for pass, 1-4 for the contracts in order."""
    return CALLS.index(call)


def _next_unspoken(after: int, spoken: set[int]) -> int:
    """The first seat from ``after`` on that has not called yet (``after`` if all have)."""
    return next((s for s in ((after + i) % 4 for i in range(4)) if s not in spoken), after)


def bidding_phase(state: HandState, hand: dict[str, Any]) -> bool:
    """Replay the calls; True when a seat took (the hand is then played)."""
    result = state.result
    bids = hand.get("bids")
    if not isinstance(bids, list):
        state.add("schema", ".bids", "bids must be a list of {seat, call} objects")
        return False
    first = (result.dealer + 1) % 4
    highest = 0
    spoken: set[int] = set()
    # One fault, one violation: after a call out of turn the turn goes on from
    # the seat that called; the seat it went before may then call (two calls
    # recorded swapped), and a call out of turn because a seat's call is missing
    # is that seat's "never called" alone.
    after = first
    skipped: int | None = None
    out_of_turn: list[tuple[int, str, int, int]] = []  # (seat skipped, path, seat, expected)
    for k, bid in enumerate(bids):
        path = f".bids[{k}]"
        if not (isinstance(bid, dict) and is_seat(bid.get("seat")) and isinstance(bid.get("call"), str)):
            state.add("schema", path, f"a bid is {{seat: 0-3, call: string}}, not {bid!r}")
            continue
        seat: int = bid["seat"]
        call: str = bid["call"]
        expected = _next_unspoken(after, spoken)
        if seat in spoken or k >= 4:
            state.add("bid_turn", path, f"seat {seat} called a second time; each seat speaks once", seat=seat)
        elif seat != expected and seat != skipped:
            out_of_turn.append((expected, path, seat, expected))
        skipped = expected if seat != expected and seat != skipped else None
        spoken.add(seat)
        after = (seat + 1) % 4
        if call not in CALLS:
            state.add(
                "bid_illegal",
                path,
                f"seat {seat} called {call!r}, which is not a call ({', '.join(CALLS)})",
                seat=seat,
            )
            continue
        result.bids.append(Bid(seat, call))
        rank = rank_of_call(call)
        if rank == 0:
            continue
        if rank <= highest:
            state.add(
                "bid_illegal",
                path,
                f"seat {seat} called {call} after {CONTRACTS[highest - 1]}; a call must be higher than every one before it",
                seat=seat,
            )
            continue
        highest = rank
        result.taker = seat
        result.contract = call
    missing = [s for s in ((first + i) % 4 for i in range(4)) if s not in spoken] if len(bids) < 4 else []
    for passed_over, path, seat, expected in out_of_turn:
        if passed_over not in missing:
            state.add(
                "bid_turn",
                path,
                f"seat {seat} called out of turn; it was seat {expected}'s turn "
                f"(the bidding goes round once from seat {first}, after the dealer)",
                seat=seat,
            )
    if missing:
        state.add(
            "bid_turn",
            ".bids",
            f"seat {missing[0]} never called; each of the four seats speaks once",
            seat=missing[0],
        )
    reason = hand.get("thrown_in")
    if result.taker is None:
        result.thrown_in = "all_passed"
        return False
    if reason == "all_passed":
        state.add(
            "bid_illegal",
            ".thrown_in",
            f"the hand is recorded as thrown in after four passes, but seat {result.taker} called {result.contract}",
            seat=result.taker,
            rule="all_passed",
        )
    return True
