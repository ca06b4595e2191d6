"""Euchre's ratings: each player and each partnership rated over the complete
games of ``euchre_rated_games.sql`` in their order (openskill, through
:mod:`pipeline.report.ratings`), a game won or lost by the team as a whole.

Games, not hands: a game is what a team sets out to win, and the hands of one
game are far from independent (the score decides how boldly a team bids).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.report.ratings import Match, rate_matches, ratings_frame

if TYPE_CHECKING:
    import polars as pl


def matches(games: pl.DataFrame) -> list[Match]:
    """The games of ``euchre_rated_games`` as (teams, winning team), in their order."""
    columns = [games[c].to_list() for c in ("team0_a", "team0_b", "team1_a", "team1_b", "winner_team")]
    return [(((a0, b0), (a1, b1)), int(w)) for a0, b0, a1, b1, w in zip(*columns, strict=True)]


def player_ratings(games: pl.DataFrame) -> pl.DataFrame:
    """One row per player: games rated, mu, sigma, the 95% interval and the ordinal."""
    return ratings_frame(rate_matches(matches(games)), ("player",))


def partnership_ratings(games: pl.DataFrame) -> pl.DataFrame:
    """One row per partnership (its two names in alphabetical order), rated as one entity."""
    return ratings_frame(rate_matches(matches(games), as_teams=True), ("player_a", "player_b"))
