"""French Tarot's warehouse tables: the DDL (``warehouse.sql`` beside this file,
the DuckDB schema ``tarot``), the pandera models and the row builder.

The core's ``games`` row of a Tarot game carries the four seats' totals as
``scores``.  Every frame is checked against its model before it is written.

>>> import json
>>> from pipeline.games.tarot.replay import replay_game, _DOCTEST_GAME
>>> record = json.loads(_DOCTEST_GAME)
>>> rows = table_rows(record, replay_game(record), frozenset({0}))
>>> sorted(rows), len(rows["tricks"]), len(rows["plays"]), len(rows["chien"])
(['bids', 'chien', 'hands', 'plays', 'poignees', 'tricks'], 18, 72, 12)
>>> hand = rows["hands"][0]
>>> hand[3], hand[4], hand[7], hand[8], hand[10], hand[-3]
('prise', 1, 35.0, 41, False, False)
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import pandera.polars as pa
import polars as pl
from tricklog_schemas.tables import Strict

from pipeline.games.tarot.cards import EXCUSE, card_name
from pipeline.games.tarot.fingerprint import hand_fingerprint
from pipeline.games.tarot.replay import GAME_FIELDS, TarotHand, TarotReplay
from pipeline.games.tarot.rules import CONTRACTS, POIGNEE_NAMES
from pipeline.warehouse.tables import GameFacts, GameTables, Rows


class Hands(pa.DataFrameModel):
    """One row per hand replayed."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    dealer: pl.Int8 = pa.Field(ge=0, le=3)
    contract: pl.Utf8 = pa.Field(nullable=True, isin=list(CONTRACTS))
    taker: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    taker_position: pl.Utf8 = pa.Field(nullable=True, isin=["first", "second", "third", "dealer"])
    bouts: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    taker_points: pl.Float64 = pa.Field(nullable=True, ge=0, le=91)
    target: pl.Int8 = pa.Field(nullable=True, isin=[56, 51, 41, 36])
    margin: pl.Float64 = pa.Field(nullable=True)
    made: pl.Boolean = pa.Field(nullable=True)
    petit_au_bout: pl.Utf8 = pa.Field(nullable=True, isin=["taker", "defence"])
    chelem_announced: pl.Boolean
    chelem_made: pl.Boolean
    defence_chelem: pl.Boolean
    contract_score: pl.Int32 = pa.Field(nullable=True)
    taker_score: pl.Int32 = pa.Field(nullable=True)
    scores: pl.List = pa.Field(dtype_kwargs={"inner": pl.Int32})
    totals: pl.List = pa.Field(dtype_kwargs={"inner": pl.Int32})
    thrown_in: pl.Utf8 = pa.Field(nullable=True, isin=["all_passed", "petit_sec"])
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
    call: pl.Utf8 = pa.Field(isin=["pass", *CONTRACTS])

    class Config(Strict):
        pass


class Tricks(pa.DataFrameModel):
    """One row per trick played (or begun)."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    trick_no: pl.Int8 = pa.Field(ge=0, le=17)
    leader: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    winner: pl.Int8 = pa.Field(nullable=True, ge=0, le=3)
    cards: pl.Int8 = pa.Field(ge=0, le=4)
    excuse: pl.Boolean

    class Config(Strict):
        pass


class Plays(pa.DataFrameModel):
    """One row per card played."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    trick_no: pl.Int8 = pa.Field(ge=0, le=17)
    play_no: pl.Int8 = pa.Field(ge=0, le=3)
    seat: pl.Int8 = pa.Field(ge=0, le=3)
    card: pl.Utf8 = pa.Field(str_length={"min_value": 2, "max_value": 3})

    class Config(Strict):
        pass


class Chien(pa.DataFrameModel):
    """The chien as dealt and the écart, one row per card."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    pile: pl.Utf8 = pa.Field(isin=["chien", "ecart"])
    card: pl.Utf8 = pa.Field(str_length={"min_value": 2, "max_value": 3})

    class Config(Strict):
        pass


class Poignees(pa.DataFrameModel):
    """One row per poignée shown."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    seat: pl.Int8 = pa.Field(ge=0, le=3)
    size: pl.Utf8 = pa.Field(isin=list(POIGNEE_NAMES))

    class Config(Strict):
        pass


#: Table name (in the schema ``tarot``) -> model, in load order.
MODELS: dict[str, type[pa.DataFrameModel]] = {
    "hands": Hands,
    "bids": Bids,
    "tricks": Tricks,
    "plays": Plays,
    "chien": Chien,
    "poignees": Poignees,
}


def game_facts(replay: TarotReplay) -> GameFacts:
    """What the core ``games`` row says of a Tarot game: the seats' totals; a Tarot
    game has no target, so it is complete when every recorded hand is."""
    complete = bool(replay.hands) and all(h.complete for h in replay.hands)
    return GameFacts(replay.rules.preset, replay.rules.as_dict(), list(replay.totals), complete)


def table_rows(record: dict[str, Any], replay: TarotReplay, invalid: frozenset[int]) -> Rows:
    """The rows of a replayed game in Tarot's tables; ``invalid``: the hands some
    violation names (the replay's, and those found reading the record)."""
    game_id = replay.game_id
    assert game_id is not None
    rows: Rows = {table: [] for table in MODELS}
    for hand in replay.hands:
        _add_hand(rows, game_id, hand, hand.index not in invalid)
    return rows


def _add_hand(rows: Rows, game_id: str, hand: TarotHand, valid: bool) -> None:
    n, played = hand.index, hand.taker is not None and hand.thrown_in is None
    rows["hands"].append(
        (
            game_id,
            n,
            hand.dealer,
            hand.contract,
            hand.taker,
            hand.taker_position,
            hand.bouts if played else None,
            hand.taker_points if played else None,
            hand.target if played else None,
            hand.margin if played else None,
            hand.made if played else None,
            hand.petit_au_bout,
            hand.chelem_announced,
            hand.chelem_made and played,
            hand.defence_chelem and played,
            hand.contract_score if played else None,
            hand.taker_score if played else None,
            list(hand.scores),
            list(hand.totals),
            hand.thrown_in,
            hand.complete,
            valid,
            hand.deal_known,
            hand_fingerprint(hand),
        )
    )
    rows["bids"].extend((game_id, n, b, bid.seat, bid.call) for b, bid in enumerate(hand.bids))
    for t, trick in enumerate(hand.tricks):
        cards = trick.cards
        rows["tricks"].append((game_id, n, t, trick.leader, trick.winner, len(cards), EXCUSE in cards))
        rows["plays"].extend(
            (game_id, n, t, p, seat, card_name(card)) for p, (seat, card) in enumerate(trick.plays)
        )
    rows["chien"].extend((game_id, n, "chien", card_name(c)) for c in hand.chien)
    rows["chien"].extend((game_id, n, "ecart", card_name(c)) for c in hand.ecart)
    rows["poignees"].extend((game_id, n, seat, size) for seat, size in hand.poignees)


def warehouse_tables() -> GameTables:
    """Tarot's part of the warehouse (the plugin's ``tables``)."""
    ddl = files("pipeline.games.tarot").joinpath("warehouse.sql").read_text(encoding="utf-8")
    return GameTables(
        schema="tarot",
        ddl=ddl,
        models=MODELS,
        rows=table_rows,
        facts=game_facts,
        record_fields=GAME_FIELDS,
        partitioned=frozenset({"hands", "plays"}),
    )
