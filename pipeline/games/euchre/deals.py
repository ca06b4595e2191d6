"""The deal of each hand in the warehouse: ``euchre.deals``, one row per seat.

The studies need every hand as dealt (the double-dummy par of
:mod:`par`, the hand viewer): the plays show only the cards that were played,
not those of a lone maker's partner, nor the dealer's discard.  A hand's deal
is written when the record gives it in full (``deal_known``), each card by its
canonical name, in the order the record lists them.

>>> import json
>>> from pipeline.games.euchre.replay import replay_game, _DOCTEST_GAME
>>> record = json.loads(_DOCTEST_GAME)
>>> rows = deal_rows(record, replay_game(record))
>>> len(rows), rows[3]
(4, ('doc', 0, 3, ['TD', 'AH', 'KH', 'QH', 'JH']))
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from typing import Any

import pandera.polars as pa
import polars as pl

from pipeline.games.euchre.cards import CARD_NAMES, UNKNOWN, parse_card
from pipeline.games.euchre.replay import GameReplay
from pipeline.warehouse.tables import Rows


class Deals(pa.DataFrameModel):
    """One row per seat of every hand whose deal the record gives in full."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    seat: pl.Int8 = pa.Field(ge=0, le=3)
    cards: pl.List = pa.Field(dtype_kwargs={"inner": pl.Utf8})

    class Config:
        strict = True
        coerce = False


def deals_ddl() -> str:
    return files("pipeline.games.euchre").joinpath("deals.sql").read_text(encoding="utf-8")


def deal_rows(record: dict[str, Any], replay: GameReplay) -> list[tuple[Any, ...]]:
    """The ``euchre.deals`` rows of a replayed game: its hands with a known deal."""
    game_id = replay.game_id
    hands = record.get("hands")
    out: list[tuple[Any, ...]] = []
    if not isinstance(hands, list):
        return out
    for hand in replay.hands:
        if not hand.deal_known or not 0 <= hand.index < len(hands):
            continue
        deal = hands[hand.index].get("deal") if isinstance(hands[hand.index], dict) else None
        if not isinstance(deal, list) or len(deal) != 4:
            continue
        seats = []
        for cards in deal:
            parsed = [parse_card(t) for t in cards] if isinstance(cards, list) else []
            if len(parsed) != 5 or any(c is None or c == UNKNOWN for c in parsed):
                break
            seats.append([CARD_NAMES[c] for c in parsed if c is not None])
        else:
            out.extend((game_id, hand.index, seat, cards) for seat, cards in enumerate(seats))
    return out


def with_deals(
    rows: Callable[[dict[str, Any], GameReplay, frozenset[int]], Rows],
) -> Callable[[dict[str, Any], GameReplay, frozenset[int]], Rows]:
    """A row builder that also gives the ``deals`` rows."""

    def rows_and_deals(record: dict[str, Any], replay: GameReplay, invalid: frozenset[int]) -> Rows:
        out = rows(record, replay, invalid)
        out["deals"] = deal_rows(record, replay)
        return out

    return rows_and_deals
