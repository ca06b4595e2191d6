"""Holdings: which cards each seat holds, known or inferred, through a hand.

The deal gives each seat five cards.  Where ``deal`` is absent or holds
``"??"``, a seat's unknown cards are *slots*: a card it plays fills one, as
long as the card is not known to be elsewhere (dealt to another seat, in the
kitty, discarded or already played).  Cards a seat plays later in the hand are
noted up front (``later``), so that failing to follow a suit it plays later is
still a renege, and a card played twice or by two seats is still caught.

A set of cards is an int bit mask (see :mod:`cards`); the state lives on
:class:`~pipeline.games.euchre.state.HandState` (``held``, ``slots``,
``later``, ``out_of_play``).
"""

from __future__ import annotations

from typing import Any

from pipeline.games.euchre.cards import DECK_BITS, UNKNOWN, Card, CardSet, bit, card_name
from pipeline.games.euchre.record import bad_card, is_seat, read_card
from pipeline.games.euchre.rules import Seat, can_discard, is_farmers_hand
from pipeline.games.euchre.state import HandState

# --------------------------------------------------------------------------
# The deal and the kitty


def read_deal(state: HandState, deal: object, seen: CardSet) -> CardSet:
    """Give each seat its dealt cards; returns ``seen`` with them added."""
    if not (isinstance(deal, list) and all(isinstance(h, list) for h in deal)):
        state.add("schema", ".deal", "deal must be 4 lists of cards, indexed by seat")
        return seen
    if len(deal) != 4 or any(len(h) != 5 for h in deal):
        counts = [len(h) for h in deal]
        state.add("deck", ".deal", f"deal must give 5 cards to each of 4 seats, not {counts}")
        return seen
    if read_clean_deal(state, deal, seen):
        return seen | state.held[0] | state.held[1] | state.held[2] | state.held[3]
    return read_deal_by_card(state, deal, seen)


def read_deal_by_card(state: HandState, deal: list[list[Any]], seen: CardSet) -> CardSet:
    """Read a deal card by card, reporting each bad or repeated card."""
    known_all = True
    tokens = state.tokens
    held = state.held
    for seat, cards in enumerate(deal):
        for k, token in enumerate(cards):
            card = tokens.get(token) if type(token) is str else None
            if card is None:
                card = bad_card(state, token, f".deal[{seat}][{k}]", True)
            if card is None or card == UNKNOWN:
                known_all = False
                continue
            if seen >> card & 1:
                state.add("deck", f".deal[{seat}][{k}]", f"{card_name(card)} is dealt twice")
                continue
            seen |= 1 << card
            held[seat] |= 1 << card
            state.slots[seat] -= 1
    state.result.deal_known = known_all
    return seen


def read_clean_deal(state: HandState, deal: list[list[Any]], seen: CardSet) -> bool:
    """The common case in a few operations: 20 known, distinct cards of the deck.

    Anything else (an unknown, odd or repeated card) returns False and leaves
    the state alone, for :func:`read_deal_by_card` to read card by card and report.
    """
    bits = DECK_BITS[state.rules.deck]
    try:
        masks = [bits[a] | bits[b] | bits[c] | bits[d] | bits[e] for a, b, c, d, e in deal]
    except (KeyError, TypeError):
        return False
    union = masks[0] | masks[1] | masks[2] | masks[3]
    if union.bit_count() != 20 or union & seen:
        return False
    state.held[:] = masks
    state.slots[:] = [0, 0, 0, 0]
    state.result.deal_known = True
    return True


def read_kitty(state: HandState, kitty: object, seen: CardSet) -> CardSet:
    """The undealt cards: out of play for the whole hand."""
    size = state.rules.kitty_size
    if not isinstance(kitty, list):
        state.add("schema", ".kitty", "kitty must be a list of cards")
        return seen
    if len(kitty) != size:
        state.add(
            "deck",
            ".kitty",
            f"the kitty holds {len(kitty)} cards; the {state.rules.deck}-card deck leaves {size}",
        )
    for k, token in enumerate(kitty):
        card = read_card(state, token, f".kitty[{k}]")
        if card is None or card == UNKNOWN:
            continue
        if seen >> card & 1:
            state.add("deck", f".kitty[{k}]", f"{card_name(card)} is dealt twice")
            continue
        seen |= bit(card)
        state.out_of_play |= bit(card)
    return seen


def farmers_seat(state: HandState) -> Seat | None:
    """The first seat dealt a farmer's hand, if one was (known cards only)."""
    return next((seat for seat in range(4) if is_farmers_hand(state.held[seat])), None)


def note_later_plays(state: HandState, tricks: list[Any]) -> None:
    """Where holdings are not all known: every card each seat plays (so it held it before)."""
    tokens = state.tokens
    for trick in tricks:
        for play in trick if type(trick) is list else ():
            if type(play) is list and len(play) == 2 and is_seat(play[0]):
                card = tokens.get(play[1]) if type(play[1]) is str else None
                if card is not None and card != UNKNOWN:
                    state.later[play[0]] |= 1 << card


# --------------------------------------------------------------------------
# Cards leaving a hand


def located_elsewhere(state: HandState, card: Card, seat: Seat) -> bool:
    """The card is known to be out of play or in another seat's hand."""
    mask = bit(card)
    if state.out_of_play & mask:
        return True
    return any(state.held[s] & mask for s in range(4) if s != seat)


def take_unknown_card(state: HandState, card: Card, seat: Seat) -> bool:
    """A card not among the seat's known cards fills one of its unknown slots, if
    it can have been there; False when the seat cannot have held it."""
    if state.slots[seat] > 0 and not located_elsewhere(state, card, seat):
        state.slots[seat] -= 1
        return True
    return False


def unknown_discard(state: HandState, dealer: Seat, upcard: Card) -> None:
    """An unrecorded discard: surely an unknown card only if no known card of the dealer may go."""
    may_go = state.held[dealer]
    if upcard != UNKNOWN and not can_discard(state.rules, upcard, upcard):
        may_go &= ~bit(upcard)
    if state.slots[dealer] > 0 and not may_go:
        state.slots[dealer] -= 1
        return
    # One of the dealer's six cards went (perhaps the upcard it took), and which is
    # not known: only cards the dealer plays later prove what it held.
    state.unsure_holding = dealer


def holding_before_play(state: HandState, seat: Seat) -> CardSet:
    """What a seat surely held when it played its last card: its known cards and
    the cards it plays later (only the latter if its discard is unknown)."""
    if seat == state.unsure_holding:
        return state.later[seat]
    return state.held[seat] | state.later[seat]


def whereabouts(state: HandState, card: Card, seat: Seat) -> str:
    """Where a card a seat could not hold was, for the message."""
    mask = bit(card)
    result = state.result
    for trick_no, trick in enumerate(result.tricks):
        for s, c in trick:
            if c == card:
                return f"already played by seat {s} in trick {trick_no}"
    for other in range(4):
        if other != seat and state.held[other] & mask:
            return f"which was dealt to seat {other}"
    if card == result.discard:
        return "which the dealer had discarded"
    if card == result.upcard:
        return (
            "the upcard, which was turned down"
            if result.round != 1
            else "the upcard, which the dealer did not take up"
        )
    if state.out_of_play & mask:
        return "which lay in the kitty"
    return "which it was not dealt"
