"""Ratings with their uncertainty, for any game played by teams: openskill's
Weng-Lin Bayesian model (Plackett-Luce), a maintained library rather than a
hand-written Elo.

Each entity -- a player, or a partnership rated as one -- has a skill
estimate ``mu`` and its uncertainty ``sigma`` (the posterior standard
deviation), updated game by game in the order given.  The report shows the
95% interval ``mu +- 1.96 sigma`` and the conservative *ordinal*
``mu - 3 sigma`` (a newcomer starts at 25 +- 8.33, ordinal 0).

>>> rated = rate_matches([((("ana", "ben"), ("cleo", "dev")), 0)] * 3)
>>> [(r.entity, r.games) for r in rated]
[(('ana',), 3), (('ben',), 3), (('cleo',), 3), (('dev',), 3)]
>>> rated[0].mu > 25 > rated[2].mu, rated[0].sigma < 25 / 3
(True, True)
>>> pairs = rate_matches([((("ana", "ben"), ("cleo", "dev")), 1)], as_teams=True)
>>> [(r.entity, round(r.mu, 3)) for r in pairs][0][0], pairs[1].mu > pairs[0].mu
(('ana', 'ben'), True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pipeline.report.stats import Z95

if TYPE_CHECKING:
    import polars as pl

#: A rated entity: one player ``(name,)``, or a partnership (its names, sorted).
Entity = tuple[str, ...]
#: One game: its teams (each a sequence of names) and the index of the winning team.
Match = tuple[Sequence[Sequence[str]], int]
#: Standard deviations below ``mu`` of the conservative ordinal (openskill's default).
ORDINAL_Z = 3.0


@dataclass(frozen=True, slots=True)
class Rated:
    """An entity's rating after every game it played."""

    entity: Entity
    games: int
    mu: float
    sigma: float

    @property
    def ci95(self) -> tuple[float, float]:
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    @property
    def ordinal(self) -> float:
        return self.mu - ORDINAL_Z * self.sigma


def rate_matches(matches: Iterable[Match], as_teams: bool = False) -> list[Rated]:
    """Rate every player (or, ``as_teams``, every team as one entity) over
    ``matches`` in order; the entities sorted.  Ties are not rated (a game has
    one winner)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[Entity, Any] = {}
    games: dict[Entity, int] = {}
    for teams, winner in matches:
        sides = [[tuple(sorted(t))] if as_teams else [(name,) for name in t] for t in teams]
        before = [[ratings.get(e) or model.rating() for e in side] for side in sides]
        ranks = [0.0 if i == winner else 1.0 for i in range(len(sides))]
        for side, after in zip(sides, model.rate(before, ranks=ranks), strict=True):
            for entity, rating in zip(side, after, strict=True):
                ratings[entity] = rating
                games[entity] = games.get(entity, 0) + 1
    return [Rated(e, games[e], ratings[e].mu, ratings[e].sigma) for e in sorted(ratings)]


def ratings_frame(rated: Sequence[Rated], names: Sequence[str]) -> pl.DataFrame:
    """One row per entity (its names in the columns ``names``): games, mu, sigma, the
    95% interval and the ordinal, the highest ordinal first."""
    import polars as pl

    columns: dict[str, Any] = {name: [r.entity[i] for r in rated] for i, name in enumerate(names)}
    frame = pl.DataFrame(
        {
            **columns,
            "games": pl.Series([r.games for r in rated], dtype=pl.Int64),
            "mu": pl.Series([r.mu for r in rated], dtype=pl.Float64),
            "sigma": pl.Series([r.sigma for r in rated], dtype=pl.Float64),
            "mu_lo": pl.Series([r.ci95[0] for r in rated], dtype=pl.Float64),
            "mu_hi": pl.Series([r.ci95[1] for r in rated], dtype=pl.Float64),
            "ordinal": pl.Series([r.ordinal for r in rated], dtype=pl.Float64),
        },
        schema_overrides={name: pl.Utf8 for name in names},
    )
    return frame.sort(["ordinal", *names], descending=[True] + [False] * len(names))
