"""Running the report SQL files against a warehouse.

Each report is one SQL file, in the ``tricklog_reports`` package (the
``reports/`` folder: the data set and the audit, every game's) or in a game's
own package: a ``-- name:`` line, a one-line doc, then CTEs ending in
``select * from final``.  Some files define table macros the others build on:
``scoped_games()`` (the games in scope), ``all_hands()`` (every game's hands),
and each game's own (Euchre's ``euchre_counted_hands()``: the hands its
statistics count).  The filters are the session variables ``report_sources``
and ``report_players``, set from bound parameters (never formatted into the
text); unset, every game is in scope, so a report file also runs as it stands
on any read-only warehouse connection (the macros come with it), in
``tricklog sql`` too.

Result tables follow a naming habit that lets the intervals be added here, in
one place: a pair ``x_k`` / ``x_n`` becomes a rate (``x_rate``, ``x_lo``,
``x_hi``, Wilson), a triple ``x_mean`` / ``x_sd`` / ``x_count`` gets a normal
interval (``x_lo``, ``x_hi``).

>>> parse_header("-- name: demo\\n-- Counts the demo.\\nselect 1 as x")
('demo', 'Counts the demo.')
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.games import installed
from pipeline.players import PlayerMap
from pipeline.report.game import GameReport
from pipeline.report.stats import from_moments, rate
from pipeline.violations import TricklogError

if TYPE_CHECKING:
    import duckdb
    import polars as pl


#: The core's reports (every game's), in the order the page shows them; each
#: installed game's report adds its own (``pipeline.report.game``).
REPORTS = (
    "dataset",
    "dataset_files",
    "audit_violations_by_code",
    "audit_violations_by_file",
    "audit_violations_by_player",
    "audit_violations_list",
    "audit_quarantine",
    "audit_copies",
    "audit_aliases",
)
CORE_PACKAGE = "tricklog_reports"


class ReportError(TricklogError):
    """A report cannot be run: no warehouse, a missing table, a failing query."""


@dataclass(frozen=True, slots=True)
class SqlFile:
    """One report definition as read from its file."""

    name: str
    doc: str
    text: str


@dataclass(frozen=True, slots=True)
class Table:
    """One report's result, with its intervals added."""

    name: str
    doc: str
    frame: pl.DataFrame
    #: Columns kept in the CSV but not shown on the page.
    hidden: frozenset[str] = frozenset()

    def rows(self) -> list[dict[str, Any]]:
        return self.frame.to_dicts()

    def one(self) -> dict[str, Any]:
        """The single row of a one-row report."""
        rows = self.frame.to_dicts()
        if len(rows) != 1:
            raise ReportError(f"report {self.name} gave {len(rows)} rows, expected 1")
        return rows[0]


def parse_header(text: str) -> tuple[str, str]:
    """The ``-- name:`` and the one-line doc at the top of a SQL file."""
    lines = text.lstrip().splitlines()
    if len(lines) < 2 or not lines[0].startswith("-- name:") or not lines[1].startswith("--"):
        raise ReportError("a report file starts with '-- name: NAME' and a one-line '-- doc'")
    return lines[0].removeprefix("-- name:").strip(), lines[1].removeprefix("--").strip()


def sql_file(name: str, package: str = CORE_PACKAGE) -> SqlFile:
    """Read ``<name>.sql`` from a package: ``reports/`` (``tricklog_reports``) or a game's."""
    resource = files(package).joinpath(f"{name}.sql")
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise ReportError(f"no report definition {name}.sql in {package}") from e
    declared, doc = parse_header(text)
    if declared != name:
        raise ReportError(f"{name}.sql declares '-- name: {declared}'")
    return SqlFile(name, doc, text)


def connect(
    db: Path, sources: Sequence[str] = (), players: Sequence[str] = (), identity: PlayerMap | None = None
) -> duckdb.DuckDBPyConnection:
    """Open a warehouse read-only (the report macros come with it), add a players
    file's aliases and placeholders to the session, and set the filters."""
    from pipeline.warehouse.ddl import connect as open_warehouse
    from pipeline.warehouse.players import add_identity

    con = open_warehouse(db, read_only=True)
    try:
        if identity is not None:
            add_identity(con, identity)
        set_filters(con, sources, players)
    except BaseException:
        con.close()
        raise
    return con


def set_filters(con: duckdb.DuckDBPyConnection, sources: Sequence[str], players: Sequence[str]) -> None:
    """Scope the macros: keep games of these sources / with these players (empty: all)."""
    con.execute("set variable report_sources = $values::varchar[]", {"values": list(sources)})
    con.execute("set variable report_players = $values::varchar[]", {"values": list(players)})


#: The table macros every report builds on, in the order they build on each other.
SCOPE_MACROS = ("scoped_games", "counted_hands", "game_copies", "counted_games")


def freeze_scope(con: duckdb.DuckDBPyConnection) -> None:
    """Compute the games in scope and the counted hands once for a report's run.

    A macro is expanded in every query that calls it, and every report calls
    these: thirty report files of a warehouse of 4.2M hands spent 4 to 5 s each
    ranking the same copies.  Each becomes a temporary table (the file is never
    touched) that its macro then reads; call it after the filters are set.
    """
    freeze(con, SCOPE_MACROS)


def freeze(con: duckdb.DuckDBPyConnection, macros: Sequence[str]) -> None:
    """Make each table macro of ``macros`` (in order) a temporary table that the
    macro then reads: computed once, however many reports call it."""
    for name in macros:
        with _query_errors(con, f"the report's {name}()"):
            con.execute(f"create or replace temp table frozen_{name} as select * from {name}()")
        con.execute(f"create or replace temp macro {name}() as table select * from frozen_{name}")


@contextmanager
def _query_errors(con: duckdb.DuckDBPyConnection, what: str) -> Iterator[None]:
    """A query's error as a :class:`ReportError` saying ``what`` failed, or as the
    data set part that cannot be read (:func:`~pipeline.warehouse.parts.damaged_part`)."""
    import duckdb

    from pipeline.warehouse.parts import damaged_part

    try:
        yield
    except duckdb.Error as e:
        raise damaged_part(con, e) or ReportError(f"{what} failed: {e}") from e


def run_report(
    con: duckdb.DuckDBPyConnection,
    name: str,
    package: str = CORE_PACKAGE,
    hidden: frozenset[str] = frozenset(),
) -> Table:
    """Run one report file on a connection from :func:`connect`, and add its intervals."""
    sql = sql_file(name, package)
    with _query_errors(con, f"report {name}"):
        frame = con.sql(sql.text).pl()
    return Table(name, sql.doc, add_intervals(frame), hidden)


def game_reports(con: duckdb.DuckDBPyConnection) -> list[GameReport]:
    """The reports of the installed games whose tables the warehouse has."""
    schemas = {r[0] for r in con.execute("select schema_name from duckdb_schemas()").fetchall()}
    from pipeline.analyze import study_reports

    reports = [g.report() for g in installed() if g.report is not None and g.name in schemas]
    return reports + study_reports(con)


@contextmanager
def report_session(
    db: Path, sources: Sequence[str] = (), players: Sequence[str] = (), identity: PlayerMap | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """One report run's connection (:func:`connect`), its scope computed once
    (:func:`freeze_scope`): the reports and the hand viewer read the same games,
    under the same names."""
    con = connect(db, sources, players, identity)
    try:
        freeze_scope(con)
        yield con
    finally:
        con.close()


def run_reports(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, Table], list[GameReport]]:
    """Every report of :data:`REPORTS`, then each game's, on a :func:`report_session`
    (each game's ``frozen`` macros computed once, for its reports and its viewer)."""
    tables = {name: run_report(con, name) for name in REPORTS}
    reports = game_reports(con)
    for report in reports:
        freeze(con, report.frozen)
        tables.update({name: run_report(con, name, report.package, report.hidden) for name in report.reports})
        if report.derive is not None:
            tables.update(report.derive(tables))
    return tables, reports


def add_intervals(frame: pl.DataFrame) -> pl.DataFrame:
    """Add rate and mean intervals after the ``x_k``/``x_n`` and ``x_mean``/``x_sd``/``x_count`` columns."""
    import polars as pl

    columns = set(frame.columns)
    for stem in [c[:-2] for c in frame.columns if c.endswith("_k") and f"{c[:-2]}_n" in columns]:
        rates = [rate(k, n) for k, n in zip(frame[f"{stem}_k"], frame[f"{stem}_n"], strict=True)]
        frame = frame.with_columns(
            pl.Series(f"{stem}_rate", [r.value for r in rates], dtype=pl.Float64),
            pl.Series(f"{stem}_lo", [r.ci95[0] for r in rates], dtype=pl.Float64),
            pl.Series(f"{stem}_hi", [r.ci95[1] for r in rates], dtype=pl.Float64),
        )
    for stem in [c[:-5] for c in frame.columns if c.endswith("_mean") and f"{c[:-5]}_count" in columns]:
        means = [
            from_moments(n, m, s)
            for n, m, s in zip(
                frame[f"{stem}_count"], frame[f"{stem}_mean"], frame[f"{stem}_sd"], strict=True
            )
        ]
        frame = frame.with_columns(
            pl.Series(f"{stem}_lo", [m.ci95[0] for m in means], dtype=pl.Float64),
            pl.Series(f"{stem}_hi", [m.ci95[1] for m in means], dtype=pl.Float64),
        )
    return frame
