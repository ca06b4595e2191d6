"""Tarot's charts: contracts made by contract, by bouts and by the taker's
position, and the distribution of the taker's margin.  Each takes the report
tables and writes one PNG, returning its file name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pipeline.report.charts import BLUE, GREEN, ORANGE, RED, figure, rate_bars, save
from pipeline.report.run import Table

LABELS = {"prise": "prise", "garde": "garde", "garde_sans": "garde\nsans", "garde_contre": "garde\ncontre"}


def success_chart(tables: dict[str, Table], out: Path) -> str:
    """Contracts made, by contract, by bouts and by the taker's position (Wilson intervals)."""
    fig, (left, middle, right) = figure(13, 4.4, ncols=3)
    contracts = tables["tarot_by_contract"].rows()
    rate_bars(left, [LABELS[r["contract"]] for r in contracts], contracts, "made", BLUE)
    left.set_title("By contract")
    left.set_ylabel("contracts made (taker reached the target)")
    bouts = tables["tarot_by_bouts"].rows()
    rate_bars(middle, [f"{r['bouts']} bouts\n(target {r['target']})" for r in bouts], bouts, "made", ORANGE)
    middle.set_title("By the bouts the taker ended with")
    positions = tables["tarot_by_taker_position"].rows()
    rate_bars(right, [r["taker_position"] for r in positions], positions, "made", GREEN)
    right.set_title("By where the taker sat from the dealer")
    top = max(ax.get_ylim()[1] for ax in (left, middle, right))
    for ax in (left, middle, right):
        ax.set_ylim(0, top)
    fig.suptitle("How often does the taker make the contract?  (bars: 95% Wilson intervals)", fontsize=11)
    return save(fig, out / "tarot_success.png")


def margin_chart(tables: dict[str, Table], out: Path) -> str:
    """The taker's margin over the target, hands made and down stacked, in 5-point bins."""
    fig, (ax,) = figure(10, 4.2)
    rows = tables["tarot_margin"].rows()
    xs = [r["margin_from"] + 2.5 for r in rows]
    made = [r["made"] for r in rows]
    down = [r["down"] for r in rows]
    ax.bar(xs, down, width=4.6, color=RED, label="down (short of the target)")
    ax.bar(xs, made, width=4.6, bottom=down, color=GREEN, label="made")
    ax.axvline(0, color="#333333", linewidth=1)
    ax.set_xlabel("taker's card points minus the target (5-point bins)")
    ax.set_ylabel("counted hands")
    ax.set_title(f"The taker's margin over {sum(made) + sum(down):,} counted hands")
    ax.legend(frameon=False, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    return save(fig, out / "tarot_margin.png")


#: Chart name -> drawing function, in the order of the page.
CHARTS: dict[str, Callable[[dict[str, Table], Path], str]] = {
    "tarot_success": success_chart,
    "tarot_margin": margin_chart,
}


def draw_all(tables: dict[str, Table], out: Path) -> dict[str, str]:
    """Draw every Tarot chart into ``out``; chart name -> PNG file name."""
    return {name: draw(tables, out) for name, draw in CHARTS.items()}
