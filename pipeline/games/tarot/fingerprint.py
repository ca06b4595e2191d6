"""A Tarot hand's fingerprint: its recorded play, so that copies of a deal are
recognised whatever file, format or game id they came in.

The fingerprint hashes the contract, the taker and every trick's plays (seat
and card), each seat counted from the dealer's (its number less the dealer's,
modulo 4: a copy whose exporter numbered the seats from another one is the
same hand).  The deal, the bidding before the last call and the écart are left out:
the tricks show every card played, and an import may have to infer the rest
(TarotClub saves neither hands nor bidding).  A thrown-in hand has no play:
its fingerprint is its deal, from the dealer round, when the deal was recorded
in full (copies of it are then counted once in the thrown-in figures).
Another hand with no card played has none, and is never matched.

>>> import json
>>> from pipeline.games.tarot.replay import replay_game, _DOCTEST_GAME
>>> record = json.loads(_DOCTEST_GAME)
>>> prints = hand_fingerprints(replay_game(record))
>>> len(prints), len(prints[0] or "")
(1, 32)
>>> copy = dict(record, game_id="another-id", players=["w", "x", "y", "z"])
>>> hand_fingerprints(replay_game(copy)) == prints
True
>>> dealt = {k: record["hands"][0][k] for k in ("dealer", "deal", "chien")}
>>> bids = [{"seat": (dealt["dealer"] + s) % 4, "call": "pass"} for s in (1, 2, 3, 4)]
>>> thrown = replay_game(dict(record, hands=[dict(dealt, bids=bids, thrown_in="all_passed")]))
>>> thrown.hands[0].thrown_in, thrown.violations, hand_fingerprints(thrown) != [None]
('all_passed', [], True)
>>> def renumbered(record, by):  # every seat's number moved on by ``by`` (the claims left out)
...     hand = {k: v for k, v in record["hands"][0].items() if k != "claimed"}
...     hand["dealer"] = (hand["dealer"] + by) % 4
...     hand["deal"] = [hand["deal"][(s - by) % 4] for s in range(4)]
...     hand["bids"] = [dict(b, seat=(b["seat"] + by) % 4) for b in hand["bids"]]
...     hand["tricks"] = [[[(s + by) % 4, c] for s, c in t] for t in hand["tricks"]]
...     return dict(record, hands=[hand])
>>> plain = hand_fingerprints(replay_game(renumbered(record, 0)))
>>> [hand_fingerprints(replay_game(renumbered(record, by))) == plain for by in (1, 2, 3)]
[True, True, True]
"""

from __future__ import annotations

import hashlib
from typing import Any

from pipeline.games.tarot.cards import NUM_CARDS, card_name
from pipeline.games.tarot.state import TarotHand

#: A play's text in the fingerprint, by seat and card: ``"0KH"``.
PLAY_TEXT: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"{seat}{card_name(card)}" for card in range(NUM_CARDS)) for seat in range(4)
)


def hand_fingerprint(hand: TarotHand) -> str | None:
    """The fingerprint of one replayed hand (None when no card was played)."""
    dealer = hand.dealer
    if any(trick.plays for trick in hand.tricks):
        tricks = "/".join(
            " ".join([PLAY_TEXT[(seat - dealer) & 3][card] for seat, card in t.plays]) for t in hand.tricks
        )
        taker = None if hand.taker is None else (hand.taker - dealer) & 3
        text = f"tarot|r|c{hand.contract}|k{taker}|t{tricks}"
    elif hand.thrown_in is not None and hand.deal_known:
        deal = [hand.deal[(dealer + k) & 3] for k in range(4)]
        text = f"tarot|thrown|r|h{' '.join(format(held, 'x') for held in deal)}"
    else:
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def hand_fingerprints(replay: Any) -> list[str | None]:
    """One fingerprint per hand of a replayed game, in order (the plugin's ``fingerprints``)."""
    return [hand_fingerprint(h) for h in replay.hands]
