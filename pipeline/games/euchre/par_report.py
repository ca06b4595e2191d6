"""The report's section on Euchre decisions at double-dummy par: shown when
``tricklog analyze`` has filled ``euchre.par_hands``; its figures are the
``euchre_par`` object of ``summary.json``.

>>> headline({"hands": 0})
'no Euchre hand analysed at par'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.report.game import GameReport, Section
from pipeline.report.run import Table
from pipeline.report.summary import mean_ci, rate_of

REPORTS = (
    "euchre_par_overview",
    "euchre_par_loner_calls",
    "euchre_par_accuracy",
    "euchre_par_luck",
    "euchre_par_partnerships",
    "euchre_par_costliest",
)

SECTIONS = (
    Section(
        "par",
        "Study 4: decisions at double-dummy par",
        tables=[
            ("euchre_par_overview", "Hands analysed: the makers' tricks at par and as played"),
            ("euchre_par_loner_calls", "Going alone or not, judged by the points at par"),
            ("euchre_par_accuracy", "Play accuracy per player: tricks given away against par"),
            ("euchre_par_luck", "Luck per player: what the deal was worth at par, and the play over par"),
            ("euchre_par_partnerships", "Partnerships: the points their play added over par, luck taken out"),
            ("euchre_par_costliest", "The hands that gave most tricks away (open one in the viewer)"),
        ],
    ),
)


def summary(tables: dict[str, Table]) -> dict[str, Any]:
    overview = tables["euchre_par_overview"].one()
    return {
        "games": overview["games"],
        "hands": overview["hands"],
        "par_tricks": _mean(overview, "par_tricks"),
        "played_tricks": _mean(overview, "played_tricks"),
        "made_at_par": rate_of(overview, "made_at_par"),
        "made": rate_of(overview, "made"),
        "perfect_hands": rate_of(overview, "perfect"),
        "mistakes_per_hand": _mean(overview, "mistakes"),
        "loner_calls": {r["decision"]: r["hands"] for r in tables["euchre_par_loner_calls"].rows()},
        "accuracy": {
            r["player"]: {
                "hands": r["hands"],
                "loss_per_card": r["loss_per_card_mean"],
                "mistakes": r["mistakes"],
            }
            for r in tables["euchre_par_accuracy"].rows()
            if r["player"] is not None  # a seat with no name (a placeholder) is left out
        },
    }


def _mean(row: dict[str, Any], stem: str) -> dict[str, Any]:
    return {"mean": row[f"{stem}_mean"], "ci95": mean_ci(row, stem)}


def findings(s: dict[str, Any]) -> dict[str, list[str]]:
    if not s.get("hands"):
        return {}
    perfect = s["perfect_hands"]
    calls = s["loner_calls"]
    missed, bad = calls.get("missed loner", 0), calls.get("bad loner", 0)
    return {
        "par": [
            f"{s['hands']:,} hands analysed with every hand in view: the makers would take "
            f"{s['par_tricks']['mean']:.2f} tricks at par and took {s['played_tricks']['mean']:.2f}; "
            f"{perfect['rate']:.1%} of hands were played without a card giving a trick away. "
            f"Loners: {bad:,} lost points against keeping the partner in, and {missed:,} hands "
            "played with the partner would have scored more alone. Each hand is one click away in viewer.html."
        ]
    }


def headline(s: dict[str, Any]) -> str:
    if not s.get("hands"):
        return "no Euchre hand analysed at par"
    return f"{s['hands']:,} Euchre hands at double-dummy par"


def _no_charts(tables: dict[str, Table], out: Path) -> dict[str, str]:
    return {}


REPORT = GameReport(
    key="euchre_par",
    title="Euchre at par",
    package="pipeline.games.euchre.reports",
    reports=REPORTS,
    macro_files=("euchre_par_counted",),
    sections=SECTIONS,
    summary=summary,
    charts=_no_charts,
    findings=findings,
    headline=headline,
)
