"""The chien and the écart.

- Prise and garde: the chien is shown and taken into the taker's hand, who
  then discards six cards (the écart), which count for the taker.
- Never a King nor a bout in the écart.  A trump only when the taker has not
  six other cards it may discard; such trumps are shown to the defence.
- Garde sans: the chien stays unseen and counts for the taker; garde contre:
  for the defence.  Neither has an écart.

Whether a discarded trump was shown is only known when the record says which
were shown (``ecart_shown``); without that field they are taken as shown.
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.cards import (
    BOUTS,
    KINGS,
    PLAIN,
    TRUMPS,
    card_name,
    cards_in,
    count,
    is_trump,
    mask_of,
    mask_of_cards,
)
from pipeline.games.tarot.state import HandState

ECART_SIZE = 6


def discardable(holding: int) -> int:
    """The cards of a 24-card holding that may go to the écart without showing: suit cards, not Kings."""
    return holding & PLAIN & ~KINGS


def ecart_fault(holding: int, ecart: list[int]) -> tuple[int, str] | None:
    """The first card of an écart the rules forbid, and why (None when legal).

    ``holding`` is the taker's 24 cards (hand and chien).
    """
    plain = discardable(holding)
    trumps_allowed = max(0, ECART_SIZE - count(plain))
    trumps = 0
    for card in ecart:
        if KINGS >> card & 1:
            return card, "a King may never be discarded"
        if BOUTS >> card & 1:
            return card, "a bout (the Petit, the 21 or the Excuse) may never be discarded"
        if is_trump(card):
            trumps += 1
            if trumps > trumps_allowed:
                kept = plain & ~mask_of_cards(ecart)
                instead = card_name(next(cards_in(kept))) if kept else "another suit card"
                return (
                    card,
                    f"a trump may only be discarded when no suit card is left to discard, and it kept {instead}",
                )
    return None


def chien_phase(state: HandState, hand: dict[str, Any]) -> None:
    """Take the chien up and check the écart (prise, garde); else check there is none."""
    result = state.result
    taker, contract = result.taker, result.contract
    assert taker is not None and contract is not None
    chien = mask_of_cards(result.chien)
    raw = hand.get("ecart")
    if contract in ("garde_sans", "garde_contre"):
        if raw not in (None, []):
            state.add(
                "ecart",
                ".ecart",
                f"an écart is recorded in a {contract}, where the chien stays unseen and there is none",
                seat=taker,
            )
            if isinstance(raw, list):  # go on as the record says: those cards left the hand
                gone = mask_of(raw)
                state.held[taker] &= ~gone
                state.taken |= gone & ~chien
        for card in cards_in(chien):
            state.located[card] = "the chien, unseen"
        return
    state.held[taker] |= chien
    state.taken &= ~chien
    if not state.chien_sure:
        state.sure[taker] = False  # what it took up is not known: its écart and plays say
    for card in cards_in(chien):
        state.located[card] = f"the chien, taken up by seat {taker}"
    if raw is None:
        state.add(
            "ecart",
            ".ecart",
            f"seat {taker} took the chien in a {contract} but no écart is recorded",
            seat=taker,
        )
        return
    if not isinstance(raw, list):
        state.add("schema", ".ecart", f"ecart must be a list of {ECART_SIZE} cards")
        return
    holding = state.held[taker]
    ecart: list[int] = []
    for k, token in enumerate(raw):
        parsed = state.card(token, f".ecart[{k}]", seat=taker)
        if parsed is None:
            continue
        card = parsed
        if card in ecart:
            state.add("ecart", f".ecart[{k}]", f"seat {taker} discarded {card_name(card)} twice", seat=taker)
            continue
        if state.sure[taker] and not holding >> card & 1:
            state.add(
                "ecart",
                f".ecart[{k}]",
                f"seat {taker} discarded {card_name(card)}, a card it did not hold ({state.whereabouts(card, taker)})",
                seat=taker,
            )
            continue
        ecart.append(card)
    if len(raw) != ECART_SIZE:
        state.add(
            "ecart",
            ".ecart",
            f"seat {taker} discarded {len(raw)} cards; the écart is {ECART_SIZE} cards at four players",
            seat=taker,
        )
    result.ecart = ecart
    mask = mask_of_cards(ecart)
    state.held[taker] &= ~mask
    state.taken |= mask
    for card in ecart:
        state.located[card] = f"the écart of seat {taker}"
    if state.sure[taker]:
        fault = ecart_fault(holding, ecart)
        if fault is not None:
            card, why = fault
            k = raw.index(card_name(card)) if card_name(card) in raw else 0
            state.add("ecart", f".ecart[{k}]", f"seat {taker} discarded {card_name(card)}: {why}", seat=taker)
    _check_shown(state, hand, taker, mask)


def _check_shown(state: HandState, hand: dict[str, Any], taker: int, ecart: int) -> None:
    shown = hand.get("ecart_shown")
    if shown is None:
        return
    if not isinstance(shown, list):
        state.add("schema", ".ecart_shown", "ecart_shown must be a list of the trumps discarded")
        return
    shown_mask = 0
    for k, token in enumerate(shown):
        card = state.card(token, f".ecart_shown[{k}]", seat=taker)
        if card is not None:
            shown_mask |= 1 << card
    hidden = ecart & TRUMPS & ~shown_mask
    if hidden:
        state.add(
            "ecart",
            ".ecart_shown",
            f"seat {taker} discarded {card_name(next(cards_in(hidden)))} without showing it; "
            "a discarded trump is shown to the defence",
            seat=taker,
            rule="trump_not_shown",
        )
