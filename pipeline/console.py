"""What the commands show a person: rich summaries and progress on stderr.

Summaries go to stdout; progress bars go to stderr and only when it is a
terminal, so pipes and ``--json`` output stay clean.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipeline.validate import CheckedGame, ValidationSummary
from pipeline.violations import CODES, TricklogError, Violation

SHOWN_VIOLATIONS = 20


class ValidateView:
    """Streams violations to a file, keeps the first few to show, draws progress."""

    def __init__(self, violations_path: Path | None, quiet: bool) -> None:
        self.violations_path = violations_path
        self.quiet = quiet
        self.first: list[Violation] = []
        self._out: IO[bytes] | None = None
        self._progress = Progress(enabled=not quiet)

    def __enter__(self) -> ValidateView:
        if self.violations_path is not None:
            try:
                self._out = self.violations_path.open("wb")
            except OSError as e:
                raise TricklogError(f"{self.violations_path}: cannot write: {e.strerror or e}") from e
        self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()
        if self._out is not None:
            self._out.close()

    def on_game(self, game: CheckedGame) -> None:
        self._progress.advance()
        if not game.violations:
            return
        if self._out is not None:
            self._out.write(b"".join(orjson.dumps(v.to_json()) + b"\n" for v in game.violations))
        if len(self.first) < SHOWN_VIOLATIONS:
            self.first.extend(game.violations[: SHOWN_VIOLATIONS - len(self.first)])

    def print_summary(self, summary: ValidationSummary) -> None:
        console = Console(highlight=False)
        clean = summary.violations == 0
        verdict = "[green]clean[/]" if clean else f"[red]{summary.violations} violations[/]"
        console.print(
            f"[bold]{summary.games}[/] games, {summary.hands} hands in {summary.files} file(s): {verdict}"
            + ("" if clean else f" in {summary.games_with_violations} games")
        )
        if clean:
            return
        table = Table("code", "count", "meaning", title="Violations by code", title_justify="left")
        for code, count in summary.by_code.most_common():
            table.add_row(code, str(count), CODES.get(code, ""))
        console.print(table)
        console.print(f"First {len(self.first)}:")
        for v in self.first:
            where = f"{v.file}:{v.line}" if v.line is not None else (v.file or "")
            game = f" {v.game_id}" if v.game_id else ""
            line = f"  {escape(where + game)} [bold]{v.code}[/] {escape(v.path)}: {escape(v.message)}"
            console.print(line, soft_wrap=True)
        if self.violations_path is None and summary.violations > len(self.first):
            console.print("  ... (write them all with --violations FILE)")


class Progress:
    """A rich spinner-with-count on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool, label: str = "games") -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.label = label
        self._progress: Any = None
        self._task: Any = None

    def start(self) -> None:
        if not self.enabled:
            return
        from rich.progress import Progress as RichProgress
        from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.completed:,} " + self.label),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=None)

    def advance(self, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
