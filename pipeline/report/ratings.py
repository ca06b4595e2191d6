"""Ratings with their uncertainty, for any game played by teams: the Weng-Lin
Bayesian model (Plackett-Luce) exactly as openskill defines it, with its
defaults, rather than a hand-written Elo.

Each entity -- a player, or a partnership rated as one -- has a skill
estimate ``mu`` and its uncertainty ``sigma`` (the posterior standard
deviation), updated game by game in the order given.  The report shows the
95% interval ``mu +- 1.96 sigma`` and the conservative *ordinal*
``mu - 3 sigma`` (a newcomer starts at 25 +- 8.33, ordinal 0).

The update is openskill's ``PlackettLuce.rate`` written out for the one case
the reports need: one winning team, the others tied below it, no scores or
weights.  The library's general ``rate`` checks its arguments, deep-copies
every rating and draws a UUID for each copy: 28 s of a 70 s report over
300,000 games.  This takes half that time or less, and ``tests/test_ratings.py``
checks it against openskill's own ``rate``, float for float, on random games.

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

import math
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

#: openskill's defaults for the model: a newcomer's ``mu`` and ``sigma``, the
#: spread of one performance (``beta``), the floor of a sigma's shrink factor
#: (``kappa``) and the uncertainty added before each game (``tau``).
MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0


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
    one winner), and an entity plays at most once a game."""
    index: dict[Entity, int] = {}
    mus: list[float] = []
    sigmas: list[float] = []
    games: list[int] = []
    for teams, winner in matches:
        sides = [[tuple(sorted(t))] if as_teams else [(name,) for name in t] for t in teams]
        ids = [[_entity_id(e, index, mus, sigmas, games) for e in side] for side in sides]
        if len({i for side in ids for i in side}) < sum(map(len, ids)):
            raise ValueError(f"an entity plays twice in one game: {teams}")
        for side, after in zip(
            ids, _after_game([[(mus[i], sigmas[i]) for i in side] for side in ids], winner), strict=True
        ):
            for i, (mu, sigma) in zip(side, after, strict=True):
                mus[i], sigmas[i] = mu, sigma
                games[i] += 1
    return [Rated(e, games[i], mus[i], sigmas[i]) for e, i in sorted(index.items())]


def _entity_id(
    entity: Entity, index: dict[Entity, int], mus: list[float], sigmas: list[float], games: list[int]
) -> int:
    """The entity's row in the ratings, a newcomer's added."""
    i = index.get(entity)
    if i is None:
        i = index[entity] = len(mus)
        mus.append(MU)
        sigmas.append(SIGMA)
        games.append(0)
    return i


def _after_game(teams: list[list[tuple[float, float]]], winner: int) -> list[list[tuple[float, float]]]:
    """Each player's ``(mu, sigma)`` after a game that team ``winner`` won (the
    others tied below it), from their ``(mu, sigma)`` before: openskill's
    ``PlackettLuce().rate(teams, ranks=...)``, its operations in its order so
    that every float is the same."""
    order = [winner, *(t for t in range(len(teams)) if t != winner)]
    ranked = [[(mu, math.sqrt(sigma * sigma + TAU * TAU)) for mu, sigma in teams[t]] for t in order]
    team_mu, team_s2 = zip(*(_team_sums(players) for players in ranked), strict=True)
    collective = 0.0
    for s2 in team_s2:
        collective += s2 + BETA**2
    c = math.sqrt(collective)
    exps = [math.exp(mu / c) for mu in team_mu]
    everyone, losers = exps[0], exps[1]
    for e in exps[1:]:
        everyone += e
    for e in exps[2:]:
        losers += e
    tied = len(order) - 1
    after: list[list[tuple[float, float]]] = [[] for _ in teams]
    for i, t in enumerate(order):
        omega, delta = _team_shares(i, exps[i], everyone, losers, tied)
        s2 = team_s2[i]
        omega *= s2 / c
        delta *= s2 / c**2
        delta *= math.sqrt(s2) / c
        after[t] = [_player_after(mu, sigma, s2, omega, delta) for mu, sigma in ranked[i]]
    return after


def _team_sums(players: list[tuple[float, float]]) -> tuple[float, float]:
    """A team's ``mu`` and ``sigma**2``: its players' summed, the highest ordinal first."""
    mu_sum, s2_sum = 0.0, 0.0
    for mu, sigma in sorted(players, key=lambda p: p[0] - ORDINAL_Z * p[1] + 0.0, reverse=True):
        mu_sum += mu
        s2_sum += sigma**2
    return mu_sum, s2_sum


def _team_shares(i: int, e: float, everyone: float, losers: float, tied: int) -> tuple[float, float]:
    """The ``omega`` and ``delta`` of the team ranked ``i`` (0: the winner) before
    scaling: its share of the teams ranked with or below each team at or above it."""
    x = e / everyone
    if i == 0:
        return 1 - x, x * (1 - x)
    omega, delta = -x, x * (1 - x)
    y = e / losers
    for q in range(1, tied + 1):
        delta += y * (1 - y) / tied
        if q == i:
            omega += (1 - y) / tied
        else:
            omega -= y / tied
    return omega, delta


def _player_after(mu: float, sigma: float, team_s2: float, omega: float, delta: float) -> tuple[float, float]:
    """A player's ``(mu, sigma)`` after the game: its share of its team's update."""
    share = sigma**2 / team_s2
    return mu + share * omega, sigma * math.sqrt(max(1 - share * delta, KAPPA))


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
