"""``tricklog analyze``: each game's deeper studies, written into the warehouse.

A game that has studies gives an :class:`Analysis` (``Game.analyze``): the DDL
of its tables (in its schema), a query listing the hands it has not analysed
yet, a query of the inputs of a batch of them, and a function turning a list
of those input rows into rows of its tables.  The core lists the hands once a
run (a warehouse of millions of hands takes a second or more to list: once a
batch, that grew with the square of its size), then runs the batches, each
one transaction:

* **resumable**: what a batch wrote is committed with it, and the list skips
  analysed hands, so a killed run loses at most the batch under way and the
  next run picks up where it stopped;
* **parallel**: with ``jobs > 1`` the work runs in worker processes started
  from a clean server process (``forkserver``) *before* the database is
  opened: no process is ever forked holding a DuckDB connection.

The core knows no game: it asks each installed game for its analysis.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.games import installed
from pipeline.warehouse.ddl import WarehouseError, connect

#: Hands per batch (one transaction), and per task sent to a worker.
BATCH_HANDS = 2000
CHUNK_HANDS = 50

Rows = dict[str, list[tuple[Any, ...]]]


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's studies, as ``tricklog analyze`` runs them.

    ``todo`` is a query with the parameter ``$version`` giving the keys
    (``game_id``, ``hand_no``) of the hands not yet analysed; ``inputs`` a query
    giving the input rows of the hands of the temporary table ``analysis_batch``
    (those keys), in their order.  ``work(inputs)`` (a module-level function: it
    is sent to worker processes) gives the rows of each of ``tables``
    (unqualified names, in the game's schema), and must write for every input
    hand a row that ``todo`` then skips, even for a hand it cannot analyse.
    Input rows start with the hand's ``game_id`` and ``hand_no``, columns of
    every one of ``tables``: what an older ``version`` wrote of a hand is
    deleted when the hand is analysed again.
    """

    schema: str
    ddl: str
    todo: str
    inputs: str
    work: Callable[[list[tuple[Any, ...]]], Rows]
    tables: tuple[str, ...]
    version: int = 1
    #: The report's part built on these tables (a ``GameReport``), shown once they exist.
    report: Callable[[], Any] | None = None


@dataclass(slots=True)
class AnalyzeSummary:
    """What one run did, per game: hands analysed, batches committed."""

    db: str
    hands: dict[str, int] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    batches: int = 0
    #: The hands of each game this run set out to analyse.
    todo: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        done = ", ".join(f"{n} {game} hands" for game, n in self.hands.items()) or "no game to analyse"
        return f"{self.db}: analysed {done} in {self.batches} batches"

    def to_json(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "hands": self.hands,
            "todo": self.todo,
            "rows": self.rows,
            "batches": self.batches,
        }


def analyses() -> list[tuple[str, Analysis]]:
    """Every installed game's analysis, by game name."""
    return [(g.name, g.analyze()) for g in installed() if g.analyze is not None]


def study_reports(con: Any) -> list[Any]:
    """The report parts of the studies whose tables the warehouse has (``analyze`` was run)."""
    out = []
    for _, analysis in analyses():
        if analysis.report is None:
            continue
        found = con.execute(
            "select count(*) from duckdb_tables() where schema_name = ? and table_name = ?",
            [analysis.schema, analysis.tables[0]],
        ).fetchall()
        if found[0][0]:
            out.append(analysis.report())
    return out


def analyze(
    db: str | Path,
    *,
    jobs: int = 1,
    batch_hands: int = BATCH_HANDS,
    max_hands: int | None = None,
    on_batch: Callable[[AnalyzeSummary], None] | None = None,
) -> AnalyzeSummary:
    """Analyse every hand of the warehouse at ``db`` not analysed yet (at most
    ``max_hands`` of each game), on ``jobs`` processes."""
    from pipeline.warehouse.load import database_errors

    if not Path(db).exists():
        raise WarehouseError(f"{db}: no such database (create it with `tricklog load ... --db {db}`)")
    summary = AnalyzeSummary(str(db))
    studies = analyses()
    pool: _Workers | None = _Workers(jobs) if jobs > 1 else None  # started before the database opens
    try:
        with database_errors(db, "analyze"):
            con = connect(db, read_only=False)
            try:
                for game, analysis in studies:
                    summary.hands[game] = 0
                    if not con.execute(
                        "select count(*) from duckdb_schemas() where schema_name = ?", [analysis.schema]
                    ).fetchall()[0][0]:
                        continue
                    con.execute(analysis.ddl)
                    _run(con, game, analysis, pool, summary, batch_hands, max_hands, on_batch)
            finally:
                con.close()
    finally:
        if pool is not None:
            pool.close()
    return summary


def _run(
    con: Any,
    game: str,
    analysis: Analysis,
    pool: _Workers | None,
    summary: AnalyzeSummary,
    batch_hands: int,
    max_hands: int | None,
    on_batch: Callable[[AnalyzeSummary], None] | None,
) -> None:
    todo = summary.todo[game] = _list_todo(con, analysis, max_hands)
    for first in range(0, todo, batch_hands):
        con.execute(
            "create or replace temp table analysis_batch as select game_id, hand_no from analysis_todo "
            "where n > $first and n <= $last order by n",
            {"first": first, "last": first + batch_hands},
        )
        inputs = con.execute(analysis.inputs).fetchall()
        if pool is None:
            results = [analysis.work(inputs)]
        else:
            results = pool.map(analysis.work, _chunks(inputs, CHUNK_HANDS))
        rows: Rows = {t: [] for t in analysis.tables}
        for part in results:
            for table, more in part.items():
                rows[table].extend(more)
        con.execute("begin transaction")
        try:
            _forget(con, analysis, inputs)
            for table in analysis.tables:
                _insert(con, f"{analysis.schema}.{table}", rows[table])
                summary.rows[f"{analysis.schema}.{table}"] = summary.rows.get(
                    f"{analysis.schema}.{table}", 0
                ) + len(rows[table])
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        summary.hands[game] += len(inputs)
        summary.batches += 1
        if on_batch is not None:
            on_batch(summary)


def _list_todo(con: Any, analysis: Analysis, max_hands: int | None) -> int:
    """The temporary table ``analysis_todo``: the keys of the hands to analyse,
    numbered (``n``, from 1) in their order; how many (at most ``max_hands``)."""
    limit = "" if max_hands is None else f"limit {int(max_hands)}"
    con.execute(
        "create or replace temp table analysis_todo as "
        "select row_number() over (order by game_id, hand_no) as n, game_id, hand_no "
        f"from ({analysis.todo}) order by n {limit}",
        {"version": analysis.version},
    )
    return int(con.execute("select count(*) from analysis_todo").fetchall()[0][0])


def _forget(con: Any, analysis: Analysis, inputs: list[tuple[Any, ...]]) -> None:
    """Delete what an older version wrote of the batch's hands (each input row
    starts with the hand's ``game_id`` and ``hand_no``), so that it is replaced."""
    keys = {"g": [row[0] for row in inputs], "h": [row[1] for row in inputs]}
    for table in analysis.tables:
        con.execute(
            f"""delete from {analysis.schema}.{table} as t where exists (
                select 1 from (select unnest($g) as game_id, unnest($h) as hand_no) as k
                where k.game_id = t.game_id and k.hand_no = t.hand_no)""",
            keys,
        )


def _chunks(rows: Sequence[tuple[Any, ...]], size: int) -> Iterator[list[tuple[Any, ...]]]:
    for start in range(0, len(rows), size):
        yield list(rows[start : start + size])


def _insert(con: Any, table: str, rows: list[tuple[Any, ...]]) -> None:
    """Rows into a table, by position, through Arrow (DuckDB casts each column)."""
    if not rows:
        return
    import pyarrow as pa

    names = [r[0] for r in con.execute(f"select * from {table} limit 0").description]
    columns = [[row[i] for row in rows] for i in range(len(names))]
    frame = pa.table({name: pa.array(col) for name, col in zip(names, columns, strict=True)})
    con.register("_analysis_rows", frame)
    try:
        con.execute(f"insert into {table} select * from _analysis_rows")
    finally:
        con.unregister("_analysis_rows")


class _Workers:
    """Worker processes from a clean server process, kept for the whole run; one
    that ends before its work is done is a :class:`~pipeline.parallel.WorkerLost`."""

    def __init__(self, jobs: int) -> None:
        from concurrent.futures import ProcessPoolExecutor

        from pipeline.forkserver import worker_context
        from pipeline.parallel import leave_interrupts_to_the_caller

        self._pool = ProcessPoolExecutor(
            jobs,
            worker_context(fresh=True),
            initializer=leave_interrupts_to_the_caller,
            initargs=(os.getpid(),),
        )

    def map(self, work: Callable[[list[tuple[Any, ...]]], Rows], chunks: Iterator[list[Any]]) -> list[Rows]:
        from pipeline.parallel import lost_worker_reported

        with lost_worker_reported(
            " (the batches of hands analysed are kept: it goes on from there)", pool=self._pool
        ):
            return list(self._pool.map(work, chunks))

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["Analysis", "AnalyzeSummary", "analyses", "analyze", "study_reports"]
