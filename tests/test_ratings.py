"""The ratings' update (``pipeline.report.ratings``) against openskill's own
``PlackettLuce.rate``, which it writes out for one winner and no weights: the
same ``mu`` and ``sigma`` for every entity, float for float, on random games
of two to four teams of one to three players, each name at most once a game.
(openskill, given one rating twice in a game, updates it twice in turn, the
second update reading the first; the reports never rate such a game.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.report.ratings import Match, rate_matches

NAMES = [f"p{i}" for i in range(9)]


def openskill_ratings(
    matches: Sequence[Match], as_teams: bool
) -> dict[tuple[str, ...], tuple[int, float, float]]:
    """Each entity's games, mu and sigma, every game rated in turn by openskill."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[tuple[str, ...], Any] = {}
    games: dict[tuple[str, ...], int] = {}
    for teams, winner in matches:
        sides = [[tuple(sorted(t))] if as_teams else [(name,) for name in t] for t in teams]
        before = [[ratings.get(e) or model.rating() for e in side] for side in sides]
        ranks = [0.0 if i == winner else 1.0 for i in range(len(sides))]
        for side, after in zip(sides, model.rate(before, ranks=ranks), strict=True):
            for entity, rating in zip(side, after, strict=True):
                ratings[entity] = rating
                games[entity] = games.get(entity, 0) + 1
    return {e: (games[e], r.mu, r.sigma) for e, r in ratings.items()}


@st.composite
def matches(draw: st.DrawFn) -> list[Match]:
    played: list[Match] = []
    for _ in range(draw(st.integers(1, 60))):
        sizes = draw(
            st.lists(st.integers(1, 3), min_size=2, max_size=4).filter(lambda s: sum(s) <= len(NAMES))
        )
        names = iter(draw(st.permutations(NAMES)))
        teams = [[next(names) for _ in range(size)] for size in sizes]
        played.append((teams, draw(st.integers(0, len(teams) - 1))))
    return played


@settings(max_examples=300, deadline=None)
@given(matches(), st.booleans())
def test_every_rating_is_openskills_to_the_last_bit(played: list[Match], as_teams: bool) -> None:
    ours = {r.entity: (r.games, r.mu, r.sigma) for r in rate_matches(played, as_teams=as_teams)}
    assert ours == openskill_ratings(played, as_teams)


def test_an_entity_twice_in_one_game_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="plays twice"):
        rate_matches([((("ana", "ben"), ("ana", "dev")), 0)])
    with pytest.raises(ValueError, match="plays twice"):
        rate_matches([((("ana", "ben"), ("ben", "ana")), 0)], as_teams=True)


def test_a_long_run_of_euchre_games_stays_openskills() -> None:
    """Two thousand games among twelve players: the floats do not drift apart."""
    import random

    rng = random.Random(5)
    played: list[Match] = []
    for _ in range(2000):
        a, b, c, d = rng.sample([*NAMES, "q1", "q2", "q3"], 4)
        played.append((((a, b), (c, d)), rng.randint(0, 1)))
    for as_teams in (False, True):
        ours = {r.entity: (r.games, r.mu, r.sigma) for r in rate_matches(played, as_teams=as_teams)}
        assert ours == openskill_ratings(played, as_teams)
        assert all(games > 40 and sigma < 4 for games, _, sigma in ours.values())
