"""Euchre's warehouse tables: the DDL, the pandera models and the row builder.

The tables live in the DuckDB schema ``euchre`` (``warehouse.sql`` beside this
file); the core's ``games`` row of a Euchre game carries the team scores as
``scores = [team 0, team 1]``.  Every frame is checked against its model
before it is written.

>>> import json
>>> from pipeline.games.euchre.replay import replay_game, _DOCTEST_GAME
>>> record = json.loads(_DOCTEST_GAME)
>>> rows = table_rows(record, replay_game(record), frozenset({0}))
>>> sorted(rows), len(rows["plays"])
(['bids', 'games', 'hands', 'plays', 'tricks'], 20)
>>> rows["hands"][0][:3], rows["hands"][0][-3]
(('doc', 0, 3), False)
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import pandera.polars as pa
import polars as pl
from tricklog_schemas.tables import Strict

from pipeline.games.euchre.cards import CARD_NAMES, SUITS, UNKNOWN
from pipeline.games.euchre.fingerprint import hand_fingerprint
from pipeline.games.euchre.replay import GAME_FIELDS, GameReplay, HandResult, int_pair
from pipeline.games.euchre.rules import Rules
from pipeline.warehouse.tables import GameFacts, GameTables, Rows

TEAMS = [0, 1]
SUIT_LETTERS = ["C", "D", "H", "S"]
CALLS = ["pass", "order", *SUIT_LETTERS]


class Games(pa.DataFrameModel):
    """One row per Euchre game: team scores and the outcome."""

    game_id: pl.Utf8 = pa.Field(unique=True)
    team0_score: pl.Int32
    team1_score: pl.Int32
    winner_team: pl.Int8 = pa.Field(nullable=True, isin=TEAMS)
    target: pl.Int32
    from_start: pl.Boolean

    class Config(Strict):
        pass


class Hands(pa.DataFrameModel):
    """One row per hand replayed."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    dealer: pl.Int8 = pa.Field(ge=0, le=3)
    upcard: pl.Utf8 = pa.Field(nullable=True)
    trump: pl.Utf8 = pa.Field(nullable=True, isin=SUIT_LETTERS)
    maker_seat: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    maker_team: pl.Int8 = pa.Field(nullable=True, isin=TEAMS)
    alone: pl.Boolean
    defender_alone: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    round: pl.Int8 = pa.Field(nullable=True, isin=[1, 2])
    discard: pl.Utf8 = pa.Field(nullable=True)
    maker_tricks: pl.Int8 = pa.Field(ge=0, le=5)
    team0_points: pl.Int8 = pa.Field(ge=0)
    team1_points: pl.Int8 = pa.Field(ge=0)
    team0_score: pl.Int32
    team1_score: pl.Int32
    thrown_in: pl.Utf8 = pa.Field(nullable=True, isin=["all_passed", "farmers_hand"])
    complete: pl.Boolean
    valid: pl.Boolean
    deal_known: pl.Boolean
    fingerprint: pl.Utf8 = pa.Field(nullable=True)

    class Config(Strict):
        pass


class Bids(pa.DataFrameModel):
    """One row per well-formed call, in the order spoken."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    bid_no: pl.Int8 = pa.Field(ge=0)
    seat: pl.Int8 = pa.Field(ge=0, le=3)
    round: pl.Int8 = pa.Field(isin=[1, 2])
    call: pl.Utf8 = pa.Field(isin=CALLS)
    alone: pl.Boolean

    class Config(Strict):
        pass


class Tricks(pa.DataFrameModel):
    """One row per trick played (or begun)."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    trick_no: pl.Int8 = pa.Field(ge=0, le=4)
    leader: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    winner: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    winner_team: pl.Int8 = pa.Field(nullable=True, isin=TEAMS)
    cards: pl.Int8 = pa.Field(ge=0, le=4)

    class Config(Strict):
        pass


class Plays(pa.DataFrameModel):
    """One row per card played."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    trick_no: pl.Int8 = pa.Field(ge=0, le=4)
    play_no: pl.Int8 = pa.Field(ge=0, le=3)
    seat: pl.Int8 = pa.Field(ge=0, le=3)
    card: pl.Utf8 = pa.Field(str_length={"min_value": 2, "max_value": 2})

    class Config(Strict):
        pass


#: Table name (in the schema ``euchre``) -> model, in load order.
MODELS: dict[str, type[pa.DataFrameModel]] = {
    "games": Games,
    "hands": Hands,
    "bids": Bids,
    "tricks": Tricks,
    "plays": Plays,
}


def _card(card: int | None) -> str | None:
    if card is None:
        return None
    return "??" if card == UNKNOWN else CARD_NAMES[card]


def game_facts(replay: GameReplay) -> GameFacts:
    """What the core ``games`` row says of a Euchre game."""
    assert replay.rules is not None
    return facts_of(replay.rules, replay.score, replay.complete)


def facts_of(rules: Rules, score: tuple[int, int], complete: bool) -> GameFacts:
    """What the core ``games`` row says of a Euchre game of these rules, final score and outcome."""
    return GameFacts(rules.preset, _options(rules), list(score), complete)


@cache
def _options(rules: Rules) -> dict[str, Any]:
    """Every option of a rule set (a data set has a handful: built once each)."""
    return rules.as_dict()


def from_start(record: dict[str, Any]) -> bool:
    """The record starts its game: no ``initial_score`` other than 0-0, and not an
    imported stretch that begins after the source's first deal (``origin.from_start``).

    >>> from_start({}), from_start({"initial_score": [4, 9]}), from_start({"origin": {"from_start": False}})
    (True, False, False)
    """
    if int_pair(record.get("initial_score")) not in (None, (0, 0)):
        return False
    origin = record.get("origin")
    return not (isinstance(origin, dict) and origin.get("from_start") is False)


def table_rows(record: dict[str, Any], replay: GameReplay, invalid: frozenset[int]) -> Rows:
    """The rows of a replayed game in Euchre's tables; ``invalid``: the hands some
    violation names (the replay's, and those found reading the record)."""
    game_id = replay.game_id
    assert game_id is not None and replay.rules is not None
    rows: Rows = {"games": [], "hands": [], "bids": [], "tricks": [], "plays": []}
    score = replay.score
    rows["games"].append(
        (game_id, score[0], score[1], replay.winner, replay.rules.target, from_start(record))
    )
    for hand in replay.hands:
        _add_hand(rows, game_id, hand, hand.index not in invalid)
    return rows


def _add_hand(rows: Rows, game_id: str, hand: HandResult, valid: bool) -> None:
    n = hand.index
    rows["hands"].append(
        (
            game_id,
            n,
            hand.dealer,
            _card(hand.upcard),
            None if hand.trump is None else SUITS[hand.trump],
            hand.maker,
            hand.maker_team,
            hand.alone,
            hand.defender_alone,
            hand.round,
            _card(hand.discard),
            hand.maker_tricks,
            hand.points[0],
            hand.points[1],
            hand.score[0],
            hand.score[1],
            hand.thrown_in,
            hand.complete,
            valid,
            hand.deal_known,
            hand_fingerprint(hand),
        )
    )
    bids, passes = rows["bids"], 0
    for b, bid in enumerate(hand.bids):
        bids.append((game_id, n, b, bid.seat, 1 if passes < 4 else 2, bid.call, bid.alone))
        passes += bid.call == "pass"
    _add_tricks(rows, game_id, hand)


def _add_tricks(rows: Rows, game_id: str, hand: HandResult) -> None:
    n, tricks, plays = hand.index, rows["tricks"], rows["plays"]
    for t, trick in enumerate(hand.tricks):
        winner = trick.winner
        tricks.append(
            (game_id, n, t, trick.leader, winner, None if winner is None else winner & 1, len(trick))
        )
        for p, (seat, card) in enumerate(trick):
            plays.append((game_id, n, t, p, seat, _card(card)))


def warehouse_tables() -> GameTables:
    """Euchre's part of the warehouse (the plugin's ``tables``)."""
    from pipeline.games.euchre.deals import Deals, deals_ddl, with_deals

    ddl = files("pipeline.games.euchre").joinpath("warehouse.sql").read_text(encoding="utf-8")
    return GameTables(
        schema="euchre",
        ddl=ddl + deals_ddl(),
        models={**MODELS, "deals": Deals},
        rows=with_deals(table_rows),
        facts=game_facts,
        record_fields=GAME_FIELDS,
        partitioned=frozenset({"hands", "plays"}),
    )
