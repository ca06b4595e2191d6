"""Making one input item ready for the loader: its id and content hash, its
replay and, when it can be loaded, its rows.  Done by the loader itself or by
worker processes (``parallel_load``), the same function either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from pipeline.games import Game, Replay, fast_batches, game_for_record, installed, replay_item, tables_of
from pipeline.sources import SourceItem
from pipeline.violations import Violation
from pipeline.warehouse.tables import LINE, RECORD, Batch, GameFacts, Rows, content_hash

#: Game-level schema problems that keep a record out of ``games``.
REQUIRED_PATHS = frozenset({"format", "game_id", "players", "hands"})


@dataclass(slots=True)
class Replayed:
    """A game's replay as the loader needs it: its id, its violations, the problems
    that keep it out of ``games``, and its rows when it can go in."""

    game_id: str | None
    violations: list[Violation]
    blocking: list[Violation]
    #: The rows of the game (None: it cannot be loaded).
    rows: dict[str, list[tuple[Any, ...]]] | None
    #: Why a replayed game with an id still cannot be loaded (no warehouse tables for its game).
    unsupported: str | None = None


def replay_for_load(
    item: SourceItem,
    line: int,
    digest: str,
    run_id: int,
    replayed: tuple[Replay, list[Violation]] | None = None,
) -> Replayed:
    """Replay an item's game (unless ``replayed`` is its replay, done in bulk) and,
    when it can be loaded, build its rows."""
    assert item.record is not None
    item.line = line
    replay, violations = replayed if replayed is not None else replay_item(item)
    blocking = [v for v in violations if v.code == "schema" and v.hand is None and v.path in REQUIRED_PATHS]
    if blocking or replay.game_id is None:
        return Replayed(replay.game_id, violations, blocking, None)
    game = game_for_record(item.record)
    assert game is not None  # a record no game claims has a blocking schema violation on `format`
    if game.tables is None:
        return Replayed(
            replay.game_id, violations, blocking, None, f"the warehouse has no tables for {game.name}"
        )
    batch = Batch(run_id)
    batch.add_game(game, item.record, replay, (item.file, line), digest, violations)
    return Replayed(replay.game_id, violations, blocking, batch.rows)


@dataclass(slots=True)
class Prepared:
    """One input item made ready to route: its id and content hash, and its replay
    (done here, or in a worker process, or left for the router to do)."""

    item: SourceItem
    raw: bytes
    is_game: bool
    game_id: str | None = None
    digest: str | None = None
    replayed: Replayed | None = None


def prepare(item: SourceItem, raw: bytes) -> Prepared:
    record = item.record
    if record is None:
        return Prepared(item, raw, False)
    raw_id = record.get("game_id")
    game_id = raw_id if isinstance(raw_id, str) and raw_id else None
    try:
        digest = content_hash(record)
    except orjson.JSONEncodeError as e:  # a record no reader should have let through; never a traceback
        reason = Violation(
            "schema", f"the record cannot be stored: {e}", game_id, file=item.file, line=item.line
        )
        return Prepared(SourceItem(item.file, item.line, raw, None, [reason]), raw, False)
    return Prepared(item, raw, True, game_id, digest)


def misfit_message(error: Exception) -> str:
    """Why a game whose rows do not fit the warehouse's columns is quarantined."""
    text = str(error).strip()
    detail = text.splitlines()[0][:300] if text else type(error).__name__
    return f"the game's rows do not fit the warehouse's columns ({detail}); this line is quarantined"


@dataclass(slots=True)
class ClearedBatch:
    """The games among a batch of items that their game's fast path cleared and
    built the rows of as Arrow columns (``Game.fast_rows``)."""

    #: Item index -> what the core ``games`` row says of it and its number of hands.
    facts: dict[int, tuple[GameFacts, int]] = field(default_factory=dict)
    #: The indices of the items offered to a fast path, cleared or not.
    offered: set[int] = field(default_factory=set)
    #: The games' own tables (qualified names), each row tagged with its input line (:data:`LINE`).
    tables: list[tuple[str, Any]] = field(default_factory=list)


def clear_in_bulk(items: Sequence[SourceItem]) -> ClearedBatch:
    """Offer each game's items (those read without a violation) to its ``fast_rows``."""
    import pyarrow as pa

    out = ClearedBatch()
    for game, indices in fast_batches(items, "fast_rows"):
        assert game.fast_rows is not None and game.tables is not None
        out.offered.update(indices)
        rows = game.fast_rows([items[i].record for i in indices])  # type: ignore[misc]
        if rows is None:
            continue
        for r, facts, hands in zip(rows.records, rows.facts, rows.hands, strict=True):
            out.facts[indices[r]] = (facts, hands)
        out.tables += _tagged(game, rows.tables, pa.array([items[i].line for i in indices], pa.int64()))
    return out


@dataclass(slots=True)
class ClearedLineBatch:
    """The lines of a chunk a game's fast path cleared straight from their bytes
    (``Game.fast_line_rows``)."""

    #: Line number -> the game's core record, content hash, core facts and number of hands.
    found: dict[int, tuple[dict[str, Any], str, GameFacts, int]] = field(default_factory=dict)
    #: The games' own tables (qualified names), each row tagged with its input line (:data:`LINE`).
    tables: list[tuple[str, Any]] = field(default_factory=list)


def clear_lines_in_bulk(lines: Sequence[tuple[int, bytes]]) -> ClearedLineBatch:
    """Offer the numbered raw lines (not those cut at the length limit) to each
    game's ``fast_line_rows``, each line to the games that have not cleared it yet."""
    import pyarrow as pa

    out = ClearedLineBatch()
    for game in installed():
        if game.fast_line_rows is None or game.tables is None:
            continue
        todo = [(n, raw) for n, raw in lines if type(raw) is bytes and n not in out.found]
        cleared = game.fast_line_rows([raw for _, raw in todo]) if todo else None
        if cleared is None:
            continue
        rows = cleared.rows
        numbers = pa.array([n for n, _ in todo], pa.int64())
        for r, record, digest, facts, hands in zip(
            rows.records, cleared.records, cleared.digests, rows.facts, rows.hands, strict=True
        ):
            out.found[todo[r][0]] = (record, digest, facts, hands)
        out.tables += _tagged(game, rows.tables, numbers)
    return out


def _tagged(game: Game, tables: dict[str, Any], lines: Any) -> list[tuple[str, Any]]:
    """A game's columnar tables with each row's :data:`RECORD` (a position in the batch)
    turned into its input line (``lines``: the line of each position)."""
    import pyarrow as pa

    names = tables_of(game)
    out = []
    for table, data in tables.items():
        at = data.schema.get_field_index(RECORD)
        out.append(
            (
                names.qualified(table),
                data.set_column(at, pa.field(LINE, pa.int64()), lines.take(data.column(RECORD))),
            )
        )
    return out


def cleared_game_rows(item: SourceItem, digest: str, run_id: int, facts: GameFacts, hands: int) -> Rows:
    """The core ``games`` row of a game cleared in bulk (its own rows are in the
    :class:`ClearedBatch`; it has no violation)."""
    assert item.record is not None
    game = game_for_record(item.record)
    assert game is not None
    batch = Batch(run_id)
    batch.add_game_row(
        game, item.record, item.record["game_id"], (item.file, item.line), digest, facts, hands, 0
    )
    return batch.rows
