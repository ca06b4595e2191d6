"""Euchre's tables computed in Python from the SQL results: per-player rates shrunk
toward the population (empirical Bayes), the ratings of players and partnerships
(openskill), and the players, partnerships and meetings too little seen to read
listed apart."""

from __future__ import annotations

from typing import Any

from pipeline.games.euchre.ratings import partnership_ratings, player_ratings
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


def split_small(table: Table, by: str, rows: str, unit: str) -> dict[str, Table]:
    """``table`` keeps its rows with at least MIN_N in column ``by``; the others go to
    ``<name>_small``, too few to read (``rows`` and ``unit`` say what they are and count)."""
    import polars as pl

    frame = table.frame
    small = Table(
        f"{table.name}_small",
        f"{rows} with fewer than {MIN_N} {unit}: too few to read; shown apart.",
        frame.filter(pl.col(by) < MIN_N),
        table.hidden,
    )
    big = Table(table.name, table.doc, frame.filter(pl.col(by) >= MIN_N), table.hidden)
    return {big.name: big, small.name: small}


def _per_player(table: Table) -> dict[str, Table]:
    import polars as pl

    frame = table.frame
    columns = list(frame.columns)
    for stem in SHRUNK:
        frame = frame.with_columns(pl.Series(f"{stem}_shrunk", _shrunk(frame, stem), dtype=pl.Float64))
        at = columns.index(f"{stem}_n") + 1
        columns.insert(at, f"{stem}_shrunk")
    doc = (
        f"{table.doc} Shrunk: the rate pulled toward the population's by empirical Bayes "
        "(a beta-binomial fitted to every player), so that a few lucky hands do not top the table."
    )
    shrunk = Table(table.name, doc, frame.select(columns), table.hidden)
    return split_small(shrunk, "hands", "Players", "counted hands")


def _ratings(games: Table) -> dict[str, Table]:
    rule = (
        "mu: the skill estimate, sigma its uncertainty (openskill's Plackett-Luce model, each complete "
        "game in order); mu_lo to mu_hi: mu +- 1.96 sigma; ordinal: mu - 3 sigma, the conservative "
        "rating (strongest first)."
    )
    players = Table("euchre_ratings", f"Ratings of players. {rule}", player_ratings(games.frame))
    pairs = Table(
        "euchre_pair_ratings",
        f"Ratings of partnerships, each pair rated as one entity. {rule}",
        partnership_ratings(games.frame),
    )
    return {
        **split_small(players, "games", "Players", "rated games"),
        **split_small(pairs, "games", "Partnerships", "rated games together"),
    }


def derive(tables: dict[str, Table]) -> dict[str, Table]:
    """``euchre_per_player`` (players with at least MIN_N hands, with shrunk rates)
    and ``euchre_per_player_small`` (the others); the ratings of players and
    partnerships (``euchre_ratings``, ``euchre_pair_ratings``) and the
    partnerships' records (``euchre_partnerships``, ``euchre_head_to_head``), each
    with its ``_small`` table."""
    return {
        **_per_player(tables["euchre_per_player"]),
        **_ratings(tables["euchre_rated_games"]),
        **split_small(tables["euchre_partnerships"], "hands", "Partnerships", "counted hands together"),
        **split_small(tables["euchre_head_to_head"], "hands", "Meetings of two pairs", "counted hands"),
    }
