"""Building the warehouse's frames from replayed games, one batch at a time.

A :class:`Batch` accumulates rows as tuples per table (cheap to append) and
turns them into polars frames, column by column, typed by the pandera models
of ``tricklog_schemas.tables``.  Nothing here touches the database.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from pipeline.games.euchre.cards import CARD_NAMES, SUITS, UNKNOWN
from pipeline.games.euchre.replay import GAME_FIELDS
from pipeline.violations import Violation

if TYPE_CHECKING:
    import polars as pl

    from pipeline.games.euchre.replay import GameReplay, HandResult


TABLES = ("games", "hands", "bids", "tricks", "plays", "violations", "quarantine")


def content_hash(record: dict[str, Any]) -> str:
    """SHA-256 of a record as canonical JSON (sorted keys): same game, same hash."""
    return hashlib.sha256(orjson.dumps(record, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _card(card: int | None) -> str | None:
    if card is None:
        return None
    return "??" if card == UNKNOWN else CARD_NAMES[card]


@dataclass(slots=True)
class Batch:
    """Rows waiting to be written, per table, and how many lines they account for."""

    run_id: int
    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=lambda: {t: [] for t in TABLES})

    def __len__(self) -> int:
        return len(self.rows["games"]) + len(self.rows["quarantine"])

    @property
    def violations(self) -> int:
        return len(self.rows["violations"])

    def extend(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Add rows built elsewhere (by another Batch, in a worker process)."""
        for table, more in rows.items():
            self.rows[table].extend(more)

    def add_game(
        self, record: dict[str, Any], replay: GameReplay, where: tuple[str, int | None], digest: str
    ) -> None:
        """A replayed game: its games row, its hands, bids, tricks and plays."""
        game_id = replay.game_id
        assert game_id is not None and replay.rules is not None
        source, started = record.get("source"), record.get("started_at")
        extra = {k: v for k, v in record.items() if k not in GAME_FIELDS}
        self.rows["games"].append(
            (
                game_id,
                self.run_id,
                where[0],
                where[1],
                digest,
                record.get("format"),
                source if isinstance(source, str) else None,
                started if isinstance(started, str) else None,
                replay.rules.preset,
                orjson.dumps(replay.rules.as_dict()).decode(),
                list(record["players"]),
                len(replay.hands),
                replay.score[0],
                replay.score[1],
                replay.winner,
                replay.complete,
                len(replay.violations),
                orjson.dumps(extra).decode() if extra else None,
            )
        )
        for hand in replay.hands:
            self._add_hand(game_id, hand)

    def _add_hand(self, game_id: str, hand: HandResult) -> None:
        n = hand.index
        self.rows["hands"].append(
            (
                game_id,
                n,
                hand.dealer,
                _card(hand.upcard),
                None if hand.trump is None else SUITS[hand.trump],
                hand.maker,
                hand.maker_team,
                hand.alone,
                hand.defender_alone,
                hand.round,
                _card(hand.discard),
                hand.maker_tricks,
                hand.points[0],
                hand.points[1],
                hand.score[0],
                hand.score[1],
                hand.thrown_in,
                hand.complete,
                hand.valid,
                hand.deal_known,
            )
        )
        bids, passes = self.rows["bids"], 0
        for b, bid in enumerate(hand.bids):
            bids.append((game_id, n, b, bid.seat, 1 if passes < 4 else 2, bid.call, bid.alone))
            passes += bid.call == "pass"
        self._add_tricks(game_id, hand)

    def _add_tricks(self, game_id: str, hand: HandResult) -> None:
        n, tricks, plays = hand.index, self.rows["tricks"], self.rows["plays"]
        leaders, winners = hand.leaders, hand.winners
        for t, trick in enumerate(hand.tricks):
            leader = leaders[t] if t < len(leaders) else (trick[0][0] if trick else None)
            winner = winners[t] if t < len(winners) else None
            tricks.append((game_id, n, t, leader, winner, None if winner is None else winner & 1, len(trick)))
            for p, (seat, card) in enumerate(trick):
                plays.append((game_id, n, t, p, seat, _card(card)))

    def add_violations(self, violations: list[Violation]) -> None:
        self.rows["violations"].extend(
            (self.run_id, v.game_id, v.file, v.line, v.hand, v.path, v.code, v.message, v.rule)
            for v in violations
        )

    def add_quarantine(
        self, where: tuple[str, str, int], game_id: str | None, reason: Violation, raw: bytes
    ) -> None:
        """A line that could not become a game: ``where`` is (file, file_sha256, line)."""
        file, sha, line = where
        text = raw.decode("utf-8", errors="replace")
        self.rows["quarantine"].append(
            (self.run_id, file, sha, line, game_id, reason.code, reason.message, raw, text)
        )

    def frames(self) -> dict[str, pl.DataFrame]:
        """Every table's rows as a typed polars frame (column lists, not row dicts)."""
        import polars as pl
        from tricklog_schemas.tables import MODELS, polars_schema

        out: dict[str, pl.DataFrame] = {}
        for table, model in MODELS.items():
            schema = polars_schema(model)
            rows = self.rows[table]
            # one comprehension per column: ten times faster than zip(*rows) on 200k rows
            columns = [[row[i] for row in rows] for i in range(len(schema))]
            out[table] = pl.DataFrame(
                {
                    name: pl.Series(name, col, dtype=dtype)
                    for (name, dtype), col in zip(schema.items(), columns, strict=True)
                }
            )
        return out
