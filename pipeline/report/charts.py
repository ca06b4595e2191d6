"""Drawing the report's charts with matplotlib (Agg backend, imported on use):
the figure, the saving, and the bars every game's charts use.

Every chart shows its counts and draws its 95% intervals; each game's chart
functions take the report tables and write one PNG, returning its file name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

BLUE, ORANGE, GREY, RED, GREEN = "#3a6ea5", "#e08a2c", "#8c8c8c", "#c0392b", "#2e8b57"
#: One colour for "euchred" (a failed contract) in every chart, one for a contract made.
EUCHRED, MADE = RED, GREEN
DPI = 110


def figure(
    width: float, height: float, ncols: int = 1, ratios: Sequence[float] | None = None
) -> tuple[Figure, list[Axes]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.spines.top": False, "axes.spines.right": False})
    grid = {"width_ratios": list(ratios)} if ratios else None
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), dpi=DPI, squeeze=False, gridspec_kw=grid)
    return fig, list(axes[0])


def save(fig: Figure, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path.name


def rate_bars(
    ax: Axes, labels: Sequence[str], rows: Sequence[dict[str, Any]], stem: str, color: str | Sequence[str]
) -> None:
    """Bars of rates with Wilson interval whiskers and ``rate, k/n`` written above each
    whisker's cap.  A bar on fewer than MIN_N trials is pale and hatched, labelled
    "too small"; with no trial, no bar and no whisker."""
    from pipeline.report.inference import MIN_N, small

    xs = list(range(len(labels)))
    colors = [color] * len(rows) if isinstance(color, str) else list(color)
    values = [r[f"{stem}_rate"] or 0.0 for r in rows]
    tops = [r[f"{stem}_hi"] if r[f"{stem}_hi"] is not None else v for v, r in zip(values, rows, strict=True)]
    low = [max(0.0, v - (r[f"{stem}_lo"] or v)) for v, r in zip(values, rows, strict=True)]
    high = [max(0.0, t - v) for v, t in zip(values, tops, strict=True)]
    ceiling = min(1.0, max(tops, default=0.0) + 0.05) * 1.3 or 0.1
    for x, v, lo, hi, c, r in zip(xs, values, low, high, colors, rows, strict=True):
        n = r[f"{stem}_n"]
        if not n:
            continue
        few = small(n)
        ax.bar(
            [x],
            [v],
            color=c,
            width=0.6,
            alpha=0.35 if few else 1.0,
            hatch="//" if few else None,
            edgecolor=c,
            yerr=[[lo], [hi]],
            capsize=5,
            ecolor="#333333",
        )
    for x, v, top, r in zip(xs, values, tops, rows, strict=True):
        n = r[f"{stem}_n"]
        text = f"{v:.1%}\n{r[f'{stem}_k']:,} / {n:,}" if n else "no hands"
        if n and small(n):
            text += f"\ntoo small\n(n<{MIN_N})"  # two short lines: a bar's width, not its neighbour's
        # above the whisker's cap, never on it
        ax.text(x, top + ceiling * 0.03, text, ha="center", va="bottom", fontsize=9)
    ax.set_xticks(xs, labels)
    ax.set_ylim(0, ceiling)
    ax.set_yticks([y for y in ax.get_yticks() if 0 <= y <= 1 + 1e-9])  # room above 100%, no rate there
    ax.yaxis.set_major_formatter("{x:.0%}")
    ax.grid(axis="y", alpha=0.3)
