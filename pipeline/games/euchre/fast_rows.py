"""The warehouse rows of the games the fast path clears, straight from its arrays.

:func:`pipeline.games.euchre.fast.check_batch` leaves each cleared hand as a
row of the layout (``hands``) and a row of what the kernel found of it
(``results``).  Here those arrays become the Euchre tables (``games``,
``hands``, ``bids``, ``tricks``, ``plays``, ``deals``) as Arrow columns, by
numpy index arithmetic -- no Python object per hand or per row -- with the
values :func:`pipeline.games.euchre.tables.table_rows` (and ``deal_rows``)
give the replay of the same game: ``tests/test_fast_rows.py`` loads games
both ways and compares every table.

Each hand's fingerprint is :func:`~pipeline.games.euchre.fingerprint.hand_fingerprint`'s:
a compiled kernel (:mod:`fast_rows_kernel`) writes the text of every played
hand of the batch into one buffer, and only the SHA-256 of each slice is
taken in Python.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pipeline.games import ClearedReplay, cleared
from pipeline.games.euchre.cards import CARD_NAMES, SUITS
from pipeline.games.euchre.fast import (
    BID_ALONE,
    BID_CALL,
    BID_SEAT,
    DEAL,
    DEALER,
    G_FIRST,
    G_HANDS,
    G_RULES,
    NBIDS,
    O_ALONE,
    O_COMPLETE,
    O_DEFENDER,
    O_DISCARD,
    O_LEADERS,
    O_MAKER,
    O_MAKER_TRICKS,
    O_NTRICKS,
    O_P0,
    O_P1,
    O_ROUND,
    O_S0,
    O_THROWN,
    O_TRUMP,
    O_WINNERS,
    PLAY_CARD,
    PLAY_SEAT,
    TRICK_LEN,
    UPCARD,
    Checked,
)
from pipeline.games.euchre.rules import Call, ThrowIn
from pipeline.warehouse.tables import RECORD, ClearedRows

Ints = npt.NDArray[np.int64]
#: Call code (``fast.CALL_CODES``) -> its spelling in ``euchre.bids``.
CALL_NAMES = [str(c) for c in (Call.PASS, Call.ORDER, Call.CLUBS, Call.DIAMONDS, Call.HEARTS, Call.SPADES)]


@dataclass(frozen=True, slots=True)
class _Cleared:
    """The hands of a batch's cleared games, in game order: their rows of the layout
    and of the results, the cleared game each belongs to and its number in it."""

    hands: Ints
    results: Ints
    #: For each hand, the index of its game among the cleared ones.
    game: Ints
    hand_no: Ints
    #: For each cleared game, its number of hands.
    counts: Ints


def _spans(starts: Ints, counts: Ints) -> tuple[Ints, Ints]:
    """The indices ``starts[i] .. starts[i] + counts[i] - 1`` of every span, in order,
    and for each the span it belongs to."""
    span = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    offsets = np.cumsum(counts) - counts
    within = np.arange(int(counts.sum()), dtype=np.int64) - offsets[span]
    return starts[span] + within, span


def _cleared(checked: Checked) -> _Cleared:
    games = checked.games[checked.game_rows]
    counts = games[:, G_HANDS]
    index, game = _spans(games[:, G_FIRST], counts)
    hand_no = index - games[game, G_FIRST]
    return _Cleared(checked.hands[index], checked.results[index], game, hand_no, counts)


def _fingerprints(cleared: _Cleared) -> list[str | None]:
    """Each cleared hand's fingerprint (None: no card played)."""
    from pipeline.games.euchre.fast_rows_kernel import texts

    played = np.flatnonzero(cleared.results[:, O_NTRICKS] > 0)
    data, ends = texts(cleared.hands, played)
    out: list[str | None] = [None] * len(cleared.hands)
    start = 0
    sha256 = hashlib.sha256
    for h, end in zip(played.tolist(), ends, strict=True):
        out[h] = sha256(data[start:end]).hexdigest()[:32]
        start = end
    return out


def cleared_fingerprints(checked: Checked) -> list[list[str | None]]:
    """For each cleared game (in the order of ``checked.records``), its hands' fingerprints."""
    cleared = _cleared(checked)
    prints = _fingerprints(cleared)
    ends = np.cumsum(cleared.counts)
    return [prints[a:b] for a, b in zip((ends - cleared.counts).tolist(), ends.tolist(), strict=True)]


def cleared_replays(checked: Checked, game_ids: Sequence[str], size: int) -> list[ClearedReplay | None]:
    """For each of a batch's ``size`` records, the word that the game is cleared,
    with its hands' fingerprints (``game_ids``: of the cleared games, in order), or None."""
    out: list[ClearedReplay | None] = [None] * size
    for i, game_id, prints in zip(
        checked.records.tolist(), game_ids, cleared_fingerprints(checked), strict=True
    ):
        out[i] = cleared(game_id, len(prints), prints)
    return out


def cleared_rows(records: Sequence[dict[str, Any]], checked: Checked) -> ClearedRows:
    """The Euchre tables' rows of the games ``checked`` cleared among ``records``."""
    import pyarrow as pa

    from pipeline.games.euchre.tables import facts_of, from_start

    cleared = _cleared(checked)
    chosen = checked.records.tolist()
    ids = pa.array([records[i]["game_id"] for i in chosen], pa.large_string())
    rules = [checked.rules[r] for r in checked.games[checked.game_rows, G_RULES].tolist()]
    last = np.cumsum(cleared.counts) - 1
    scores = cleared.results[last][:, O_S0 : O_S0 + 2]
    targets = np.array([r.target for r in rules], dtype=np.int64)
    reached = cleared.results[:, O_S0 : O_S0 + 2].max(axis=1) >= targets[cleared.game]
    complete = np.maximum.reduceat(reached, np.cumsum(cleared.counts) - cleared.counts)
    winner = np.where(scores[:, 0] > scores[:, 1], 0, 1)
    records_of = np.asarray(checked.records, dtype=np.int64)
    starts = [from_start(records[i]) for i in chosen]
    tables = {
        "games": _games_table(ids, scores, winner, complete, targets, starts, records_of),
        **_hand_tables(cleared, ids, records_of),
    }
    facts = [
        facts_of(r, (s0, s1), bool(c))
        for r, (s0, s1), c in zip(rules, scores.tolist(), complete.tolist(), strict=True)
    ]
    return ClearedRows(chosen, facts, cleared.counts.tolist(), tables)


def _games_table(
    ids: Any, scores: Ints, winner: Ints, complete: Any, targets: Ints, starts: list[bool], records: Ints
) -> Any:
    import pyarrow as pa

    return _typed(
        "games",
        {
            "game_id": ids,
            "team0_score": scores[:, 0],
            "team1_score": scores[:, 1],
            "winner_team": pa.array(winner, pa.int8(), mask=~complete.astype(bool)),
            "target": targets,
            "from_start": pa.array(starts, pa.bool_()),
        },
        records,
    )


def _hand_tables(cleared: _Cleared, ids: Any, records: Ints) -> dict[str, Any]:
    """The hands, bids, tricks, plays and deals of the cleared games."""
    hand_ids = ids.take(cleared.game)
    hand_records = records[cleared.game]
    return {
        "hands": _hands_table(cleared, hand_ids, hand_records),
        "bids": _bids_table(cleared, hand_ids, hand_records),
        **_play_tables(cleared, hand_ids, hand_records),
        "deals": _deals_table(cleared, hand_ids, hand_records),
    }


def _names(values: Ints, names: Sequence[str]) -> Any:
    """``names[value]`` for each value; null where the value is negative."""
    import pyarrow as pa

    indices = pa.array(np.maximum(values, 0), pa.int64(), mask=values < 0)
    return pa.array(names, pa.large_string()).take(indices)


def _or_null(values: Ints, null: Any) -> Any:
    """An int8 column, null where ``null`` holds."""
    import pyarrow as pa

    return pa.array(values, pa.int8(), mask=null)


def _hands_table(cleared: _Cleared, ids: Any, records: Ints) -> Any:
    import pyarrow as pa

    row, out = cleared.hands, cleared.results
    maker = out[:, O_MAKER]
    n = len(row)
    thrown = out[:, O_THROWN] != 0
    return _typed(
        "hands",
        {
            "game_id": ids,
            "hand_no": cleared.hand_no,
            "dealer": row[:, DEALER],
            "upcard": _names(row[:, UPCARD], CARD_NAMES),
            "trump": _names(out[:, O_TRUMP], SUITS),
            "maker_seat": _or_null(maker, maker < 0),
            "maker_team": _or_null(maker & 1, maker < 0),
            "alone": out[:, O_ALONE] != 0,
            "defender_alone": _or_null(out[:, O_DEFENDER], out[:, O_DEFENDER] < 0),
            "round": _or_null(out[:, O_ROUND], out[:, O_ROUND] == 0),
            "discard": _names(out[:, O_DISCARD], CARD_NAMES),
            "maker_tricks": out[:, O_MAKER_TRICKS],
            "team0_points": out[:, O_P0],
            "team1_points": out[:, O_P1],
            "team0_score": out[:, O_S0],
            "team1_score": out[:, O_S0 + 1],
            "thrown_in": _names(np.where(thrown, 0, -1), [str(ThrowIn.ALL_PASSED)]),
            "complete": out[:, O_COMPLETE] != 0,
            # cleared: no violation names the hand, and its deal is in the record
            "valid": np.ones(n, dtype=bool),
            "deal_known": np.ones(n, dtype=bool),
            "fingerprint": pa.array(_fingerprints(cleared), pa.large_string()),
        },
        records,
    )


def _bids_table(cleared: _Cleared, ids: Any, records: Ints) -> Any:
    row = cleared.hands
    j = np.arange(8)
    spoken = j[None, :] < row[:, NBIDS][:, None]
    calls = row[:, BID_CALL : BID_CALL + 8]
    passes = np.cumsum((calls == 0) & spoken, axis=1)
    before = passes - ((calls == 0) & spoken)  # passes before each bid
    hand, bid = np.nonzero(spoken)
    return _typed(
        "bids",
        {
            "game_id": ids.take(hand),
            "hand_no": cleared.hand_no[hand],
            "bid_no": bid,
            "seat": row[hand, BID_SEAT + bid],
            "round": np.where(before[hand, bid] < 4, 1, 2),
            "call": _names(calls[hand, bid], CALL_NAMES),
            "alone": row[hand, BID_ALONE + bid] != 0,
        },
        records[hand],
    )


def _play_tables(cleared: _Cleared, ids: Any, records: Ints) -> dict[str, Any]:
    """The tricks and the plays (a lone hand's tricks are padded with seat -1: left out)."""
    row, out = cleared.hands, cleared.results
    played = out[:, O_NTRICKS] > 0
    hand, trick = np.nonzero(np.repeat(played[:, None], 5, axis=1))
    winners = out[hand, O_WINNERS + trick]
    tricks = _typed(
        "tricks",
        {
            "game_id": ids.take(hand),
            "hand_no": cleared.hand_no[hand],
            "trick_no": trick,
            "leader": out[hand, O_LEADERS + trick],
            "winner": winners,
            "winner_team": winners & 1,
            "cards": row[hand, TRICK_LEN + trick],
        },
        records[hand],
    )
    seats = row[:, PLAY_SEAT : PLAY_SEAT + 20].reshape(-1, 5, 4)
    hand, trick, k = np.nonzero((seats >= 0) & played[:, None, None])
    plays = _typed(
        "plays",
        {
            "game_id": ids.take(hand),
            "hand_no": cleared.hand_no[hand],
            "trick_no": trick,
            "play_no": k,
            "seat": seats[hand, trick, k],
            "card": _names(row[hand, PLAY_CARD + 4 * trick + k], CARD_NAMES),
        },
        records[hand],
    )
    return {"tricks": tricks, "plays": plays}


def _deals_table(cleared: _Cleared, ids: Any, records: Ints) -> Any:
    """Four rows a hand: each seat's five cards, in the record's order."""
    import pyarrow as pa

    n = len(cleared.hands)
    hand = np.repeat(np.arange(n), 4)
    cards = _names(cleared.hands[:, DEAL : DEAL + 20].reshape(-1), CARD_NAMES)
    offsets = pa.array(np.arange(0, 20 * n + 1, 5), pa.int64())
    return _typed(
        "deals",
        {
            "game_id": ids.take(hand),
            "hand_no": cleared.hand_no[hand],
            "seat": np.tile(np.arange(4), n),
            "cards": pa.LargeListArray.from_arrays(offsets, cards),
        },
        records[hand],
    )


def _typed(table: str, columns: dict[str, Any], records: Ints) -> Any:
    """The columns as an Arrow table of exactly the types :meth:`Batch.frames` gives
    the model's columns, with the :data:`RECORD` column last."""
    import pyarrow as pa

    from pipeline.games.euchre.deals import Deals
    from pipeline.games.euchre.tables import MODELS
    from pipeline.warehouse.tables import arrow_schema

    schema = arrow_schema(Deals if table == "deals" else MODELS[table])
    arrays = [_array(columns[field.name], field.type) for field in schema]
    arrays.append(pa.array(records, pa.int64()))
    return pa.Table.from_arrays(arrays, schema=schema.append(pa.field(RECORD, pa.int64())))


def _array(values: Any, kind: Any) -> Any:
    import pyarrow as pa

    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values if values.type == kind else values.cast(kind)
    return pa.array(values).cast(kind)
