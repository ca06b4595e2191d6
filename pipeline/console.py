"""What the commands show a person: rich summaries and progress on stderr.

Summaries go to stdout; progress bars go to stderr and only when it is a
terminal, so pipes and ``--json`` output stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipeline.atomic import atomic_file, refuse_overwriting
from pipeline.games import all_codes
from pipeline.sources import ByteMeter, expand_inputs, input_size, metered
from pipeline.streams import terminal_text
from pipeline.validate import CheckedGame, ValidationSummary
from pipeline.violations import Violation

SHOWN_VIOLATIONS = 20


class ValidateView:
    """Streams violations to a file, keeps the first few to show, draws progress."""

    def __init__(
        self, paths: Sequence[str], violations_path: Path | None, quiet: bool, fmt: str = "auto"
    ) -> None:
        self.paths = paths
        self.fmt = fmt
        self.violations_path = violations_path
        self.quiet = quiet
        self.first: list[Violation] = []
        self._out: IO[bytes] | None = None
        self._progress = Progress(paths, enabled=not quiet, fmt=fmt)

    def __enter__(self) -> ValidateView:
        if self.violations_path is not None:
            refuse_overwriting(self.violations_path, expand_inputs(self.paths, self.fmt))
            # written aside and renamed into place at the end: never half a file
            self._file = atomic_file(self.violations_path)
            self._out = self._file.__enter__()
        self._progress.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.__exit__()
        if self._out is not None:
            self._file.__exit__(kind, value, tb)

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
        _print_limits(console, summary)
        if clean:
            return
        table = Table("code", "count", "meaning", title="Violations by code", title_justify="left")
        codes = all_codes()
        for code, count in summary.by_code.most_common():
            table.add_row(escape(code), str(count), escape(codes.get(code, "")))
        console.print(table)
        console.print(f"First {len(self.first)}:")
        for v in self.first:
            where = f"{v.file}:{v.line}" if v.line is not None else (v.file or "")
            game = f" {v.game_id}" if v.game_id else ""
            line = f"  {_shown(where + game)} [bold]{v.code}[/] {_shown(v.path)}: {_shown(v.message)}"
            console.print(line, soft_wrap=True)
        if self.violations_path is None and summary.violations > len(self.first):
            console.print("  ... (write them all with --violations FILE)")


def _shown(text: str) -> str:
    """Text from the logs in a line of rich markup, as written (no markup, no terminal control)."""
    return escape(terminal_text(text))


def _print_limits(console: Console, summary: ValidationSummary) -> None:
    """What could not be checked, and what the records carry that the spec does not name."""
    if summary.hands_without_full_deal:
        console.print(
            f"[yellow]note[/] {summary.hands_without_full_deal} hands have no full deal: their holdings were "
            "inferred from the play, so a renege with a card never played, the deck count and a farmer's "
            "hand could not be checked there."
        )
    if summary.unknown_fields:
        fields = ", ".join(f"{_shown(name)} ({n})" for name, n in summary.unknown_fields.most_common())
        console.print(f"[yellow]note[/] fields the record spec does not name (kept when loaded): {fields}")


class Progress:
    """A rich progress bar on stderr over the bytes of the inputs (a count for stdin).

    Shown only when stderr is a terminal; counts ``label`` items as they come::

        with Progress(paths, enabled=not as_json, label="lines") as progress:
            load(paths, db, on_line=progress.advance)

    The bytes done are those this process reads, or when the inputs are read
    elsewhere (``metered=False``: by a cluster's workers), those given to
    :meth:`advance_by`.
    """

    def __init__(
        self,
        paths: Sequence[str],
        enabled: bool,
        label: str = "games",
        *,
        metered: bool = True,
        fmt: str = "auto",
    ) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.label = label
        self.metered = metered
        self.total = input_size(paths, fmt)
        self.meter = ByteMeter()
        self.count = 0
        self._stack = ExitStack()
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.enabled:
            if self.metered:
                self._stack.enter_context(metered(self.meter))
            self._progress = self._stack.enter_context(self._rich_progress())
            self._task = self._progress.add_task(self.label, total=self.total, count=0)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        self._progress = None

    def _rich_progress(self) -> Any:
        from rich.progress import BarColumn, DownloadColumn, SpinnerColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        columns: list[Any] = [SpinnerColumn(), TextColumn("{task.fields[count]:,} " + self.label)]
        if self.total is not None:
            columns += [BarColumn(), DownloadColumn(), TimeRemainingColumn()]
        return RichProgress(*columns, console=Console(stderr=True), transient=True)

    def advance(self) -> None:
        self.count += 1
        if self._progress is not None and self.count % 256 == 0:
            self._progress.update(self._task, completed=self.meter.done, count=self.count)

    def advance_by(self, items: int, nbytes: int) -> None:
        """``items`` more done, which were ``nbytes`` of the inputs."""
        self.count += items
        self.meter.done += nbytes
        if self._progress is not None:
            self._progress.update(self._task, completed=self.meter.done, count=self.count)
