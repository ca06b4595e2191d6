"""pandera models of the core warehouse tables: one per table of ``warehouse.sql``.

Every frame ``tricklog load`` writes is checked against its model first
(types, nullability, ranges, accepted values), so a bug in the frame builder
stops the load before anything reaches the database.  The models are also the
single source of the frames' column names and polars dtypes
(:func:`polars_schema`); the SQL types in ``warehouse.sql`` mirror them.

>>> import polars as pl
>>> frame = pl.DataFrame({"run_id": [0], "file": ["f"], "file_sha256": ["0" * 64], "line": [1],
...     "game_id": [None], "code": ["schema"], "message": ["m"], "raw": [b"x"], "raw_text": ["x"]},
...     schema=polars_schema(Quarantine))
>>> try:
...     Quarantine.validate(frame)
... except Exception as e:
...     print(type(e).__name__)
SchemaError
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl


class Strict:
    """The config of every warehouse model, the games' included: exactly these
    columns, these dtypes; no coercion hides a builder bug."""

    strict = True
    coerce = False


class Games(pa.DataFrameModel):
    """One row per game loaded (the games that could be replayed at all), of any game."""

    game_id: pl.Utf8 = pa.Field(unique=True, str_length={"min_value": 1})
    run_id: pl.Int32 = pa.Field(ge=1)
    file: pl.Utf8
    line: pl.Int64 = pa.Field(nullable=True, ge=0)
    content_hash: pl.Utf8 = pa.Field(str_length={"min_value": 64, "max_value": 64})
    game: pl.Utf8 = pa.Field(str_length={"min_value": 1})
    format: pl.Utf8
    source: pl.Utf8 = pa.Field(nullable=True)
    started_at: pl.Utf8 = pa.Field(nullable=True)
    preset: pl.Utf8
    rules: pl.Utf8  # JSON text
    players: pl.List = pa.Field(dtype_kwargs={"inner": pl.Utf8})
    hands_played: pl.Int32 = pa.Field(ge=0)
    scores: pl.List = pa.Field(dtype_kwargs={"inner": pl.Int64})
    complete: pl.Boolean
    violations: pl.Int32 = pa.Field(ge=0)
    extra: pl.Utf8 = pa.Field(nullable=True)  # JSON text

    class Config(Strict):
        pass


class Violations(pa.DataFrameModel):
    """Every violation found, the fields of ``validate --violations``."""

    run_id: pl.Int32 = pa.Field(ge=1)
    game_id: pl.Utf8 = pa.Field(nullable=True)
    file: pl.Utf8 = pa.Field(nullable=True)
    line: pl.Int64 = pa.Field(nullable=True)
    hand: pl.Int32 = pa.Field(nullable=True, ge=0)
    trick: pl.Int32 = pa.Field(nullable=True, ge=0)
    seat: pl.Int8 = pa.Field(nullable=True, ge=0)
    player: pl.Utf8 = pa.Field(nullable=True)
    path: pl.Utf8
    code: pl.Utf8 = pa.Field(str_length={"min_value": 1})
    message: pl.Utf8
    rule: pl.Utf8 = pa.Field(nullable=True)

    class Config(Strict):
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

    class Config(Strict):
        pass

    @pa.dataframe_check
    @classmethod
    def one_row_per_line(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A line of a file is quarantined once."""
        return data.lazyframe.select(~pl.struct("file_sha256", "line").is_duplicated())


#: The core's tables (every game's), name -> model, in load order.  Each game
#: adds its own tables in a schema named after it (``pipeline.games``).
MODELS: dict[str, type[pa.DataFrameModel]] = {
    "games": Games,
    "violations": Violations,
    "quarantine": Quarantine,
}


def polars_schema(model: type[pa.DataFrameModel]) -> dict[str, pl.DataType]:
    """The column names and polars dtypes of a model, in order."""
    return {name: column.dtype.type for name, column in model.to_schema().columns.items()}
