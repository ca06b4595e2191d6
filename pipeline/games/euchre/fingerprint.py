"""A Euchre hand's fingerprint: its recorded play, so that copies of a hand are
recognised whatever file, format or game id they came in.

The fingerprint hashes what was played: the dealer, the upcard, every call in
order (seat, call, alone), and every trick's plays (seat and card).  The deal
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
    plays = [f"{seat}{_card(card)}" for trick in hand.tricks for seat, card in trick]
    if not plays:
        return None
    calls = ",".join(f"{b.seat}{b.call}{'a' if b.alone else ''}" for b in hand.bids)
    tricks = "/".join(" ".join(f"{seat}{_card(card)}" for seat, card in trick) for trick in hand.tricks)
    text = f"euchre|d{hand.dealer}|u{_card(hand.upcard)}|b{calls}|t{tricks}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def hand_fingerprints(replay: Any) -> list[str | None]:
    """One fingerprint per hand of a replayed game, in order (the plugin's ``fingerprints``)."""
    return [hand_fingerprint(h) for h in replay.hands]
