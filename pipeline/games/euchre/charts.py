"""Euchre's charts: euchre rate by position and round, by trumps held, lone
hands, and the points of the dealer's team.  Each takes the report tables and
writes one PNG, returning its file name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.report.charts import BLUE, EUCHRED, GREY, MADE, ORANGE, figure, rate_bars, save
from pipeline.report.run import Table

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def euchre_rate_chart(tables: dict[str, Table], out: Path) -> str:
    """Euchre rate by maker position and by round, with Wilson intervals."""
    fig, (left, right) = figure(10, 4.4, ncols=2)
    positions = tables["euchre_by_maker_position"].rows()
    labels = [f"{r['maker_position']}\n(dealer+{r['seat_after_dealer']})" for r in positions]
    rate_bars(left, labels, positions, "euchred", EUCHRED)
    left.set_title("By the maker's seat relative to the dealer")
    left.set_xlabel("maker's position")
    left.set_ylabel("euchre rate (makers took fewer than 3 tricks)")
    rounds = tables["euchre_by_round"].rows()
    rate_bars(right, ["round 1\nordered up", "round 2\nnamed trump"], rounds, "euchred", EUCHRED)
    right.set_title("By bidding round")
    right.set_xlabel("round in which trump was made")
    overall = tables["euchre_overview"].one()
    if overall["euchred_rate"] is not None:
        for ax in (left, right):
            label = f"all {overall['euchred_n']:,} hands: {overall['euchred_rate']:.1%}"
            ax.axhline(overall["euchred_rate"], color=GREY, linestyle="--", linewidth=1, label=label)
            ax.legend(loc="upper left", fontsize=8, frameon=False)
    top = max(left.get_ylim()[1], right.get_ylim()[1])
    left.set_ylim(0, top)
    right.set_ylim(0, top)
    fig.suptitle("How often are the makers euchred?  (bars: 95% Wilson intervals)", fontsize=11)
    return save(fig, out / "euchre_rate.png")


def lone_hands_chart(tables: dict[str, Table], out: Path) -> str:
    """How lone hands ended (share of attempts, Wilson intervals), with the net points
    per attempt and its t interval in the title: the points of each outcome are the
    scoring rules' constants, not a finding, so they get no panel."""
    from pipeline.report.stats import rate

    fig, (ax,) = figure(7.5, 4.6)
    outcomes = tables["euchre_lone_outcomes"].rows()
    attempts = int(outcomes[0]["all_attempts"]) if outcomes else 0
    rows = []
    for r in outcomes:
        share = rate(r["hands"], attempts)
        lo, hi = share.ci95
        rows.append({"s_rate": share.value, "s_lo": lo, "s_hi": hi, "s_k": r["hands"], "s_n": attempts})
    labels = ["euchred\n(0-2 tricks)", "made\n(3-4 tricks)", "march\n(5 tricks)"]
    rate_bars(ax, labels, rows, "s", [EUCHRED, MADE, MADE])
    ax.set_title(f"How {attempts:,} lone hands ended")
    ax.set_ylabel("share of lone attempts")
    ax.set_xlabel(f"outcome for the lone maker\n{_net_text(tables['euchre_alone'].one())}")
    fig.suptitle("Does going alone pay?  (bars: 95% Wilson intervals)", fontsize=11)
    return save(fig, out / "lone_hands.png")


def _net_text(alone: dict[str, Any]) -> str:
    mean, lo, hi = alone["net_points_mean"], alone["net_points_lo"], alone["net_points_hi"]
    if mean is None:
        return "no lone attempt"
    text = f"net points per attempt: {mean:+.2f}"
    if lo is not None and hi is not None:
        text += f" (95% CI {lo:+.2f} to {hi:+.2f}, n={alone['attempts']:,})"
    return text


def dealer_points_chart(tables: dict[str, Table], out: Path) -> str:
    """Points per hand for the dealer's team and the other team, with the dealer's edge."""
    fig, (ax, means) = figure(11, 4.6, ncols=2, ratios=(2.2, 1))
    rows = tables["euchre_dealer_points"].rows()
    values = sorted({int(r["points"]) for r in rows})
    for offset, (team, color) in zip(
        (-0.2, 0.2), (("dealer team", BLUE), ("other team", ORANGE)), strict=True
    ):
        mine = {int(r["points"]): r for r in rows if r["team"] == team}
        shares = [mine[v]["share"] if v in mine else 0.0 for v in values]
        xs = [i + offset for i in range(len(values))]
        ax.bar(xs, shares, width=0.38, color=color, label=team)
        for x, v, s in zip(xs, values, shares, strict=True):
            n = mine[v]["hands"] if v in mine else 0
            ax.text(x, s + 0.01, f"{s:.0%}\n{n:,}", ha="center", va="bottom", fontsize=8)
    adv = tables["euchre_dealer_advantage"].one()
    ax.set_xticks(range(len(values)), [f"{v} point{'s' if v != 1 else ''}" for v in values])
    ax.set_ylim(0, 1.0)
    ax.yaxis.set_major_formatter("{x:.0%}")
    ax.set_ylabel("share of hands")
    ax.set_xlabel("points the team scored on the hand")
    ax.legend(loc="upper right", fontsize=9)
    ax.set_title(f"Points scored on a hand ({adv['hands']:,} hands)")
    ax.grid(axis="y", alpha=0.3)
    _mean_bars(means, adv)
    fig.suptitle("How much is the deal worth?  Dealer's team against the other team", fontsize=11)
    return save(fig, out / "dealer_points.png")


def _mean_bars(ax: Axes, adv: dict[str, Any]) -> None:
    """Mean points per hand of each team and the dealer's edge, with normal 95% intervals."""
    stems = [
        ("dealer_team", "dealer\nteam", BLUE),
        ("other_team", "other\nteam", ORANGE),
        ("edge", "edge", GREY),
    ]
    for x, (stem, _, color) in enumerate(stems):
        mean, lo, hi = adv[f"{stem}_mean"], adv[f"{stem}_lo"], adv[f"{stem}_hi"]
        if mean is None:
            continue
        err = [[mean - lo], [hi - mean]] if lo is not None and hi is not None else None
        ax.bar([x], [mean], color=color, width=0.6, yerr=err, capsize=5, ecolor="#333333")
        ax.text(
            x,
            (hi if hi is not None else mean) + 0.02,
            f"{mean:+.3f}" if stem == "edge" else f"{mean:.3f}",
            ha="center",
            va="bottom",
            fontsize=9,
        )
    ax.set_xticks(range(len(stems)), [label for _, label, _ in stems])
    ax.axhline(0, color="#333333", linewidth=0.8)
    ax.set_ylabel("points per hand")
    ends = [adv[f"{stem}_{end}"] or 0.0 for stem, _, _ in stems for end in ("lo", "hi", "mean")]
    ax.set_ylim(min(0.0, *ends) * 1.2, max(0.1, *ends) * 1.18)
    ax.set_title("Mean per hand (95% CI)")
    ax.set_xlabel(_edge_text(adv), fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def _edge_text(adv: dict[str, Any]) -> str:
    if adv["edge_mean"] is None:
        return "no hands"
    text = f"edge = dealer team - other team: {adv['edge_mean']:+.3f}"
    if adv["edge_lo"] is not None:
        text += f"\n95% CI {adv['edge_lo']:+.3f} to {adv['edge_hi']:+.3f}"
    return text


def trumps_held_chart(tables: dict[str, Table], out: Path) -> str:
    """Euchre rate by the number of trumps the maker held."""
    fig, (ax,) = figure(8, 4.2)
    rows = tables["euchre_by_trumps_held"].rows()
    rate_bars(ax, [str(r["trumps_held"]) for r in rows], rows, "euchred", EUCHRED)
    ax.set_xlabel("trumps in the maker's hand (after the pick-up; bowers and joker count)")
    ax.set_ylabel("euchre rate")
    ax.set_title("Euchre rate by trumps held by the maker  (bars: 95% Wilson intervals)")
    return save(fig, out / "euchre_by_trumps.png")


def win_probability_chart(tables: dict[str, Table], out: Path) -> str:
    """The share of games won from each score at the start of a hand, as a grid; cells
    on fewer than MIN_N hands are hatched, empty cells blank."""
    import numpy as np
    from matplotlib.patches import Rectangle

    from pipeline.report.inference import MIN_N, small

    rows = tables["euchre_win_probability"].rows()
    size = max([max(r["my_score"], r["opp_score"]) for r in rows], default=0) + 1
    grid = np.full((size, size), np.nan)
    fig, (ax,) = figure(7.5, 6.4)
    for r in rows:
        grid[r["my_score"], r["opp_score"]] = r["won_rate"]
    mesh = ax.pcolormesh(
        np.arange(size + 1) - 0.5, np.arange(size + 1) - 0.5, grid, cmap="RdBu", vmin=0, vmax=1
    )
    for r in rows:
        x, y, few = r["opp_score"], r["my_score"], small(r["won_n"])
        if few:
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, hatch="//", edgecolor=GREY, lw=0))
        ink = "white" if abs(r["won_rate"] - 0.5) > 0.3 else "black"
        ax.text(x, y, f"{r['won_rate']:.0%}\n{r['won_n']:,}", ha="center", va="center", fontsize=7, color=ink)
    fig.colorbar(mesh, ax=ax, format="{x:.0%}", label="share of games won")
    ax.set_xticks(range(size))
    ax.set_yticks(range(size))
    ax.set_xlabel("opponents' score at the start of the hand")
    ax.set_ylabel("the team's score at the start of the hand")
    ax.set_title(
        f"Games won from each score (cell: rate and hands; hatched: fewer than {MIN_N})", fontsize=10
    )
    return save(fig, out / "win_probability.png")


#: Chart name -> drawing function, in the order of the page.
CHARTS: dict[str, Callable[[dict[str, Table], Path], str]] = {
    "euchre_rate": euchre_rate_chart,
    "euchre_by_trumps": trumps_held_chart,
    "lone_hands": lone_hands_chart,
    "dealer_points": dealer_points_chart,
    "win_probability": win_probability_chart,
}


def draw_all(tables: dict[str, Table], out: Path) -> dict[str, str]:
    """Draw every chart into ``out``; chart name -> PNG file name."""
    return {name: draw(tables, out) for name, draw in CHARTS.items()}
