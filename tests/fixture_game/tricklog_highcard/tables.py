"""The pandera model of the fixture game's one table."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl


class Hands(pa.DataFrameModel):
    game_id: pl.Utf8
    hand_no: pl.Int32
    won0: pl.Int8 = pa.Field(ge=0, le=3)
    won1: pl.Int8 = pa.Field(ge=0, le=3)
    complete: pl.Boolean
    valid: pl.Boolean
    thrown_in: pl.Utf8 = pa.Field(nullable=True)
