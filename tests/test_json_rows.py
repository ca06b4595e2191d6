"""``sql --format json`` writes what orjson writes of the rows' dicts, byte for byte.

The reference is the old writer: ``orjson.dumps(frame.to_dicts(), default=...,
option=OPT_INDENT_2)``.  Frames come from DuckDB, as the command's do, with
every type a query may give, and from hypothesis's values.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from decimal import Decimal
from typing import Any

import duckdb
import orjson
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.warehouse.json_rows import json_default, write_json
from pipeline.warehouse.query import query_batches


def reference(frame: pl.DataFrame) -> bytes:
    """The old writer, of a whole result."""
    return orjson.dumps(frame.to_dicts(), default=json_default, option=orjson.OPT_INDENT_2) + b"\n"


def written(*frames: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    write_json(iter(frames), out)
    return out.getvalue()


#: One query of every kind of column DuckDB gives, nulls and awkward values among them.
EVERY_TYPE = """
select * from (values
    (1, (-9223372036854775807 - 1)::bigint, 18446744073709551615::ubigint, 3::tinyint, 1.5::float, 0.1::double,
     'a"b\\c' || chr(10) || chr(31) || 'é☃😀', true, date '2024-02-29', timestamp '2024-01-01 12:34:56.789',
     timestamptz '2024-01-01 12:00:00+02', time '23:59:59', interval 3 day, 12.50::decimal(9, 2),
     170141183460469231731687303715884105727::hugeint, [1, 2, null], ['x', 'y'], {'k': 1, 'v': [true]},
     'blob\\x00\\xff'::blob, uuid '00000000-0000-0000-0000-000000000001', 'b'::enum_col, []::int[],
     map {'a': 1}, 'nan'::double, 'inf'::double, -0.0::double, 1e300::double, 5e-324::double),
    (null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
     null, null, null, null, null, null, null, null, null, null, null)
) as t(i, big, ubig, tiny, f32, f64, s, b, d, ts, tstz, tm, iv, dec, huge, li, ls, st, bl, u, en, empty,
       mp, nan, inf, negzero, large, tiny_float)
"""


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create type enum_col as enum ('a', 'b')")
    con.execute("set timezone = 'UTC'")
    return con


def test_every_type_duckdb_gives_is_written_as_the_reference(con: duckdb.DuckDBPyConnection) -> None:
    frame = pl.concat(list(query_batches(con, EVERY_TYPE)))
    assert frame.height == 2 and frame.width == 28
    assert written(frame) == reference(frame)


@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    height = draw(st.integers(1, 12))
    names = draw(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=5, unique=True))
    columns: dict[str, pl.Series] = {}
    for name in names:
        kind = draw(st.sampled_from(["int", "float", "float32", "text", "bool", "date", "list", "struct"]))
        columns[name] = pl.Series(name, draw(column_values(kind, height)), dtype=DTYPES[kind])
    return pl.DataFrame(columns)


DTYPES: dict[str, Any] = {
    "int": pl.Int64,
    "float": pl.Float64,
    "float32": pl.Float32,
    "text": pl.String,
    "bool": pl.Boolean,
    "date": pl.Date,
    "list": pl.List(pl.String),
    "struct": pl.Struct({"n": pl.Int64, "s": pl.String}),
}


def column_values(kind: str, height: int) -> st.SearchStrategy[list[Any]]:
    value: st.SearchStrategy[Any] = {
        "int": st.integers(-(2**63), 2**63 - 1),
        "float": st.floats(),
        "float32": st.floats(width=32),
        "text": st.text(),
        "bool": st.booleans(),
        "date": st.dates(),
        "list": st.lists(st.text(max_size=3), max_size=3),
        "struct": st.fixed_dictionaries({"n": st.integers(-5, 5), "s": st.text(max_size=3)}),
    }[kind]
    return st.lists(st.none() | value, min_size=height, max_size=height)


@settings(max_examples=300, deadline=None)
@given(frame=frames())
def test_any_frame_is_written_as_the_reference(frame: pl.DataFrame) -> None:
    assert written(frame) == reference(frame)


def test_the_awkward_values_are_those_orjson_writes() -> None:
    frame = pl.DataFrame(
        {
            "f": [math.nan, -math.inf, -0.0, 1e16, 0.1],
            "d": [Decimal("1.50"), None, Decimal("-3"), Decimal("0"), Decimal("2.25")],
            "t": [dt.datetime(2024, 1, 1, tzinfo=dt.UTC), None, None, None, None],
        }
    )
    assert written(frame) == reference(frame)
    assert b'"f": null' in written(frame) and b'"d": "1.50"' in written(frame)


@settings(max_examples=100, deadline=None)
@given(frame=frames(), cut=st.integers(0, 12))
def test_a_result_written_a_frame_at_a_time_is_the_whole_results_text(frame: pl.DataFrame, cut: int) -> None:
    head, tail = frame.head(cut), frame.slice(cut)
    assert written(head, frame.clear(), tail) == reference(frame)


def test_no_row_is_an_empty_array() -> None:
    assert written(pl.DataFrame({"a": []}, schema={"a": pl.Int64})) == b"[]\n"


def test_columns_named_like_polars_patterns_are_each_their_own() -> None:
    """``pl.col("*")`` is every column and ``pl.col("^a$")`` a pattern: by name, the
    value of a column called ``*`` was every column's."""
    frame = pl.DataFrame({"*": [1, None], "^a$": ["x", None], "a": [True, None]})
    assert written(frame) == reference(frame)
