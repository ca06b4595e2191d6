"""A Tarot hand's fingerprint: its recorded play, so that copies of a deal are
recognised whatever file, format or game id they came in.

The fingerprint hashes the contract, the taker and every trick's plays (seat
and card).  The deal, the bidding before the last call, the dealer and the
écart are left out: the tricks show every card played, and an import may have
to infer the rest (TarotClub saves neither hands nor bidding).  A thrown-in
hand has no play: its fingerprint is its dealer and its deal, when the deal
was recorded in full (copies of it are then counted once in the thrown-in
figures).  Another hand with no card played has none, and is never matched.

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
    if any(trick.plays for trick in hand.tricks):
        tricks = "/".join(" ".join([PLAY_TEXT[seat][card] for seat, card in t.plays]) for t in hand.tricks)
        text = f"tarot|c{hand.contract}|k{hand.taker}|t{tricks}"
    elif hand.thrown_in is not None and hand.deal_known:
        text = f"tarot|thrown|d{hand.dealer}|h{' '.join(format(held, 'x') for held in hand.deal)}"
    else:
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def hand_fingerprints(replay: Any) -> list[str | None]:
    """One fingerprint per hand of a replayed game, in order (the plugin's ``fingerprints``)."""
    return [hand_fingerprint(h) for h in replay.hands]
