"""A result's rows as one JSON array, as ``orjson.OPT_INDENT_2`` writes the list
of their dicts, byte for byte, written a frame at a time.

``frame.to_dicts()`` made a Python dict of every row and an object of every
value: 1.2 s a million rows of six columns, where orjson then took 0.2.  Here
each row's text is put together by polars (one ``concat_str`` a frame) from
its columns' JSON: integers and booleans as polars writes them, strings and
floats as polars encodes them in JSON, which is orjson's (the same escapes,
the same shortest digits of a double, ``null`` for NaN and the infinities).
Every other column (dates, decimals, lists, structs, bytes) goes through
orjson a value at a time, each value indented as it is inside its row.

>>> import io, polars as pl
>>> out = io.BytesIO()
>>> write_json(iter([pl.DataFrame({"id": ['a"b'], "n": [1], "x": [None]})]), out)
>>> print(out.getvalue().decode(), end="")
[
  {
    "id": "a\\"b",
    "n": 1,
    "x": null
  }
]
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    import polars as pl

#: A value's indentation inside its row: the list, then the row object.
VALUE_INDENT = b"\n    "


def json_default(value: object) -> object:
    """What orjson writes for a value it has no JSON for: bytes as UTF-8 text, the rest as ``str``."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def write_json(frames: Iterator[pl.DataFrame], stream: IO[bytes]) -> None:
    """The frames' rows as one JSON array (``[]`` when there is none), two spaces an
    indent: ``orjson.dumps(rows, option=OPT_INDENT_2)`` of them all, then a newline."""
    first = True
    for frame in frames:
        if frame.height:
            text = io.BytesIO()  # written by Python: polars' own write error lost its errno (a closed pipe)
            rows_text(frame, "[\n" if first else ",\n").write_csv(
                text, include_header=False, quote_style="never", line_terminator=""
            )
            stream.write(text.getbuffer())
            first = False
    stream.write(b"[]\n" if first else b"\n]\n")


def rows_text(frame: pl.DataFrame, before_first: str) -> pl.DataFrame:
    """Each row of ``frame`` as its JSON object's text, after ``before_first`` for
    the first row and ``,\\n`` for the others: one column, written as it is."""
    import polars as pl

    parts: list[pl.Expr] = [
        pl.when(pl.int_range(pl.len()) == 0).then(pl.lit(before_first)).otherwise(pl.lit(",\n"))
    ]
    for k, (name, dtype) in enumerate(frame.schema.items()):
        parts.append(pl.lit(("  {" if k == 0 else ",") + "\n    " + orjson.dumps(name).decode() + ": "))
        parts.append(_value_text(frame, k, dtype))
    parts.append(pl.lit("\n  }"))
    return frame.select(pl.concat_str(parts).alias("row"))


def _value_text(frame: pl.DataFrame, index: int, dtype: pl.DataType) -> pl.Expr:
    """The JSON text of each value of the frame's column ``index``, never null (by
    position: ``pl.col`` reads a name as ``*`` or ``^regex$``)."""
    import polars as pl

    column = pl.nth(index)
    if dtype.is_integer():
        text = column.cast(pl.String)
    elif dtype == pl.Boolean:
        text = pl.when(column).then(pl.lit("true")).otherwise(pl.lit("false"))
    elif dtype.is_float() or dtype in (pl.String, pl.Categorical, pl.Enum, pl.Null):
        if dtype == pl.Float32:
            column = column.cast(pl.Float64)  # as a Python float: the digits of its double
        elif dtype in (pl.Categorical, pl.Enum):
            column = column.cast(pl.String)
        text = (
            pl.struct(column.alias("v")).struct.json_encode().str.strip_prefix('{"v":').str.strip_suffix("}")
        )
    else:
        return pl.lit(_each_value(frame.to_series(index)), dtype=pl.String)
    return pl.when(column.is_null()).then(pl.lit("null")).otherwise(text)


def _each_value(series: pl.Series) -> pl.Series:
    """A column orjson writes, a value at a time, each line after the first indented as in its row."""
    import polars as pl

    texts = [
        orjson.dumps(v, default=json_default, option=orjson.OPT_INDENT_2)
        .replace(b"\n", VALUE_INDENT)
        .decode()
        for v in series.to_list()
    ]
    return pl.Series(series.name, texts, dtype=pl.String)
