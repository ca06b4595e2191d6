"""The deal, and the hands thrown in before or during the bidding.

- Four hands of 18 cards and a chien of 6: the 78 cards, each once.
- Petit sec: a seat whose only trump is the Petit, without the Excuse,
  throws the hand in before any call (FFT; ``rules.petit_sec``).
- Four passes throw the hand in (see :mod:`bidding`).
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.cards import EXCUSE_BIT, PETIT, TRUMPS, card_name, count, parse_card
from pipeline.games.tarot.state import HandState

HAND_SIZE = 18
CHIEN_SIZE = 6
THROW_IN_REASONS = ("all_passed", "petit_sec")


def deal_phase(state: HandState, hand: dict[str, Any]) -> None:
    """Read the four hands and the chien; report bad tokens and a wrong deck."""
    result = state.result
    seen: dict[int, str] = {}
    deal = hand.get("deal")
    full = True
    if not (isinstance(deal, list) and len(deal) == 4 and all(isinstance(h, list) for h in deal)):
        state.add("schema", ".deal", "deal must be 4 lists of 18 cards, indexed by seat")
        full = False
    else:
        for seat, cards in enumerate(deal):
            mask = _read_cards(state, cards, f".deal[{seat}]", f"seat {seat}", seen, seat)
            result.deal[seat] = mask
            state.held[seat] = mask
            if count(mask) == HAND_SIZE and len(cards) == HAND_SIZE:
                state.sure[seat] = True
            else:
                full = False
                if len(cards) != HAND_SIZE:
                    state.add(
                        "deck",
                        f".deal[{seat}]",
                        f"seat {seat} was dealt {len(cards)} cards; each seat gets {HAND_SIZE}",
                        seat=seat,
                    )
    chien = hand.get("chien")
    if not isinstance(chien, list):
        state.add("schema", ".chien", f"chien must be a list of {CHIEN_SIZE} cards")
        full = False
    else:
        mask = _read_cards(state, chien, ".chien", "the chien", seen)
        result.chien = [c for c in _in_order(chien) if mask >> c & 1]
        state.taken |= mask
        if len(chien) != CHIEN_SIZE:
            state.add("deck", ".chien", f"the chien has {len(chien)} cards; it has {CHIEN_SIZE}")
            full = False
        elif count(mask) != CHIEN_SIZE:
            full = False
    result.deal_known = full and len(seen) == 78


def _in_order(tokens: list[Any]) -> list[int]:
    return [c for c in (parse_card(t) for t in tokens) if c is not None]


def _read_cards(
    state: HandState, tokens: list[Any], path: str, where: str, seen: dict[int, str], seat: int | None = None
) -> int:
    """A list of card tokens as a mask; a bad token or a card seen before is reported."""
    mask = 0
    for k, token in enumerate(tokens):
        card = parse_card(token)
        if card is None:
            state.card(token, f"{path}[{k}]", seat=seat)  # reported as a bad card
            continue
        if card in seen:
            state.add(
                "deck", f"{path}[{k}]", f"{card_name(card)} is dealt twice: to {seen[card]} and to {where}"
            )
            continue
        seen[card] = where
        state.located[card] = where
        mask |= 1 << card
    return mask


def petit_sec_seats(state: HandState) -> list[int]:
    """The seats whose only trump is the Petit, without the Excuse (from known hands)."""
    return [
        s
        for s in range(4)
        if state.sure[s] and state.held[s] & TRUMPS == 1 << PETIT and not state.held[s] & EXCUSE_BIT
    ]


def throw_in_phase(state: HandState, hand: dict[str, Any]) -> bool:
    """A hand thrown in for a petit sec (True: nothing more is played).

    ``thrown_in: "all_passed"`` is checked after the bidding.
    """
    reason = hand.get("thrown_in")
    if reason is not None and reason not in THROW_IN_REASONS:
        state.add("schema", ".thrown_in", f"thrown_in must be 'all_passed' or 'petit_sec', not {reason!r}")
        return False
    holders = petit_sec_seats(state)
    if reason == "petit_sec":
        state.result.thrown_in = "petit_sec"
        if not state.rules.petit_sec:
            state.add(
                "bid_illegal",
                ".thrown_in",
                "the hand was thrown in for a petit sec, which these rules do not allow",
                rule="petit_sec",
            )
        elif state.result.deal_known and not holders:
            state.add(
                "bid_illegal",
                ".thrown_in",
                "the hand was thrown in for a petit sec, but no seat holds the Petit as its only trump",
                rule="petit_sec",
            )
        return True
    if holders and state.rules.petit_sec and reason is None:
        seat = holders[0]
        state.add(
            "bid_illegal",
            ".bids",
            f"seat {seat} holds the Petit sec (its only trump, and no Excuse): "
            "the hand must be thrown in before the bidding",
            seat=seat,
            rule="petit_sec",
        )
    return False
