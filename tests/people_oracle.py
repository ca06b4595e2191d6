"""Plain-Python recomputation of the report's people-and-pairs and situations figures
(ratings, partnerships, pair against pair, score situations, win probability by
score, bidding, weeks and files), over ``report_oracle.replays``: no SQL, and
openskill called directly for the ratings."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from report_oracle import _wilson, distinct_games, mean_ci, replays

from pipeline.games.euchre.cards import CARD_NAMES
from pipeline.games.euchre.replay import GameReplay, HandResult

Game = tuple[dict[str, Any], GameReplay, list[HandResult]]
COLOUR = {"C": "black", "S": "black", "D": "red", "H": "red"}
POSITIONS = ("dealer", "left", "partner", "right")


def _when(record: dict[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(record["started_at"])
    except (KeyError, TypeError, ValueError):
        return None


def rated_games(records: list[Any]) -> list[Game]:
    """Complete games with four different people, each game once, by date (undated
    last), then load order."""
    distinct = distinct_games(records)
    games = [
        (i, g)
        for i, g in enumerate(replays(records))
        if g[1].complete
        and g[1].winner is not None
        and None not in g[0]["players"]
        and g[1].game_id in distinct
    ]
    games = [(i, g) for i, g in games if len(set(g[0]["players"])) == 4]
    far = datetime.max.replace(tzinfo=UTC)
    games.sort(key=lambda ig: (_when(ig[1][0]) is None, _when(ig[1][0]) or far, ig[0]))
    return [g for _, g in games]


def expected_ratings(records: list[Any]) -> dict[str, Any]:
    """``ratings.players`` and ``ratings.partnerships``, each game rated in turn with openskill."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    players: dict[str, Any] = {}
    pairs: dict[str, Any] = {}
    played: dict[str, int] = defaultdict(int)
    for record, game, _ in rated_games(records):
        names = record["players"]
        teams = [[names[0], names[2]], [names[1], names[3]]]
        ranks = [0.0, 1.0] if game.winner == 0 else [1.0, 0.0]
        after = model.rate([[players.get(n) or model.rating() for n in t] for t in teams], ranks=ranks)
        for team, rated in zip(teams, after, strict=True):
            players.update(zip(team, rated, strict=True))
        keys = [" & ".join(sorted(t)) for t in teams]
        after = model.rate([[pairs.get(k) or model.rating()] for k in keys], ranks=ranks)
        for key, (rated,) in zip(keys, after, strict=True):
            pairs[key] = rated
        for name in [*names, *keys]:
            played[name] += 1

    def row(name: str, r: Any) -> dict[str, Any]:
        z = 1.959963984540054
        return {
            "games": played[name],
            "mu": r.mu,
            "sigma": r.sigma,
            "ci95": [r.mu - z * r.sigma, r.mu + z * r.sigma],
            "ordinal": r.mu - 3 * r.sigma,
            "small": played[name] < 30,
        }

    return {
        "players": {n: row(n, r) for n, r in players.items()},
        "partnerships": {n: row(n, r) for n, r in pairs.items()},
    }


def _pair(names: list[str | None], team: int) -> tuple[str, str] | None:
    a, b = names[team], names[team + 2]
    if a is None or b is None or a == b:
        return None
    return (a, b) if a < b else (b, a)


def expected_partnerships(records: list[Any]) -> dict[str, Any]:
    """``partnerships``: hands and games together, and won."""
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    distinct = distinct_games(records)
    for record, game, mine in replays(records):
        for team in (0, 1):
            pair = _pair(record["players"], team)
            if pair is None:
                continue
            t = tally[pair]
            t[0] += game.game_id in distinct
            t[1] += len(mine)
            t[2] += sum(h.points[team] > h.points[1 - team] for h in mine)
            if game.complete and game.game_id in distinct:
                t[3] += 1
                t[4] += game.winner == team
    return {
        " & ".join(p): {
            "games": t[0],
            "hands": t[1],
            "hands_won": _wilson(t[2], t[1]),
            "games_won": _wilson(t[4], t[3]),
            "small": t[1] < 30,
        }
        for p, t in tally.items()
    }


def expected_head_to_head(records: list[Any]) -> dict[str, Any]:
    """``head_to_head``: pair a (the first in alphabetical order) against pair b."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    distinct = distinct_games(records)
    for record, game, mine in replays(records):
        names = record["players"]
        if None in names or len(set(names)) != 4:
            continue
        pairs = [tuple(sorted([names[0], names[2]])), tuple(sorted([names[1], names[3]]))]
        a = 0 if pairs[0] < pairs[1] else 1
        t = tally[f"{' & '.join(pairs[a])} vs {' & '.join(pairs[1 - a])}"]
        t[0] += len(mine)
        t[1] += sum(h.points[a] > h.points[1 - a] for h in mine)
        if game.complete and game.game_id in distinct:
            t[2] += 1
            t[3] += game.winner == a
    return {
        key: {
            "hands": t[0],
            "hands_won_by_a": _wilson(t[1], t[0]),
            "games_won_by_a": _wilson(t[3], t[2]),
            "small": t[0] < 30,
        }
        for key, t in tally.items()
    }


def _start(h: HandResult, team: int) -> int:
    return h.score[team] - h.points[team]


def _edge(h: HandResult) -> int:
    return h.points[h.dealer % 2] - h.points[1 - h.dealer % 2]


def _net(h: HandResult) -> int:
    m = h.maker_team or 0
    return h.points[m] - h.points[1 - m]


def _cut(hands: list[HandResult], stem: str, value: Callable[[HandResult], int]) -> dict[str, Any]:
    mean, ci = mean_ci([value(h) for h in hands])
    return {
        "hands": len(hands),
        "euchre_rate": _wilson(sum(h.maker_tricks < 3 for h in hands), len(hands)),
        stem: mean,
        f"{stem}_ci95": ci,
    }


def _situations(h: HandResult, target: int) -> list[str]:
    m = h.maker_team or 0
    maker, defender = _start(h, m), _start(h, 1 - m)
    dealer, other = _start(h, h.dealer % 2), _start(h, 1 - h.dealer % 2)
    out = ["makers at 9 (one point from the target)"] if maker == target - 1 else []
    if sorted([maker, defender]) == [target - 2, target - 1]:
        out.append("score 8-9 or 9-8")
    side = {-1: "behind", 0: "level", 1: "ahead"}
    out.append(f"makers {side[(maker > defender) - (maker < defender)]}")
    out.append(f"dealer's team {side[(dealer > other) - (dealer < other)]}")
    return out


def expected_situations(records: list[Any]) -> dict[str, Any]:
    """``by_score_situation``: euchre rate and the dealer's edge by the score at the hand's start."""
    groups: dict[str, list[HandResult]] = defaultdict(list)
    for _, game, mine in replays(records):
        assert game.rules is not None
        for h in mine:
            for s in _situations(h, game.rules.target):
                groups[s].append(h)
    return {s: _cut(hands, "edge", _edge) for s, hands in groups.items()}


def expected_win_probability(records: list[Any]) -> dict[str, Any]:
    """``win_probability``: games won from each score, both sides (level: the dealer's side)."""
    cells: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _, game, mine in replays(records):
        if not game.complete or game.winner is None:
            continue
        for h in mine:
            for team in (0, 1):
                mine_, theirs = _start(h, team), _start(h, 1 - team)
                if mine_ == theirs and team != h.dealer % 2:
                    continue
                cell = cells[f"{mine_}-{theirs}"]
                cell[0] += game.winner == team
                cell[1] += 1
    return {key: _wilson(k, n) for key, (k, n) in cells.items()}


def _calls(h: HandResult) -> list[str]:
    assert h.maker is not None and h.trump is not None
    upcard, trump = CARD_NAMES[h.upcard], "CDHS"[h.trump]
    position = POSITIONS[(h.maker - h.dealer) % 4]
    out = []
    if h.round == 1:
        out.append(
            {
                "dealer": "round 1: the dealer picks up",
                "partner": "round 1: the partner orders the dealer up",
            }.get(position, "round 1: an opponent orders the dealer up")
        )
    elif COLOUR.get(upcard[1]) == COLOUR[trump] and trump != upcard[1]:
        out.append("round 2: next (the other suit of the upcard's colour)")
    elif upcard[1] in COLOUR and COLOUR[upcard[1]] != COLOUR[trump]:
        out.append("round 2: a suit of the other colour")
    if upcard[0] == "J" and upcard[1] in COLOUR:
        out += [
            "a jack turned up: all hands",
            f"a jack turned up: {'ordered up' if h.round == 1 else 'turned down'}",
        ]
    return out


def expected_bidding(records: list[Any]) -> dict[str, Any]:
    """``bidding``: euchre rate and the makers' net points by the kind of call."""
    groups: dict[str, list[HandResult]] = defaultdict(list)
    for _, _, mine in replays(records):
        for h in mine:
            for call in _calls(h):
                groups[call].append(h)
    return {call: _cut(hands, "net_points", _net) for call, hands in groups.items()}


def expected_periods(records: list[Any], file: str) -> dict[str, Any]:
    """``by_week`` (ISO week of started_at in UTC, "no date" without one) and ``by_file``."""
    weeks: dict[str, list[tuple[str, HandResult]]] = defaultdict(list)
    distinct = distinct_games(records)
    for record, game, mine in replays(records):
        when = _when(record)
        week = "no date" if when is None else "{}-W{:02d}".format(*when.astimezone(UTC).isocalendar()[:2])
        weeks[week] += [(str(game.game_id), h) for h in mine]
    files = {file: [h for hands in weeks.values() for h in hands]}

    def period(hands: list[tuple[str, HandResult]]) -> dict[str, Any]:
        plain = [h for _, h in hands]
        lone = sum(h.alone for h in plain)
        games = len({g for g, _ in hands if g in distinct})
        return {"games": games, "lone_attempts": lone, **_cut(plain, "edge", _edge)}

    return {
        "by_week": {w: period(hands) for w, hands in weeks.items()},
        "by_file": {f: period(hands) for f, hands in files.items()},
    }
