"""Reading a euchre/1 record: its fields, its card tokens and its bids.

A record is JSON, so anything may stand where a field should be.  Each reader
here takes what it can use and reports the rest as a violation (``schema``,
``bad_card``), so that the phases of the replay see well-formed values only.

>>> int_pair([3, 10]), int_pair([3, True]), int_pair("3-10")
((3, 10), None, None)
>>> is_seat(3), is_seat(4), is_seat(True)
(True, False, False)
"""

from __future__ import annotations

from typing import Any

from pipeline.games.euchre.cards import UNKNOWN, Card, card_name, parse_card
from pipeline.games.euchre.rules import CALLS
from pipeline.games.euchre.state import Bid, Context, HandState
from pipeline.record import check_game_fields as common_game_fields
from pipeline.record import is_seat as is_seat

GAME_FIELDS = frozenset(
    ("format", "game_id", "players", "rules", "started_at", "source", "hands", "final_score")
) | {"initial_score", "origin"}  # tricklog's own: a game picked up part way, an imported game


#: The largest score (or points) a pair may hold: scores stay far from overflowing the warehouse's columns.
MAX_SCORE = 1_000_000


def int_pair(value: object) -> tuple[int, int] | None:
    """A ``[team0, team1]`` pair of whole numbers (at most :data:`MAX_SCORE` in size), or None."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) and abs(x) <= MAX_SCORE for x in value)
    ):
        return value[0], value[1]
    return None


def check_game_fields(ctx: Context, record: dict[str, Any]) -> None:
    """The fields of the game object itself: format, id, players, hands, initial score."""
    common_game_fields(ctx, record, "euchre/1")
    initial = record.get("initial_score")
    if initial is not None and int_pair(initial) is None:
        ctx.add("schema", None, "initial_score", f"initial_score must be [team0, team1], not {initial!r}")


def read_card(
    state: HandState, token: object, path: str, *, unknown_ok: bool = True, seat: int | None = None
) -> Card | None:
    """Parse a card token, reporting a bad one; None when it is unusable."""
    card = state.tokens.get(token) if type(token) is str else None
    if card is not None and (card != UNKNOWN or unknown_ok):
        return card
    return bad_card(state, token, path, unknown_ok, seat=seat)


def bad_card(
    state: HandState,
    token: object,
    path: str,
    unknown_ok: bool,
    *,
    trick: int | None = None,
    seat: int | None = None,
) -> Card | None:
    """The slow path of :func:`read_card`: odd spellings, and tokens to report
    (``trick`` and ``seat``: where a played card is read)."""
    card = parse_card(token)
    if card is None:
        state.add("bad_card", path, f"{token!r} is not a card", trick=trick, seat=seat)
        return None
    if card == UNKNOWN:
        if unknown_ok:
            return UNKNOWN
        state.add("bad_card", path, "a played card cannot be unknown ('??')", trick=trick, seat=seat)
        return None
    if not state.deck >> card & 1:
        state.add(
            "bad_card",
            path,
            f"{card_name(card)} is not a card of the {state.rules.deck}-card deck",
            trick=trick,
            seat=seat,
        )
        return None
    return card


def read_bids(state: HandState, hand: dict[str, Any]) -> list[tuple[int, Bid]]:
    """The bids with their index; an unreadable one is a schema violation and an unknown call."""
    bids = hand.get("bids")
    if not isinstance(bids, list):
        state.add("schema", ".bids", "bids is missing or not a list")
        return []
    out: list[tuple[int, Bid]] = []
    for j, b in enumerate(bids):
        text = b.get("call") if isinstance(b, dict) and is_seat(b.get("seat")) else None
        call = CALLS.get(text) if isinstance(text, str) else None
        if call is None:
            _bad_bid(state, j, b)
            out.append((j, Bid(UNKNOWN, "?", False)))
            continue
        alone = b.get("alone", False)
        if not isinstance(alone, bool):
            state.add(
                "schema", f".bids[{j}].alone", f"alone must be true or false, not {alone!r}", seat=b["seat"]
            )
            alone = False
        bid = Bid(b["seat"], call, alone)
        state.result.bids.append(bid)
        out.append((j, bid))
    return out


def _bad_bid(state: HandState, j: int, b: object) -> None:
    seat = b.get("seat") if isinstance(b, dict) else None
    state.add(
        "schema",
        f".bids[{j}]",
        f"a bid is {{'seat': 0-3, 'call': pass|order|C|D|H|S}}, not {b!r}",
        seat=seat if is_seat(seat) else None,
    )
