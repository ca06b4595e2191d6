"""An independent computation of the summary.json figures, for the report tests.

Plain Python over the records, through ``replay_game``: no SQL, no DuckDB, no
code shared with ``pipeline.report`` except the replay itself and the Wilson
formula (tested on its own against known values).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from scipy.stats import t as student_t

from pipeline.games.euchre.cards import EFFECTIVE
from pipeline.games.euchre.replay import GameReplay, HandResult, replay_game

Z = 1.959963984540054
POSITIONS = ("dealer", "left", "partner", "right")
#: A game-level schema fault on one of these keeps the line out of the warehouse.
REQUIRED = frozenset({"format", "game_id", "players", "hands"})


def _wilson(k: int, n: int) -> dict[str, Any]:
    if n == 0:
        return {"k": 0, "n": 0, "rate": None, "ci95": [None, None]}
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return {
        "k": k,
        "n": n,
        "rate": p,
        "ci95": [0.0 if k == 0 else centre - half, 1.0 if k == n else centre + half],
    }


def counted(game: GameReplay) -> list[HandResult]:
    """Complete, valid, played hands that no violation names."""
    named = {v.hand for v in game.violations if v.hand is not None}
    return [
        h
        for h in game.hands
        if h.complete and h.valid and h.thrown_in is None and h.maker is not None and h.index not in named
    ]


def _team_points(h: HandResult, team: int) -> int:
    return h.points[team]


def in_scope(record: dict[str, Any], sources: Iterable[str] = (), players: Iterable[str] = ()) -> bool:
    """The --source / --player filters: keep a game of one of the sources, where one of the players sat."""
    sources, players = set(sources), set(players)
    if sources and record.get("source") not in sources:
        return False
    return not players or bool(players & set(record["players"]))


def replays(
    records: Iterable[dict[str, Any]], sources: Iterable[str] = (), players: Iterable[str] = ()
) -> list[tuple[dict[str, Any], GameReplay, list[HandResult]]]:
    """(record, replay, counted hands) of each loaded game in scope with a counted hand."""
    out = []
    seen: set[str] = set()
    for record in records:
        if not isinstance(record, dict):
            continue  # quarantined: not a game object
        game = replay_game(record)
        blocked = any(v.code == "schema" and v.hand is None and v.path in REQUIRED for v in game.violations)
        if blocked or game.game_id is None or game.game_id in seen:
            continue  # quarantined: unusable, no id, or a repeated one
        seen.add(game.game_id)
        mine = counted(game)
        if mine and in_scope(record, sources, players):
            out.append((record, game, mine))
    return out


def expected_summary(
    records: Iterable[dict[str, Any]], sources: Iterable[str] = (), players: Iterable[str] = ()
) -> dict[str, Any]:
    """The contract's ``euchre`` object, computed hand by hand in plain Python."""
    games = replays(records, sources, players)
    hands = [h for _, _, mine in games for h in mine]
    complete = [g for _, g, _ in games if g.complete]
    first = [g for g in complete if g.hands and g.hands[0].index == 0]
    first_dealer_k = sum(g.winner == g.hands[0].dealer % 2 for g in first)
    first_dealer_n = len(first)
    complete_games = len(complete)
    return {
        "games": len(games),
        "complete_games": complete_games,
        "hands": len(hands),
        **_euchre_rates(hands),
        "alone": _alone(hands),
        "dealer_advantage": _dealer(hands, first_dealer_k, first_dealer_n),
    }


def _euchred(hands: list[HandResult]) -> dict[str, Any]:
    return _wilson(sum(h.maker_tricks < 3 for h in hands), len(hands))


def _euchre_rates(hands: list[HandResult]) -> dict[str, Any]:
    def position(h: HandResult) -> str:
        assert h.maker is not None
        return POSITIONS[(h.maker - h.dealer) % 4]

    return {
        "euchre_rate": _euchred(hands),
        "euchre_rate_by_round": {str(r): _euchred([h for h in hands if h.round == r]) for r in (1, 2)},
        "euchre_rate_by_maker_position": {
            p: _euchred([h for h in hands if position(h) == p]) for p in POSITIONS
        },
    }


def _alone(hands: list[HandResult]) -> dict[str, Any]:
    lone = [h for h in hands if h.alone]
    net = [h.points[h.maker_team or 0] - h.points[1 - (h.maker_team or 0)] for h in lone]
    return {
        "attempts": len(lone),
        "success": _wilson(sum(h.maker_tricks >= 3 for h in lone), len(lone)),
        "march": _wilson(sum(h.maker_tricks == 5 for h in lone), len(lone)),
        "net_points_per_attempt": sum(net) / len(net) if net else None,
    }


def _dealer(hands: list[HandResult], k: int, n: int) -> dict[str, Any]:
    dealer = [_team_points(h, h.dealer % 2) for h in hands]
    other = [_team_points(h, 1 - h.dealer % 2) for h in hands]
    edges = [d - o for d, o in zip(dealer, other, strict=True)]
    count = len(edges)
    mean = sum(edges) / count if count else None
    ci: list[float | None] = [None, None]
    if count >= 2 and mean is not None:
        sd = math.sqrt(sum((e - mean) ** 2 for e in edges) / (count - 1))
        if sd > 0:  # Student t with n - 1 degrees of freedom; no interval without spread
            half = student_t.ppf(0.975, count - 1) * sd / math.sqrt(count)
            ci = [mean - half, mean + half]
    return {
        "dealer_team_points_per_hand": sum(dealer) / count if count else None,
        "other_team_points_per_hand": sum(other) / count if count else None,
        "edge": mean,
        "edge_ci95": ci,
        "first_dealer_game_win": _wilson(k, n),
    }


def trumps_held(h: HandResult) -> int:
    """Trumps the maker played (all it held after the pick-up, in a counted hand)."""
    assert h.trump is not None
    return sum(
        1
        for trick in h.tricks
        for seat, card in trick
        if seat == h.maker and EFFECTIVE[h.trump][card] == h.trump
    )


def expected_extras(
    records: Iterable[dict[str, Any]], sources: Iterable[str] = (), players: Iterable[str] = ()
) -> dict[str, Any]:
    """The extra keys: by preset, by trump, by trumps held, stuck dealer, per player."""
    games = replays(records, sources, players)
    hands = [(g, h) for _, g, mine in games for h in mine]
    presets = sorted({g.rules.preset for g, _ in hands if g.rules})
    held = sorted({trumps_held(h) for _, h in hands})

    def stuck(g: GameReplay, h: HandResult) -> bool:
        return bool(g.rules and g.rules.stick_the_dealer and h.round == 2 and h.maker == h.dealer)

    return {
        "by_preset": {p: _euchred([h for g, h in hands if g.rules and g.rules.preset == p]) for p in presets},
        "by_trump": {s: _euchred([h for _, h in hands if h.trump == i]) for i, s in enumerate("CDHS")},
        "by_trumps_held": {str(n): _euchred([h for _, h in hands if trumps_held(h) == n]) for n in held},
        "stuck_dealer": _euchred([h for g, h in hands if stuck(g, h)]),
        "per_player": _per_player(games),
    }


def _per_player(games: list[tuple[dict[str, Any], GameReplay, list[HandResult]]]) -> dict[str, Any]:
    names = sorted({name for record, _, _ in games for name in record["players"]})
    out: dict[str, Any] = {}
    for name in names:
        sat = [
            (record["players"].index(name), g, mine) for record, g, mine in games if name in record["players"]
        ]
        hands = [(seat, h) for seat, _, mine in sat for h in mine]
        made = [h for seat, h in hands if h.maker == seat]
        lone = [h for h in made if h.alone]
        nets = [h.points[seat % 2] - h.points[1 - seat % 2] for seat, h in hands]
        finished = [(seat, g) for seat, g, _ in sat if g.complete]
        out[name] = {
            "hands": len(hands),
            "calls": len(made),
            "euchred_as_maker": _euchred(made),
            "alone_success": _wilson(sum(h.maker_tricks >= 3 for h in lone), len(lone)),
            "net_points_per_hand": sum(nets) / len(nets) if nets else None,
            "games_won": _wilson(sum(g.winner == seat % 2 for seat, g in finished), len(finished)),
        }
    return out
