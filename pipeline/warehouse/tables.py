"""Building the warehouse's frames from replayed games, one batch at a time.

The core writes the tables every game shares (``games``, ``violations``,
``quarantine``); each game's plugin gives a :class:`GameTables`: its DDL (a
DuckDB schema named after the game), the pandera models of its tables and the
function that turns one replay into their rows.  A :class:`Batch` accumulates
rows as tuples per table (cheap to append) and turns them into polars frames,
column by column, typed by the models.  Nothing here touches the database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import orjson

from pipeline.games import tables_of
from pipeline.violations import Violation

if TYPE_CHECKING:
    import pandera.polars as pa
    import polars as pl

    from pipeline.games import Game, Replay

#: The core tables a batch fills, in load order (``ingest_runs`` is written apart).
CORE_TABLES = ("games", "violations", "quarantine")
Rows = dict[str, list[tuple[Any, ...]]]


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the core ``games`` row says of any game."""

    preset: str
    rules: dict[str, Any]
    #: Final scores as the game keeps them (Euchre: per team, Tarot: per seat).
    scores: list[int]
    complete: bool


#: The column of a :class:`ClearedRows` table that ties each row to its record.
RECORD = "_record"
#: The column that ties a row to its input line while a load is routed.
LINE = "_line"


@dataclass(frozen=True, slots=True)
class ClearedRows:
    """The rows of the games a game's fast path cleared in a batch of records, built
    as Arrow columns (``Game.fast_rows``): no violation, every hand valid.

    ``tables`` holds the game's own tables (unqualified names), each exactly as the
    game's ``rows`` builder and :meth:`Batch.frames` make them, plus the column
    :data:`RECORD`: the index in the batch of the record each row comes from.
    """

    #: Index in the batch of each cleared record, ascending.
    records: list[int]
    #: What the core ``games`` row says of each of them, in the same order.
    facts: list[GameFacts]
    #: How many hands each of them has.
    hands: list[int]
    tables: dict[str, Any]


@dataclass(slots=True)
class ClearedLines:
    """The games a game's fast path cleared straight from a batch of raw JSON lines
    (``Game.fast_line_rows``): their rows (``rows.records``: the lines' positions in
    the batch), and what the core needs of each without parsing it -- a record of
    its core fields (id, players, source, start, initial score) and its content
    hash (:func:`content_hash` of the line's record)."""

    rows: ClearedRows
    records: list[dict[str, Any]]
    digests: list[str]


@dataclass(frozen=True, slots=True)
class GameTables:
    """A game's part of the warehouse.

    ``rows(record, replay, invalid)`` gives the rows of each of the game's
    tables (unqualified names, the keys of ``models``) for a replay whose game
    id is known, ``invalid`` being the hands some violation names (found by the
    replay or while reading the record): exactly those hands are not ``valid``.
    ``facts(replay)`` is what the core ``games`` row needs.  The hands table has
    at least ``game_id``, ``hand_no``, ``complete``, ``valid`` and ``thrown_in``
    (the core's data-set figures read them).
    """

    schema: str
    ddl: str
    models: Mapping[str, type[pa.DataFrameModel]]
    rows: Callable[[dict[str, Any], Any, frozenset[int]], Rows]
    facts: Callable[[Any], GameFacts]
    #: Fields of a record the game's spec names (the rest is kept in ``games.extra``).
    record_fields: frozenset[str]
    hands_table: str = "hands"
    #: Tables exported partitioned by the game's source (big ones).
    partitioned: frozenset[str] = frozenset()

    def qualified(self, table: str) -> str:
        return f"{self.schema}.{table}"


@cache
def arrow_schema(model: type[pa.DataFrameModel]) -> Any:
    """The Arrow schema of a model's rows as :meth:`Batch.frames` builds them and
    ``to_arrow`` gives them (built once a model)."""
    import polars as pl
    from tricklog_schemas.tables import polars_schema

    return pl.DataFrame(schema=polars_schema(model)).to_arrow().schema


def arrow_rows(rows: Sequence[tuple[Any, ...]], model: type[pa.DataFrameModel]) -> Any:
    """Tuple rows as an Arrow table of the model's columns, unchecked: for rows made
    of values already checked (a cleared game's core row), where the frame and the
    model's checks would cost more than building them."""
    import pyarrow

    schema = arrow_schema(model)
    columns = [[row[i] for row in rows] for i in range(len(schema))]
    return pyarrow.Table.from_arrays(
        [pyarrow.array(column, type=f.type) for column, f in zip(columns, schema, strict=True)], schema=schema
    )


#: What an imported record's ``origin`` says of where it was read, not of the game.
PROVENANCE = frozenset(("file", "line"))


def content_hash(record: dict[str, Any]) -> str:
    """SHA-256 of a record as canonical JSON (sorted keys): same game, same hash.

    Where an imported game was read from (``origin.file``, and ``origin.line``
    for an OpenSpiel or TarotClub game a line of a file) is provenance, not
    content: a copy under another name, or in another order, is the same game
    (already present), not a game "with different content".

    >>> a = {"game_id": "g", "origin": {"format": "egn", "file": "a.egn"}}
    >>> content_hash(a) == content_hash({"game_id": "g", "origin": {"format": "egn", "file": "copy of a.egn"}})
    True
    >>> b = {"game_id": "h", "origin": {"format": "openspiel", "file": "a.jsonl", "line": 3}}
    >>> content_hash(b) == content_hash({"game_id": "h", "origin": {"format": "openspiel", "file": "b", "line": 1}})
    True
    """
    origin = record.get("origin")
    if isinstance(origin, dict) and not PROVENANCE.isdisjoint(origin):
        record = {**record, "origin": {k: v for k, v in origin.items() if k not in PROVENANCE}}
    return hashlib.sha256(orjson.dumps(record, option=orjson.OPT_SORT_KEYS)).hexdigest()


def seat_player(players: object, seat: int | None) -> str | None:
    """The name sitting in ``seat``, when the record names one."""
    if seat is None or not isinstance(players, list) or not 0 <= seat < len(players):
        return None
    name = players[seat]
    return name if isinstance(name, str) else None


@dataclass(slots=True)
class Batch:
    """Rows waiting to be written, per table (qualified names), and how many lines they account for."""

    run_id: int
    rows: Rows = field(default_factory=lambda: {t: [] for t in CORE_TABLES})
    #: Rows built elsewhere as Arrow tables (by worker processes), per table.
    arrow: dict[str, list[Any]] = field(default_factory=dict)
    #: ``games`` and ``quarantine`` rows among them.
    arrow_lines: int = 0

    def __len__(self) -> int:
        return len(self.rows["games"]) + len(self.rows["quarantine"]) + self.arrow_lines

    def add_arrow(self, table: str, rows: Any) -> None:
        """Rows of one table as an Arrow table of the model's columns (built by :meth:`frames` elsewhere)."""
        if rows.num_rows:
            self.arrow.setdefault(table, []).append(rows)
            if table in ("games", "quarantine"):
                self.arrow_lines += rows.num_rows

    @property
    def violations(self) -> int:
        return len(self.rows["violations"])

    def extend(self, rows: Rows) -> None:
        """Add rows built elsewhere (by another Batch, in a worker process)."""
        for table, more in rows.items():
            self.rows.setdefault(table, []).extend(more)

    def add_game(
        self,
        game: Game,
        record: dict[str, Any],
        replay: Replay,
        where: tuple[str, int | None],
        digest: str,
        violations: Sequence[Violation],
    ) -> None:
        """A replayed game: its ``games`` row, the rows of its game's own tables, and
        its ``violations`` (every one found reading and replaying it)."""
        tables = tables_of(game)
        game_id = replay.game_id
        assert game_id is not None
        facts = tables.facts(replay)
        self.add_game_row(game, record, game_id, where, digest, facts, len(replay.hands), len(violations))
        invalid = frozenset(v.hand for v in violations if v.hand is not None)
        for table, rows in tables.rows(record, replay, invalid).items():
            self.rows.setdefault(tables.qualified(table), []).extend(rows)
        self.add_violations(violations, record.get("players"))

    def add_game_row(
        self,
        game: Game,
        record: dict[str, Any],
        game_id: str,
        where: tuple[str, int | None],
        digest: str,
        facts: GameFacts,
        hands: int,
        violations: int,
    ) -> None:
        """A game's row of the core ``games`` table (the game's own rows apart)."""
        source, started = record.get("source"), record.get("started_at")
        known = tables_of(game).record_fields
        extra = {k: v for k, v in record.items() if k not in known}
        self.rows["games"].append(
            (
                game_id,
                self.run_id,
                where[0],
                where[1],
                digest,
                game.name,
                record.get("format"),
                source if isinstance(source, str) else None,
                started if isinstance(started, str) else None,
                facts.preset,
                orjson.dumps(facts.rules).decode(),
                list(record["players"]),
                hands,
                facts.scores,
                facts.complete,
                violations,
                orjson.dumps(extra).decode() if extra else None,
            )
        )

    def add_violations(self, violations: Sequence[Violation], players: object = None) -> None:
        """Violations, each charged to the player in its seat (when the record names players)."""
        self.rows["violations"].extend(
            (
                self.run_id,
                v.game_id,
                v.file,
                v.line,
                v.hand,
                v.trick,
                v.seat,
                seat_player(players, v.seat),
                v.path,
                v.code,
                v.message,
                v.rule,
            )
            for v in violations
        )

    def add_quarantine(
        self, where: tuple[str, str, int], game_id: str | None, reason: Violation, raw: bytes
    ) -> None:
        """A line that could not become a game: ``where`` is (file, file_sha256, line)."""
        file, sha, line = where
        text = raw.decode("utf-8", errors="replace")
        self.rows["quarantine"].append(
            (self.run_id, file, sha, line, game_id, reason.code, reason.message, raw, text)
        )

    def arrow_tables(self) -> dict[str, Any]:
        """The Arrow tables built elsewhere, one per table."""
        return {table: _concatenated(parts) for table, parts in self.arrow.items()}

    def frames(self, models: Mapping[str, type[pa.DataFrameModel]]) -> dict[str, pl.DataFrame]:
        """Every non-empty table's tuple rows as a typed polars frame (column lists, not
        row dicts); the Arrow tables built elsewhere are :meth:`arrow_tables`."""
        import polars as pl
        from tricklog_schemas.tables import polars_schema

        out: dict[str, pl.DataFrame] = {}
        for table, rows in self.rows.items():
            if not rows:
                continue
            schema = polars_schema(models[table])
            # one comprehension per column: ten times faster than zip(*rows) on 200k rows
            columns = [[row[i] for row in rows] for i in range(len(schema))]
            out[table] = pl.DataFrame(
                {
                    name: pl.Series(name, col, dtype=dtype)
                    for (name, dtype), col in zip(schema.items(), columns, strict=True)
                }
            )
        return out


def _concatenated(parts: list[Any]) -> Any:
    """One Arrow table of a batch's parts.  A worker sends its rows with their text
    dictionary-encoded (``parallel_load.compact``), this process builds a small
    file's rows plain: a batch holding both is given plain text throughout."""
    import pyarrow as pa

    if len({part.schema for part in parts}) > 1:
        parts = [_decoded(part) for part in parts]
    return pa.concat_tables(parts, promote_options="default")


def _decoded(table: Any) -> Any:
    """``table`` with its dictionary-encoded columns as their plain values."""
    import pyarrow as pa

    columns = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in table.columns]
    return pa.table(columns, names=table.column_names)
