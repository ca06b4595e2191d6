"""``tricklog demo``: the whole pipeline on simulated games of every installed
game that has bots, with no argument and no network."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from pipeline.console import ValidateView
from pipeline.validate import validate

DEMO_SEED = 2026
#: The share of simulated games given one planted fault, for the audit to find.
DEMO_CORRUPTION = 0.02

#: What to try next on any warehouse: (what it shows, the query); each game's report adds its own.
EXAMPLE_QUERIES: tuple[tuple[str, str], ...] = (
    (
        "games by game and preset",
        "select game, preset, count(*) as games from games group by all order by all",
    ),
    ("violations by code", "select code, count(*) as n from violations group by code order by n desc"),
    (
        "violations by player at fault",
        "select player, count(*) as n from violations where player is not null group by player order by n desc",
    ),
)


def run_demo(workdir: Path, games: int) -> None:
    from pipeline.parallel import jobs_for
    from pipeline.simulate import simulators

    console = Console(highlight=False)
    workdir.mkdir(parents=True, exist_ok=True)
    paths = []
    console.print(f"[bold]1. simulate[/] {games} games of each game ({DEMO_CORRUPTION:.0%} corrupted)")
    for game in simulators():
        assert game.simulator is not None
        bots = game.simulator()
        path = workdir / f"{game.name}.jsonl"
        bots.write(path, games, seed=DEMO_SEED, preset=bots.demo_preset, corrupt_rate=DEMO_CORRUPTION)
        console.print(f"   {game.name} ({bots.demo_preset}) -> {path}")
        paths.append(str(path))
    console.print(f"[bold]2. validate[/] {' '.join(paths)}")
    view = ValidateView(paths, violations_path=workdir / "violations.jsonl", quiet=False)
    with view:
        summary = validate(paths, on_game=view.on_game, jobs=jobs_for(0))
    view.print_summary(summary)
    console.print(f"All violations: {workdir / 'violations.jsonl'}")
    load_demo(console, paths, workdir / "tricklog.duckdb")
    report_demo(console, workdir / "tricklog.duckdb", workdir / "report")


def example_queries() -> list[tuple[str, str]]:
    """The core's example queries, then each installed game's."""
    from pipeline.games import installed

    queries = list(EXAMPLE_QUERIES)
    for game in installed():
        if game.report is not None:
            queries += game.report().examples
    return queries


def load_demo(console: Console, paths: list[str], db: Path) -> None:
    """Load the demo's games into its warehouse and print queries to paste."""
    from pipeline.console import Progress
    from pipeline.parallel import jobs_for
    from pipeline.warehouse.api import load

    console.print(f"[bold]3. load[/] {' '.join(paths)} -> {db}")
    with Progress(paths, enabled=True, label="lines") as progress:
        s = load(paths, db, on_line=progress.advance, jobs=jobs_for(0))
    console.print(s.describe(), soft_wrap=True, markup=False)
    console.print("Try:")
    for what, query in example_queries():
        console.print(f"  # {what}", soft_wrap=True)
        console.print(f'  tricklog sql "{query}" --db {db}', soft_wrap=True, markup=False)


def report_demo(console: Console, db: Path, out: Path) -> Path:
    """Write the demo's report, print its headline figures, and last the path of report.html."""
    from pipeline.report.render import write_report

    console.print(f"[bold]4. report[/] {db} -> {out}")
    result = write_report(db, out)
    console.print(result.headline() + ".", soft_wrap=True)
    console.print(f"Report ({len(result.files)} files: summary.json, report.md, CSVs, charts) in {out}")
    console.print(str(result.html.resolve()), soft_wrap=True, markup=False)
    return result.html
