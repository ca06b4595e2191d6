"""Euchre's tables computed in Python from the SQL results: per-player rates shrunk
toward the population (empirical Bayes), and the players too little seen to read
listed apart."""

from __future__ import annotations

from typing import Any

from pipeline.report.inference import MIN_N, fit_prior
from pipeline.report.run import Table

#: Per-player rates shrunk (stem -> the shrunk column placed after its interval).
SHRUNK = ("euchred", "won")


def _shrunk(frame: Any, stem: str) -> list[float | None]:
    ks, ns = frame[f"{stem}_k"].to_list(), frame[f"{stem}_n"].to_list()
    prior = fit_prior(list(zip(ks, ns, strict=True)))
    if prior is None:
        return [None] * len(ks)
    return [prior.shrink(int(k), int(n)) if n else None for k, n in zip(ks, ns, strict=True)]


def derive(tables: dict[str, Table]) -> dict[str, Table]:
    """``euchre_per_player`` (players with at least MIN_N hands, with shrunk rates)
    and ``euchre_per_player_small`` (the others)."""
    import polars as pl

    table = tables["euchre_per_player"]
    frame = table.frame
    columns = list(frame.columns)
    for stem in SHRUNK:
        frame = frame.with_columns(pl.Series(f"{stem}_shrunk", _shrunk(frame, stem), dtype=pl.Float64))
        at = columns.index(f"{stem}_n") + 1
        columns.insert(at, f"{stem}_shrunk")
    frame = frame.select(columns)
    big = frame.filter(pl.col("hands") >= MIN_N)
    small = frame.filter(pl.col("hands") < MIN_N)
    doc = (
        f"{table.doc} Shrunk: the rate pulled toward the population's by empirical Bayes "
        "(a beta-binomial fitted to every player), so that a few lucky hands do not top the table."
    )
    return {
        "euchre_per_player": Table(table.name, doc, big, table.hidden),
        "euchre_per_player_small": Table(
            "euchre_per_player_small",
            f"Players with fewer than {MIN_N} counted hands: too few to read; shown apart.",
            small,
            table.hidden,
        ),
    }
