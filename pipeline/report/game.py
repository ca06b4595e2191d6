"""What a game gives ``tricklog report``: its SQL files, page sections, charts,
its ``summary.json`` key and the sentences that open its sections.

The core runs its own reports (the data set, the audit) and then, for each
installed game, the game's :class:`GameReport`; a game's SQL files live in
its own package and are read with ``importlib.resources``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.report.inference import Comparison
    from pipeline.report.run import Table

Tables = dict[str, "Table"]


@dataclass(frozen=True, slots=True)
class Section:
    """One part of the page: a title, what it found, charts and tables."""

    key: str
    title: str
    charts: Sequence[tuple[str, str]] = ()
    tables: Sequence[tuple[str, str]] = ()


@dataclass(frozen=True, slots=True)
class GameReport:
    """A game's part of the report.

    ``reports`` name SQL files of ``package`` (each ``-- name:`` as its file),
    run in order; ``macro_files`` define the temporary table macros they build
    on, installed in every read-only session.  ``summary`` turns the tables into
    the game's ``summary.json`` object (under ``key``), ``charts`` draws the PNGs
    (chart name -> file name), ``findings`` gives each section's sentences and
    ``headline`` the one line the CLI prints.
    """

    key: str
    title: str
    package: str
    reports: tuple[str, ...]
    macro_files: tuple[str, ...]
    sections: tuple[Section, ...]
    summary: Callable[[Tables], dict[str, Any]]
    charts: Callable[[Tables, Path], dict[str, str]]
    findings: Callable[[dict[str, Any]], dict[str, list[str]]]
    headline: Callable[[dict[str, Any]], str]
    #: Columns of its tables kept in the CSVs but not shown on the page.
    hidden: frozenset[str] = frozenset()
    #: Queries worth trying on its tables: (what it shows, the query).
    examples: tuple[tuple[str, str], ...] = ()
    #: Tables computed from the SQL results in Python (shrinkage, splits by sample
    #: size): tables -> the new or replaced tables.
    derive: Callable[[Tables], Tables] | None = None
    #: The differences the game's findings claim, each from a test
    #: (``pipeline.report.inference``); the core adjusts them together (Holm)
    #: and puts them in the summary under ``tests`` before ``findings`` reads it.
    comparisons: Callable[[dict[str, Any]], list[Comparison]] | None = None
    #: Terms its page uses, with their definitions (shown in the page's glossary).
    glossary: tuple[tuple[str, str], ...] = ()
    #: Table macros of ``macro_files`` that several of its reports read, computed
    #: once per report run (:func:`pipeline.report.run.freeze`), in order.
    frozen: tuple[str, ...] = ()

    def sql_text(self, name: str) -> str:
        return files(self.package).joinpath(f"{name}.sql").read_text(encoding="utf-8")

    def macros(self) -> list[str]:
        """The texts that create the game's table macros."""
        return [self.sql_text(name) for name in self.macro_files]

    def has_games(self, summary: dict[str, Any]) -> bool:
        """The game's summary counts at least one game (its sections are worth showing)."""
        return bool(summary.get("games"))
