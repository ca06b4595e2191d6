"""An independent computation of the summary.json figures, for the report tests.

Plain Python over the records, through ``replay_game``: no SQL, no DuckDB, no
code shared with ``pipeline.report`` except the replay itself and the Wilson
formula (tested on its own against known values).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from typing import Any

from pipeline.games.euchre.cards import EFFECTIVE
from pipeline.games.euchre.replay import GameReplay, HandResult, replay_game
from pipeline.players import NAME_EDGES

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


#: Names that stand for a seat, not a person (lower case, blanks trimmed).
PLACEHOLDERS = frozenset(
    {"", "north", "east", "south", "west"}
    | {f"player{i}" for i in range(4)}
    | {f"player {i}" for i in range(4)}
    | {f"p{i}" for i in range(4)}
    | {f"seat {i}" for i in range(4)}
    | {f"seat{i}" for i in range(4)}
)


def _tidy(name: str) -> str:
    return unicodedata.normalize("NFC", name).strip(NAME_EDGES)


def person(name: str, aliases: dict[str, str] | None = None, placeholders: Iterable[str] = ()) -> str | None:
    """The person behind a seat's name: its canonical name (the name tidied, its
    aliases followed to the end), None for a placeholder or an alias of one."""
    mapped = {_tidy(a): _tidy(c) for a, c in (aliases or {}).items()}
    name, seen = _tidy(name), set()
    while name in mapped and name not in seen:
        seen.add(name)
        name = mapped[name]
    if name.lower() in PLACEHOLDERS or name in {_tidy(p) for p in placeholders}:
        return None
    return name


def play_key(h: HandResult) -> tuple[Any, ...] | None:
    """What identifies a hand's copies: its recorded play, each seat counted from the
    dealer (a copy may number the seats from another), the discard left out as the
    deal is (a copy may not know it; None: no card played)."""
    tricks = tuple(tuple(((seat - h.dealer) % 4, card) for seat, card in trick) for trick in h.tricks)
    if not any(tricks):
        return None
    bids = tuple(((b.seat - h.dealer) % 4, b.call, b.alone) for b in h.bids)
    return (h.upcard, bids, tricks)


def loaded_games(
    records: Iterable[dict[str, Any]],
    sources: Iterable[str] = (),
    players: Iterable[str] = (),
    aliases: dict[str, str] | None = None,
    placeholders: Iterable[str] = (),
) -> list[tuple[dict[str, Any], GameReplay]]:
    """(record with its people's names, replay) of each loaded game in scope, in load order."""
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
        people = [person(n, aliases, placeholders) for n in record["players"]]
        if in_scope({**record, "players": [*record["players"], *people]}, sources, players):
            out.append(({**record, "players": people}, game))
    return out


def preference(games: list[tuple[dict[str, Any], GameReplay]]) -> list[tuple[int, int, int]]:
    """Which copy of a hand counts: the game with the most played hands, then the
    most people named, then the first loaded (the lowest first)."""
    return [
        (-_printed(game), -sum(p is not None for p in record["players"]), i)
        for i, (record, game) in enumerate(games)
    ]


def copied_games(games: list[tuple[dict[str, Any], GameReplay]]) -> set[str]:
    """The ids of the games every played hand of which was recorded first in another
    game (by :func:`preference`), one at least of those first copies counted."""
    ranks = preference(games)
    printed: list[list[tuple[Any, ...]]] = []
    first: dict[tuple[Any, ...], tuple[tuple[int, int, int], int, bool]] = {}
    for i, (_, game) in enumerate(games):
        eligible = {id(h) for h in counted(game)}
        printed.append([])
        for h in game.hands:
            if (key := play_key(h)) is None:
                continue
            printed[i].append(key)
            if key not in first or ranks[i] < first[key][0]:
                first[key] = (ranks[i], i, id(h) in eligible)
    return {
        str(game.game_id)
        for i, (_, game) in enumerate(games)
        if printed[i]
        and all(first[key][1] != i for key in printed[i])
        and any(first[key][2] for key in printed[i])
    }


def distinct_games(records: Iterable[dict[str, Any]], **scope: Any) -> set[str]:
    """The ids of the games counted as games: a counted hand, and no copy of another game."""
    games = loaded_games(records, **scope)
    counted_ids = {str(g.game_id) for _, g, _ in replays(records, **scope)}
    return counted_ids - copied_games(games)


def replays(
    records: Iterable[dict[str, Any]],
    sources: Iterable[str] = (),
    players: Iterable[str] = (),
    aliases: dict[str, str] | None = None,
    placeholders: Iterable[str] = (),
) -> list[tuple[dict[str, Any], GameReplay, list[HandResult]]]:
    """(record, replay, counted hands) of each loaded game in scope with a counted hand,
    in load order; each distinct hand is counted once, from the game with the most
    played hands that has it, then the most people named, then the first in load order."""
    games = loaded_games(records, sources, players, aliases, placeholders)
    mine: list[list[HandResult]] = [[] for _ in games]
    played: set[tuple[Any, ...]] = set()
    ranks = preference(games)
    for i in sorted(range(len(games)), key=lambda i: ranks[i]):
        for h in counted(games[i][1]):
            key = play_key(h)
            if key is not None and key in played:
                continue  # a copy of a hand already counted
            if key is not None:
                played.add(key)
            mine[i].append(h)
    return [(record, game, hands) for (record, game), hands in zip(games, mine, strict=True) if hands]


def _printed(game: GameReplay) -> int:
    return sum(play_key(h) is not None for h in game.hands)


def _scope(
    sources: Iterable[str],
    players: Iterable[str],
    aliases: dict[str, str] | None,
    placeholders: Iterable[str],
) -> dict[str, Any]:
    """The report's filters and names, as :func:`loaded_games` takes them."""
    return {"sources": sources, "players": players, "aliases": aliases, "placeholders": placeholders}


def from_start(record: dict[str, Any], game: GameReplay) -> bool:
    """The game is recorded from 0-0 and names its first dealer (hand 0 replayed)."""
    initial = record.get("initial_score")
    origin = record.get("origin")
    cut = isinstance(origin, dict) and origin.get("from_start") is False
    return initial in (None, [0, 0]) and not cut and bool(game.hands) and game.hands[0].index == 0


def expected_summary(
    records: Iterable[dict[str, Any]],
    sources: Iterable[str] = (),
    players: Iterable[str] = (),
    aliases: dict[str, str] | None = None,
    placeholders: Iterable[str] = (),
) -> dict[str, Any]:
    """The contract's ``euchre`` object, computed hand by hand in plain Python."""
    records = list(records)
    scope = _scope(sources, players, aliases, placeholders)
    games = replays(records, **scope)
    hands = [h for _, _, mine in games for h in mine]
    distinct = distinct_games(records, **scope)
    counted_games = [(r, g) for r, g, _ in games if g.game_id in distinct]  # each game once
    complete = [g for _, g in counted_games if g.complete]
    first = [g for r, g in counted_games if g.complete and from_start(r, g)]
    first_dealer_k = sum(g.winner == g.hands[0].dealer % 2 for g in first)
    first_dealer_n = len(first)
    complete_games = len(complete)
    return {
        "games": len(counted_games),
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


def mean_ci(values: list[int] | list[float]) -> tuple[float | None, list[float | None]]:
    """The mean and its normal 95% interval, as the contract says (none below 2 values
    or without spread)."""
    count = len(values)
    mean = sum(values) / count if count else None
    ci: list[float | None] = [None, None]
    if count >= 2 and mean is not None:
        sd = math.sqrt(sum((e - mean) ** 2 for e in values) / (count - 1))
        if sd > 0:  # no interval without spread
            half = Z * sd / math.sqrt(count)
            ci = [mean - half, mean + half]
    return mean, ci


def _dealer(hands: list[HandResult], k: int, n: int) -> dict[str, Any]:
    dealer = [_team_points(h, h.dealer % 2) for h in hands]
    other = [_team_points(h, 1 - h.dealer % 2) for h in hands]
    edges = [d - o for d, o in zip(dealer, other, strict=True)]
    count = len(edges)
    mean, ci = mean_ci(edges)
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
    records: Iterable[dict[str, Any]],
    sources: Iterable[str] = (),
    players: Iterable[str] = (),
    aliases: dict[str, str] | None = None,
    placeholders: Iterable[str] = (),
) -> dict[str, Any]:
    """The extra keys: by preset, by trump, by trumps held, stuck dealer, per player."""
    records = list(records)
    scope = _scope(sources, players, aliases, placeholders)
    games = replays(records, **scope)
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
        "per_player": _per_player(games, distinct_games(records, **scope)),
    }


def _per_player(
    games: list[tuple[dict[str, Any], GameReplay, list[HandResult]]], distinct: set[str]
) -> dict[str, Any]:
    names = sorted({name for record, _, _ in games for name in record["players"] if name is not None})
    out: dict[str, Any] = {}
    for name in names:
        sat = [
            (seat, g, mine)
            for record, g, mine in games
            for seat, sitter in enumerate(record["players"])
            if sitter == name
        ]
        hands = [(seat, h) for seat, _, mine in sat for h in mine]
        made = [h for seat, h in hands if h.maker == seat]
        lone = [h for h in made if h.alone]
        defended = [h for seat, h in hands if h.maker_team != seat % 2]
        nets = [h.points[seat % 2] - h.points[1 - seat % 2] for seat, h in hands]
        finished = [(seat, g) for seat, g, _ in sat if g.complete and g.game_id in distinct]
        out[name] = {
            "hands": len(hands),
            "calls": len(made),
            "euchred_as_maker": _euchred(made),
            "alone_success": _wilson(sum(h.maker_tricks >= 3 for h in lone), len(lone)),
            "defence_euchres": _euchred(defended),
            "net_points_per_hand": sum(nets) / len(nets) if nets else None,
            "games_won": _wilson(sum(g.winner == seat % 2 for seat, g in finished), len(finished)),
        }
    return out
