"""High card: a tiny game that exists only in the tests, shipped as a third-party
tricklog plugin would be (its own package, found through the ``tricklog.games``
entry point).  Two players, cards 1-6, three each; each trick the leader plays
first, the higher card wins and its player leads next.

A record: ``{"format": "highcard/1", "game_id": "h1", "players": ["ann", "bob"],
"hands": [{"deal": [[6, 2, 3], [1, 4, 5]], "tricks": [[[0, 6], [1, 1]], ...],
"winners": [0, ...]}]}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.games import Game
from pipeline.violations import Violation
from pipeline.warehouse.tables import GameFacts, GameTables, Rows

CODES = {
    "schema": "a field is missing or of the wrong type",
    "not_held": "a card played that the player did not hold",
    "play_turn": "a player played out of turn",
    "trick_winner": "a claimed winner differs from the replay",
}
FIELDS = frozenset({"format", "game_id", "players", "hands", "source", "started_at"})


@dataclass(slots=True)
class Hand:
    index: int
    won: list[int] = field(default_factory=lambda: [0, 0])
    complete: bool = False
    valid: bool = True
    deal_known: bool = True


@dataclass(slots=True)
class Replay:
    game_id: str | None
    violations: list[Violation] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    unknown_fields: list[str] = field(default_factory=list)


def replay(record: dict[str, Any]) -> Replay:
    """Replay a high-card game: who held what, whose turn, who won."""
    game_id = record.get("game_id") if isinstance(record.get("game_id"), str) else None
    out = Replay(game_id, unknown_fields=[k for k in record if k not in FIELDS])
    players, hands = record.get("players"), record.get("hands")
    if not (isinstance(players, list) and len(players) == 2):
        out.violations.append(Violation("schema", "players must be 2 names", game_id, None, "players"))
    if not isinstance(hands, list):
        out.violations.append(Violation("schema", "hands must be a list", game_id, None, "hands"))
        return out
    for h, hand in enumerate(hands):
        out.hands.append(_replay_hand(out, h, hand if isinstance(hand, dict) else {}))
    named = {v.hand for v in out.violations}
    for hand_result in out.hands:
        hand_result.valid = hand_result.index not in named
    return out


def _replay_hand(out: Replay, h: int, hand: dict[str, Any]) -> Hand:
    result = Hand(h)
    held = [set(cards) for cards in hand.get("deal", [[], []])]
    leader = 0
    tricks = hand.get("tricks", [])
    claimed = hand.get("winners", [])
    for t, trick in enumerate(tricks):
        for k, (seat, card) in enumerate(trick):
            path = f"hands[{h}].tricks[{t}][{k}]"
            if seat != (leader + k) % 2:
                message = f"hand {h}, trick {t}: player {seat} played out of turn"
                out.violations.append(
                    Violation("play_turn", message, out.game_id, h, path, trick=t, seat=seat)
                )
            if card not in held[seat]:
                message = f"hand {h}, trick {t}: player {seat} played {card}, which it did not hold"
                out.violations.append(
                    Violation("not_held", message, out.game_id, h, path, trick=t, seat=seat)
                )
            held[seat].discard(card)
        winner = max(trick, key=lambda play: play[1])[0]
        if t < len(claimed) and claimed[t] != winner:
            message = f"hand {h}, trick {t}: the log says player {claimed[t]} won, the replay gives {winner}"
            out.violations.append(
                Violation("trick_winner", message, out.game_id, h, f"hands[{h}].winners[{t}]", trick=t)
            )
        result.won[winner] += 1
        leader = winner
    result.complete = len(tricks) == 3
    return result


def _rows(record: dict[str, Any], game: Replay, invalid: frozenset[int]) -> Rows:
    hands = [
        (game.game_id, h.index, h.won[0], h.won[1], h.complete, h.index not in invalid, None)
        for h in game.hands
    ]
    return {"hands": hands}


def _facts(game: Replay) -> GameFacts:
    totals = [sum(h.won[s] for h in game.hands) for s in (0, 1)]
    return GameFacts("standard", {"preset": "standard"}, totals, bool(game.hands))


def _tables() -> GameTables:
    from tricklog_highcard.tables import Hands

    ddl = (
        "create schema if not exists highcard; create table if not exists highcard.hands ("
        "game_id varchar not null, hand_no integer not null, won0 tinyint not null, won1 tinyint not null, "
        "complete boolean not null, valid boolean not null, thrown_in varchar)"
    )
    return GameTables("highcard", ddl, {"hands": Hands}, _rows, _facts, FIELDS)


def _report() -> Any:
    from pipeline.report.game import GameReport, Section

    def summary(tables: dict[str, Any]) -> dict[str, Any]:
        row = tables["highcard_overview"].one()
        return {
            "games": row["games"],
            "hands": row["hands"],
            "first_player_tricks": row["first_player_tricks"],
        }

    return GameReport(
        key="highcard",
        title="High card",
        package="tricklog_highcard.reports",
        reports=("highcard_overview",),
        macro_files=(),
        sections=(Section("highcard", "High card: tricks won", tables=[("highcard_overview", "All hands")]),),
        summary=summary,
        charts=lambda tables, out: {},
        findings=lambda s: {"highcard": [f"{s['hands']} hands of high card."]},
        headline=lambda s: f"{s['hands']} hands of {s['games']} high-card games counted",
    )


GAME = Game(
    name="highcard",
    record_format="highcard/1",
    codes=CODES,
    replay=replay,
    tables=_tables,
    report=_report,
)
