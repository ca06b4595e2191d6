"""pandera models of the warehouse tables: one per table of ``warehouse.sql``.

Every frame ``tricklog load`` writes is checked against its model first
(types, nullability, ranges, accepted values), so a bug in the frame builder
stops the load before anything reaches the database.  The models are also the
single source of the frames' column names and polars dtypes
(:func:`polars_schema`); the SQL types in ``warehouse.sql`` mirror them.

>>> import polars as pl
>>> frame = pl.DataFrame({"game_id": ["g"], "hand_no": [0], "trick_no": [0], "play_no": [0],
...                       "seat": [5], "card": ["JD"]}, schema=polars_schema(Plays))
>>> try:
...     Plays.validate(frame)
... except Exception as e:
...     print(type(e).__name__)
SchemaError
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

TEAMS = [0, 1]
SUIT_LETTERS = ["C", "D", "H", "S"]
CALLS = ["pass", "order", *SUIT_LETTERS]


class _Strict:
    #: Exactly these columns, these dtypes: no coercion hides a builder bug.
    strict = True
    coerce = False


class Games(pa.DataFrameModel):
    """One row per game loaded (the games that could be replayed at all)."""

    game_id: pl.Utf8 = pa.Field(unique=True, str_length={"min_value": 1})
    run_id: pl.Int32 = pa.Field(ge=1)
    file: pl.Utf8
    line: pl.Int64 = pa.Field(nullable=True, ge=0)
    content_hash: pl.Utf8 = pa.Field(str_length={"min_value": 64, "max_value": 64})
    format: pl.Utf8
    source: pl.Utf8 = pa.Field(nullable=True)
    started_at: pl.Utf8 = pa.Field(nullable=True)
    preset: pl.Utf8
    rules: pl.Utf8  # JSON text
    players: pl.List = pa.Field(dtype_kwargs={"inner": pl.Utf8})
    hands_played: pl.Int32 = pa.Field(ge=0)
    team0_score: pl.Int32
    team1_score: pl.Int32
    winner_team: pl.Int8 = pa.Field(nullable=True, isin=TEAMS)
    complete: pl.Boolean
    violations: pl.Int32 = pa.Field(ge=0)
    extra: pl.Utf8 = pa.Field(nullable=True)  # JSON text

    class Config(_Strict):
        pass

    @pa.dataframe_check
    @classmethod
    def four_players(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """Every game has 4 player names, indexed by seat."""
        return data.lazyframe.select(pl.col("players").list.len() == 4)


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

    class Config(_Strict):
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

    class Config(_Strict):
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

    class Config(_Strict):
        pass


class Plays(pa.DataFrameModel):
    """One row per card played."""

    game_id: pl.Utf8
    hand_no: pl.Int32 = pa.Field(ge=0)
    trick_no: pl.Int8 = pa.Field(ge=0, le=4)
    play_no: pl.Int8 = pa.Field(ge=0, le=3)
    seat: pl.Int8 = pa.Field(ge=0, le=3)
    card: pl.Utf8 = pa.Field(str_length={"min_value": 2, "max_value": 2})

    class Config(_Strict):
        pass


class Violations(pa.DataFrameModel):
    """Every violation found, the fields of ``validate --violations``."""

    run_id: pl.Int32 = pa.Field(ge=1)
    game_id: pl.Utf8 = pa.Field(nullable=True)
    file: pl.Utf8 = pa.Field(nullable=True)
    line: pl.Int64 = pa.Field(nullable=True)
    hand: pl.Int32 = pa.Field(nullable=True, ge=0)
    path: pl.Utf8
    code: pl.Utf8 = pa.Field(str_length={"min_value": 1})
    message: pl.Utf8
    rule: pl.Utf8 = pa.Field(nullable=True)

    class Config(_Strict):
        pass


class Quarantine(pa.DataFrameModel):
    """Every input line that could not become a game, kept whole."""

    run_id: pl.Int32 = pa.Field(ge=1)
    file: pl.Utf8
    file_sha256: pl.Utf8 = pa.Field(str_length={"min_value": 64, "max_value": 64})
    line: pl.Int64 = pa.Field(ge=0)
    game_id: pl.Utf8 = pa.Field(nullable=True)
    code: pl.Utf8 = pa.Field(str_length={"min_value": 1})
    message: pl.Utf8
    raw: pl.Binary
    raw_text: pl.Utf8

    class Config(_Strict):
        pass

    @pa.dataframe_check
    @classmethod
    def one_row_per_line(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A line of a file is quarantined once."""
        return data.lazyframe.select(~pl.struct("file_sha256", "line").is_duplicated())


#: Table name -> model, in load order.
MODELS: dict[str, type[pa.DataFrameModel]] = {
    "games": Games,
    "hands": Hands,
    "bids": Bids,
    "tricks": Tricks,
    "plays": Plays,
    "violations": Violations,
    "quarantine": Quarantine,
}


def polars_schema(model: type[pa.DataFrameModel]) -> dict[str, pl.DataType]:
    """The column names and polars dtypes of a model, in order."""
    return {name: column.dtype.type for name, column in model.to_schema().columns.items()}
