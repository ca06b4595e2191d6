"""Euchre's part of ``tricklog report``: its SQL files (``reports/`` beside this
file), the page's three studies and the per-player table, the charts, the
``euchre`` object of ``summary.json`` and the sentences that open each section.
"""

from __future__ import annotations

from typing import Any

from pipeline.games.euchre.charts import draw_all
from pipeline.games.euchre.derive import derive
from pipeline.games.euchre.findings import GLOSSARY, comparisons, findings
from pipeline.games.euchre.summary import summary
from pipeline.report.game import GameReport, Section

#: The report files, in the order they run.
REPORTS = (
    "euchre_overview",
    "euchre_by_maker_position",
    "euchre_by_round",
    "euchre_by_trumps_held",
    "euchre_stuck_dealer",
    "euchre_by_trump",
    "euchre_by_preset",
    "euchre_alone",
    "euchre_lone_outcomes",
    "euchre_dealer_advantage",
    "euchre_dealer_points",
    "euchre_first_dealer",
    "euchre_per_player",
    "euchre_rated_games",
    "euchre_partnerships",
    "euchre_head_to_head",
    "euchre_by_score_situation",
    "euchre_win_probability",
    "euchre_bidding",
    "euchre_by_week_and_file",
)

SECTIONS = (
    Section(
        "euchre",
        "Study 1: how often are the makers euchred, and when?",
        charts=[
            ("euchre_rate", "Euchre rate by the maker's seat relative to the dealer and by bidding round."),
            ("euchre_by_trumps", "Euchre rate by the number of trumps the maker held."),
        ],
        tables=[
            ("euchre_overview", "All counted hands"),
            ("euchre_by_maker_position", "By the maker's position"),
            ("euchre_by_round", "By bidding round"),
            ("euchre_by_trumps_held", "By trumps held by the maker"),
            ("euchre_stuck_dealer", "Stuck dealer (stick the dealer: forced call after seven passes)"),
            ("euchre_by_trump", "By trump suit"),
            ("euchre_by_preset", "By rule preset"),
        ],
    ),
    Section(
        "alone",
        "Study 2: does going alone pay?",
        charts=[("lone_hands", "Outcomes of lone hands and the net points they earned.")],
        tables=[("euchre_alone", "Lone makers"), ("euchre_lone_outcomes", "Lone hands by outcome")],
    ),
    Section(
        "dealer",
        "Study 3: how much is the deal worth?",
        charts=[("dealer_points", "Points per hand for the dealer's team and the other team.")],
        tables=[
            ("euchre_dealer_advantage", "Points per hand and the dealer's edge"),
            ("euchre_dealer_points", "Distribution of points per hand"),
            ("euchre_first_dealer", "Complete games won by the first dealer's team"),
        ],
    ),
    Section(
        "players",
        "Per player",
        tables=[
            ("euchre_per_player", "Players with 30 counted hands or more"),
            ("euchre_per_player_small", "Players with fewer than 30 counted hands (too few to read)"),
        ],
    ),
    Section(
        "people",
        "People and pairs: ratings and partnerships",
        tables=[
            ("euchre_ratings", "Player ratings (30 rated games or more)"),
            ("euchre_ratings_small", "Player ratings on fewer than 30 games (too few to read)"),
            ("euchre_pair_ratings", "Partnership ratings (30 rated games together or more)"),
            ("euchre_pair_ratings_small", "Partnership ratings on fewer than 30 games (too few to read)"),
            ("euchre_partnerships", "Partnerships: hands and games together, and won (30 hands or more)"),
            ("euchre_partnerships_small", "Partnerships with fewer than 30 hands together (too few to read)"),
            ("euchre_head_to_head", "Pair against pair (30 hands or more; the others in the CSV)"),
        ],
    ),
    Section(
        "situations",
        "Situations and time",
        charts=[
            (
                "win_probability",
                "How often a team went on to win the game, by the score at the start of a hand.",
            )
        ],
        tables=[
            ("euchre_by_score_situation", "By the score at the start of the hand"),
            ("euchre_win_probability", "Games won from each score (complete games)"),
            ("euchre_bidding", "By the kind of call"),
            ("euchre_by_week_and_file", "By ISO week and by input file"),
        ],
    ),
)


#: Queries to try on Euchre's tables: (what it shows, the query).
EXAMPLES = (
    (
        "euchre rate by seat",
        "select maker_seat, count(*) as hands_made, "
        "round(avg(case when maker_tricks < 3 then 1 else 0 end), 3) as euchre_rate "
        "from euchre.hands where valid and complete and thrown_in is null and maker_seat is not null "
        "group by maker_seat order by maker_seat",
    ),
    (
        "going alone, by preset",
        "select g.preset, count(*) as alone_hands, "
        "round(avg(case when h.maker_tricks = 5 then 1 else 0 end), 3) as march_rate "
        "from euchre.hands h join games g using (game_id) where h.valid and h.complete and h.alone "
        "group by g.preset order by g.preset",
    ),
)


def headline(e: dict[str, Any]) -> str:
    """What the counted Euchre hands say, in one sentence."""
    rate, alone, deal = e["euchre_rate"], e["alone"], e["dealer_advantage"]
    counted = f"{e['hands']:,} hands of {e['games']:,} Euchre games counted"
    if not rate["n"]:
        return counted
    lo, hi = rate["ci95"]
    return (
        f"{counted}: makers euchred in {rate['rate']:.1%} (95% CI {lo:.1%} to {hi:.1%}); "
        f"{alone['attempts']:,} lone attempts; dealer's edge {deal['edge']:+.3f} points per hand"
    )


REPORT = GameReport(
    key="euchre",
    title="Euchre",
    package="pipeline.games.euchre.reports",
    reports=REPORTS,
    macro_files=("euchre_scoped_games", "euchre_counted_hands"),
    sections=SECTIONS,
    summary=summary,
    charts=draw_all,
    findings=findings,
    headline=headline,
    examples=EXAMPLES,
    derive=derive,
    comparisons=comparisons,
    glossary=GLOSSARY,
    hidden=frozenset(
        {"outcome_order", "all_attempts", "dealer_team_points_per_hand", "other_team_points_per_hand"}
    ),
)
