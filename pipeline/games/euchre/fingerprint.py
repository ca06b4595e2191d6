"""A Euchre hand's fingerprint: its recorded play, so that copies of a hand are
recognised whatever file, format or game id they came in.

The fingerprint hashes what was played: the upcard, every call in order
(seat, call, alone), and every trick's plays (seat and card), each seat counted
from the dealer (0 the dealer, 1 the seat on its left...): a copy whose exporter
numbered the seats from another one is the same hand.  The deal
and the dealer's discard are left out: in a played hand the tricks show every
card the active seats held, and copies of one hand often differ only in
whether the deal or the discard was written down (an EGN file, which seldom
says the discard, and its euchre/1 conversion; an annotated copy).  A hand with no card played has no
fingerprint: two passed-out deals are never called copies.

>>> import json
>>> from pipeline.games.euchre.replay import replay_game, _DOCTEST_GAME
>>> record = json.loads(_DOCTEST_GAME)
>>> prints = hand_fingerprints(replay_game(record))
>>> len(prints), len(prints[0] or "")
(1, 32)
>>> copy = dict(record, game_id="another-id", players=["w", "x", "y", "z"])
>>> hand_fingerprints(replay_game(copy)) == prints
True
>>> copy["hands"] = [dict(h, discard="??") for h in record["hands"]]  # the discard not known
>>> hand_fingerprints(replay_game(copy)) == prints
True
>>> def renumbered(record, by):  # every seat's number moved on by ``by``
...     hand = record["hands"][0]
...     deal = [hand["deal"][(s - by) % 4] for s in range(4)]
...     bids = [dict(b, seat=(b["seat"] + by) % 4) for b in hand["bids"]]
...     tricks = [[[(s + by) % 4, c] for s, c in t] for t in hand["tricks"]]
...     moved = dict(hand, dealer=(hand["dealer"] + by) % 4, deal=deal, bids=bids, tricks=tricks)
...     return dict(record, hands=[moved])
>>> [hand_fingerprints(replay_game(renumbered(record, by))) == prints for by in (1, 2, 3)]
[True, True, True]
"""

from __future__ import annotations

import hashlib
from typing import Any

from pipeline.games.euchre.cards import CARD_NAMES, UNKNOWN
from pipeline.games.euchre.state import HandResult


def _card(card: int | None) -> str:
    return "-" if card is None or card == UNKNOWN else CARD_NAMES[card]


def hand_fingerprint(hand: HandResult) -> str | None:
    """The fingerprint of one replayed hand (None when no card was played)."""
    if not any(hand.tricks):
        return None
    dealer = hand.dealer

    def seat_of(seat: int) -> int:
        return (seat - dealer) & 3

    calls = ",".join(f"{seat_of(b.seat)}{b.call}{'a' if b.alone else ''}" for b in hand.bids)
    tricks = "/".join(
        " ".join(f"{seat_of(seat)}{_card(card)}" for seat, card in trick) for trick in hand.tricks
    )
    text = f"euchre|r|u{_card(hand.upcard)}|b{calls}|t{tricks}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def hand_fingerprints(replay: Any) -> list[str | None]:
    """One fingerprint per hand of a replayed game, in order (the plugin's ``fingerprints``)."""
    return [hand_fingerprint(h) for h in replay.hands]
