"""``tricklog demo``: the whole pipeline on simulated games, with no argument and no network."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from pipeline.console import ValidateView
from pipeline.validate import validate

DEMO_SEED = 2026


def run_demo(workdir: Path, games: int) -> None:
    from pipeline.games.euchre.simulate import write_simulation
    from pipeline.parallel import jobs_for

    console = Console(highlight=False)
    workdir.mkdir(parents=True, exist_ok=True)
    games_path = workdir / "games.jsonl"
    console.print(f"[bold]1. simulate[/] {games} games (mixed presets, 2% corrupted) -> {games_path}")
    write_simulation(games_path, games, seed=DEMO_SEED, preset="mixed", corrupt_rate=0.02)
    console.print(f"[bold]2. validate[/] {games_path}")
    view = ValidateView([str(games_path)], violations_path=workdir / "violations.jsonl", quiet=False)
    with view:
        summary = validate([str(games_path)], on_game=view.on_game, jobs=jobs_for(0))
    view.print_summary(summary)
    console.print(f"All violations: {workdir / 'violations.jsonl'}")
    load_demo(console, games_path, workdir / "tricklog.duckdb")
    report_demo(console, workdir / "tricklog.duckdb", workdir / "report")


#: What to try next: (what it shows, the query).
EXAMPLE_QUERIES: tuple[tuple[str, str], ...] = (
    (
        "euchre rate by seat",
        "select maker_seat, count(*) as hands_made, "
        "round(avg(case when maker_tricks < 3 then 1 else 0 end), 3) as euchre_rate "
        "from hands where valid and complete and thrown_in is null and maker_seat is not null "
        "group by maker_seat order by maker_seat",
    ),
    ("violations by code", "select code, count(*) as n from violations group by code order by n desc"),
    (
        "going alone, by preset",
        "select g.preset, count(*) as alone_hands, "
        "round(avg(case when h.maker_tricks = 5 then 1 else 0 end), 3) as march_rate "
        "from hands h join games g using (game_id) where h.valid and h.complete and h.alone "
        "group by g.preset order by g.preset",
    ),
)


def load_demo(console: Console, games_path: Path, db: Path) -> None:
    """Load the demo's games into its warehouse and print queries to paste."""
    from pipeline.console import Progress
    from pipeline.parallel import jobs_for
    from pipeline.warehouse.api import load

    console.print(f"[bold]3. load[/] {games_path} -> {db}")
    with Progress([str(games_path)], enabled=True, label="lines") as progress:
        s = load([str(games_path)], db, on_line=progress.advance, jobs=jobs_for(0))
    console.print(s.describe(), soft_wrap=True, markup=False)
    console.print("Try:")
    for what, query in EXAMPLE_QUERIES:
        console.print(f"  # {what}", soft_wrap=True)
        console.print(f'  tricklog sql "{query}" --db {db}', soft_wrap=True, markup=False)


def report_demo(console: Console, db: Path, out: Path) -> Path:
    """Write the demo's report, print its headline figures, and last the path of report.html."""
    from pipeline.report.render import write_report

    console.print(f"[bold]4. report[/] {db} -> {out}")
    result = write_report(db, out)
    e = result.summary["euchre"]
    rate, alone, deal = e["euchre_rate"], e["alone"], e["dealer_advantage"]
    if rate["n"]:
        lo, hi = rate["ci95"]
        console.print(
            f"{e['hands']:,} hands of {e['games']:,} games counted: makers euchred in {rate['rate']:.1%} "
            f"(95% CI {lo:.1%} to {hi:.1%}); {alone['attempts']:,} lone attempts; "
            f"dealer's edge {deal['edge']:+.3f} points per hand.",
            soft_wrap=True,
        )
    console.print(f"Report ({len(result.files)} files: summary.json, report.md, CSVs, charts) in {out}")
    console.print(str(result.html.resolve()), soft_wrap=True, markup=False)
    return result.html
