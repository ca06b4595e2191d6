"""Scoring a hand: points by the makers' tricks, then by team.

Three tricks make the contract, five march; fewer than three and the makers
are euchred.  A player alone scores more for a march, and a lone defender
more for a euchre, as each preset's point options say.

>>> from pipeline.games.euchre.rules import PRESETS
>>> hand_points(PRESETS["cards4net"], 3, False, False)
(1, 0)
>>> team_points(PRESETS["cards4net"], 1, 1, False, False)   # seat 1's team made 1 trick: euchred
(2, 0)
"""

from __future__ import annotations

from pipeline.games.euchre.rules import Rules, Seat, team_of


def hand_points(rules: Rules, maker_tricks: int, maker_alone: bool, defender_alone: bool) -> tuple[int, int]:
    """Points for (makers, defenders) after a played hand of five tricks.

    >>> from pipeline.games.euchre.rules import PRESETS
    >>> hand_points(PRESETS["cards4net"], 5, True, False)
    (4, 0)
    >>> hand_points(PRESETS["french"], 2, True, False)
    (0, 4)
    >>> hand_points(PRESETS["pagat"], 0, True, True)   # the lone defender marches
    (0, 4)
    """
    if not 0 <= maker_tricks <= 5:
        raise ValueError(f"a hand has five tricks, not {maker_tricks} for the makers")
    if maker_tricks == 5:
        return (rules.points_alone_march if maker_alone else rules.points_march), 0
    if maker_tricks >= 3:
        return (rules.points_alone_make if maker_alone else rules.points_make), 0
    euchre = rules.points_alone_euchre if maker_alone else rules.points_euchre
    if defender_alone:
        lone = rules.points_defender_alone_march if maker_tricks == 0 else rules.points_defender_alone_euchre
        euchre = max(euchre, lone)
    return 0, euchre


def team_points(
    rules: Rules, maker: Seat, maker_tricks: int, maker_alone: bool, defender_alone: bool
) -> tuple[int, int]:
    """The hand's points as (team 0, team 1), for the tricks ``maker``'s team took."""
    makers, defenders = hand_points(rules, maker_tricks, maker_alone, defender_alone)
    return (makers, defenders) if team_of(maker) == 0 else (defenders, makers)
