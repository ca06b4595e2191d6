"""``tricklog analyze``: each game's deeper studies, written into the warehouse.

A game that has studies gives an :class:`Analysis` (``Game.analyze``): the DDL
of its tables (in its schema), a query listing the hands it has not analysed
yet, a query of the inputs of a batch of them, and a function turning a list
of those input rows into rows of its tables.  The core lists the hands once a
run (a warehouse of millions of hands takes a second or more to list: once a
batch, that grew with the square of its size), then runs the batches, each
one transaction:

* **resumable**: what a batch wrote is committed with it, and the list skips
  analysed hands, so a killed run loses at most the batches under way (two
  with workers) and the next run picks up where it stopped;
* **parallel**: with ``jobs > 1`` the work runs in worker processes started
  from a clean server process (``forkserver``) *before* the database is
  opened: no process is ever forked holding a DuckDB connection.  A batch is
  read and sent out before the one before it is written, so that the workers
  solve while this process reads and writes.

The core knows no game: it asks each installed game for its analysis.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.games import installed
from pipeline.warehouse.ddl import WarehouseError, connect, registered

#: Hands per batch (one transaction), and per task sent to a worker.
BATCH_HANDS = 2000
CHUNK_HANDS = 50

Rows = dict[str, list[tuple[Any, ...]]]


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's studies, as ``tricklog analyze`` runs them.

    ``todo`` is a query with the parameter ``$version`` giving the keys
    (``game_id``, ``hand_no``) of the hands not yet analysed, and a
    ``copy_key`` that copies of a hand share (Euchre's: the fingerprint; null
    when unknown); ``inputs`` a query giving the input rows of the hands of the
    temporary table ``analysis_batch`` (those keys).  ``work(inputs)`` (a
    module-level function: it is sent to worker processes) gives the rows of
    each of ``tables`` (unqualified names, in the game's schema), and must
    write for every input hand a row that ``todo`` then skips, even for a hand
    it cannot analyse.  Input rows, and the rows of ``tables``, start with the
    hand's ``game_id`` and ``hand_no``: what an older ``version`` wrote of a
    hand is deleted when the hand is analysed again (the first of ``tables``
    has a row for every hand analysed).  The rest of a hand's rows depend on
    the rest of its input row only: a hand whose input is that of a hand
    analysed just before it (a copy: the copies sharing a ``copy_key`` are
    listed together) gets that hand's rows under its own ids, unsolved again.
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
    #: Of the hands analysed, those whose input was an earlier hand's (copies):
    #: given its rows rather than solved again.
    copies: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        done = ", ".join(self._done(game, n) for game, n in self.hands.items()) or "no game to analyse"
        return f"{self.db}: analysed {done} in {self.batches} batches"

    def _done(self, game: str, hands: int) -> str:
        copies = self.copies.get(game, 0)
        return f"{hands} {game} hands" + (f" ({copies} of them copies of a hand solved)" if copies else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "hands": self.hands,
            "todo": self.todo,
            "copies": self.copies,
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
            con = connect(db, read_only=False, create=False)  # no warehouse: nothing to analyse
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
    """The batches of one game's hands, each written in one transaction.

    With workers, a batch is read and sent out before the one before it is
    written: the workers solve while this process reads and writes."""
    todo = summary.todo[game] = _list_todo(con, analysis, max_hands)
    summary.copies[game] = 0
    solved: Solved = {}  # the batch written last, by input
    waiting: _Batch | None = None  # a batch sent to the workers, not written yet
    known: set[Hashable] = set()  # the inputs of the batch before
    for first in range(0, todo, batch_hands):
        batch = _start(con, analysis, pool, first, batch_hands, known)
        known = set(batch.keys)
        if waiting is not None:
            solved = _finish(con, game, analysis, waiting, solved, summary, on_batch)
        waiting = batch
        if pool is None:  # solved already: nothing to overlap
            solved, waiting = _finish(con, game, analysis, batch, solved, summary, on_batch), None
    if waiting is not None:
        _finish(con, game, analysis, waiting, solved, summary, on_batch)


#: Each hand solved in a batch, by its input: its ids and its rows (ids included).
Solved = dict[Hashable, tuple[tuple[Any, Any], Rows]]


@dataclass(slots=True)
class _Batch:
    """A batch of hands read and sent to be solved: its input rows and their
    keys, the hands an older version wrote, and the distinct inputs it solves
    (an input of the batch before it is that batch's to solve)."""

    inputs: list[tuple[Any, ...]]
    keys: list[Hashable]
    again: list[tuple[Any, Any]]
    new: dict[Hashable, tuple[Any, ...]]
    results: Callable[[], list[Rows]]


def _start(
    con: Any, analysis: Analysis, pool: _Workers | None, first: int, size: int, known: set[Hashable]
) -> _Batch:
    """Read the batch of hands ``first + 1`` to ``first + size`` of the list and
    send its distinct inputs to be solved, but those ``known`` (the batch before's)."""
    con.execute(
        "create or replace temp table analysis_batch as select game_id, hand_no, again from analysis_todo "
        "where n > $first and n <= $last order by n",
        {"first": first, "last": first + size},
    )
    again = [
        (g, h) for g, h in con.execute("select game_id, hand_no from analysis_batch where again").fetchall()
    ]
    inputs = con.execute(analysis.inputs).fetchall()
    keys = [_input_key(row) for row in inputs]
    new = {key: row for key, row in zip(keys, inputs, strict=True) if key not in known}
    distinct = list(new.values())
    if pool is None:
        done = [analysis.work(distinct)]
        return _Batch(inputs, keys, again, new, lambda: done)
    return _Batch(inputs, keys, again, new, pool.submit(analysis.work, _chunks(distinct, CHUNK_HANDS)))


def _finish(
    con: Any,
    game: str,
    analysis: Analysis,
    batch: _Batch,
    before: Solved,
    summary: AnalyzeSummary,
    on_batch: Callable[[AnalyzeSummary], None] | None,
) -> Solved:
    """Write a batch's rows in one transaction once its work is done (a copy
    of a hand of the batch before takes that hand's rows, from ``before``);
    its hands by input, for the batch after it."""
    solved = _by_input(batch.results(), batch.new)
    solved.update((key, before[key]) for key in batch.keys if key not in solved)
    rows = _rows_of(batch.inputs, batch.keys, solved, analysis.tables)
    con.execute("begin transaction")
    try:
        _forget(con, analysis, batch.again)
        for table in analysis.tables:
            name = f"{analysis.schema}.{table}"
            _insert(con, name, rows[table])
            summary.rows[name] = summary.rows.get(name, 0) + len(rows[table])
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    summary.hands[game] += len(batch.inputs)
    summary.copies[game] += len(batch.inputs) - len(batch.new)
    summary.batches += 1
    if on_batch is not None:
        on_batch(summary)
    return solved


def _list_todo(con: Any, analysis: Analysis, max_hands: int | None) -> int:
    """The temporary table ``analysis_todo``: the keys of the hands to analyse,
    numbered (``n``, from 1), and whether an older version wrote rows of the
    hand (``again``); how many (at most ``max_hands``).

    The hands that have copies come first, the copies of each together, so
    that each is solved once; then the others in the order of their games,
    which keeps a batch's reads within a few of the tables' row groups (a batch
    of hands scattered over 4M reads 0.9 s rather than 0.16)."""
    limit = "" if max_hands is None else f"limit {int(max_hands)}"
    first = f"{analysis.schema}.{analysis.tables[0]}"
    con.execute(
        f"""create or replace temp table analysis_todo as
        with todo as (
            select *, copy_key is not null and count(*) over (partition by copy_key) > 1 as copied
            from ({analysis.todo})
        )
        select row_number() over (
                   order by copied desc, if(copied, copy_key, null), game_id, hand_no
               ) as n,
               game_id, hand_no,
               exists (select 1 from {first} as t where t.game_id = todo.game_id and t.hand_no = todo.hand_no)
                   as again
        from todo order by n {limit}""",
        {"version": analysis.version},
    )
    return int(con.execute("select count(*) from analysis_todo").fetchall()[0][0])


def _input_key(row: tuple[Any, ...]) -> Hashable:
    """A hand's input without its ids (``game_id``, ``hand_no``), hashable: its
    ``repr``, which tells apart every value a query gives (a float to the last
    bit, NaN from null, 1 from True) and is made in C (a nested tuple of it
    was 2.5 times slower to make).

    >>> _input_key(("g1", 0, "rules", ["JH", "9S"])) == _input_key(("g2", 3, "rules", ["JH", "9S"]))
    True
    >>> _input_key(("g1", 0, float("nan"))) == _input_key(("g1", 0, None))
    False
    """
    return repr(row[2:])


def _by_input(results: list[Rows], new: dict[Hashable, tuple[Any, ...]]) -> Solved:
    """The hands ``work`` solved, by input key: each hand's ids and its rows
    (each row starts with ``game_id`` and ``hand_no``)."""
    key_of = {(row[0], row[1]): key for key, row in new.items()}
    out: Solved = {key: ((row[0], row[1]), {}) for key, row in new.items()}
    for part in results:
        for table, rows in part.items():
            for row in rows:
                out[key_of[(row[0], row[1])]][1].setdefault(table, []).append(row)
    return out


def _rows_of(
    inputs: list[tuple[Any, ...]], keys: list[Hashable], solved: Solved, tables: Sequence[str]
) -> Rows:
    """Each input hand's rows: those of the hand solved with its input, under its own ids."""
    rows: Rows = {t: [] for t in tables}
    for row, key in zip(inputs, keys, strict=True):
        ids = (row[0], row[1])
        source, found = solved[key]
        for table, more in found.items():
            if source == ids:
                rows[table].extend(more)
            else:
                rows[table].extend(ids + r[2:] for r in more)
    return rows


def _forget(con: Any, analysis: Analysis, again: list[tuple[Any, Any]]) -> None:
    """Delete what an older version wrote of the hands ``again``, so that it is
    replaced (none, mostly: a delete reads the whole of its table)."""
    if not again:
        return
    import pyarrow as pa

    keys = pa.table({"game_id": [g for g, _ in again], "hand_no": [h for _, h in again]})
    with registered(con, "_analysis_again", keys):
        for table in analysis.tables:
            con.execute(
                f"""delete from {analysis.schema}.{table} as t where exists (
                    select 1 from _analysis_again as k
                    where k.game_id = t.game_id and k.hand_no = t.hand_no)"""
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
    columns = list(zip(*rows, strict=True))
    frame = pa.table({name: pa.array(col) for name, col in zip(names, columns, strict=True)})
    with registered(con, "_analysis_rows", frame):
        con.execute(f"insert into {table} select * from _analysis_rows")


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

    def submit(
        self, work: Callable[[list[tuple[Any, ...]]], Rows], chunks: Iterator[list[Any]]
    ) -> Callable[[], list[Rows]]:
        """Send ``work`` on each chunk to the workers; what it gives waits for the results."""
        with self._lost_worker():
            futures = [self._pool.submit(work, chunk) for chunk in chunks]

        def results() -> list[Rows]:
            with self._lost_worker():
                return [f.result() for f in futures]

        return results

    def _lost_worker(self) -> AbstractContextManager[None]:
        from pipeline.parallel import lost_worker_reported

        return lost_worker_reported(
            " (the batches of hands analysed are kept: it goes on from there)", pool=self._pool
        )

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["Analysis", "AnalyzeSummary", "analyses", "analyze", "study_reports"]
