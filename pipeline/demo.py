"""``tricklog demo``: the whole pipeline on simulated games, with no argument and no network."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from pipeline.console import ValidateView
from pipeline.validate import validate

DEMO_SEED = 2026


def run_demo(workdir: Path, games: int) -> None:
    from pipeline.games.euchre.simulate import write_simulation

    console = Console(highlight=False)
    workdir.mkdir(parents=True, exist_ok=True)
    games_path = workdir / "games.jsonl"
    console.print(f"[bold]1. simulate[/] {games} games (mixed presets, 2% corrupted) -> {games_path}")
    write_simulation(games_path, games, seed=DEMO_SEED, preset="mixed", corrupt_rate=0.02)
    console.print(f"[bold]2. validate[/] {games_path}")
    view = ValidateView(violations_path=workdir / "violations.jsonl", quiet=False)
    with view:
        summary = validate([str(games_path)], on_game=view.on_game)
    view.print_summary(summary)
    console.print(f"All violations: {workdir / 'violations.jsonl'}")
