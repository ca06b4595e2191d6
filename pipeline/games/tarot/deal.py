"""The deal, and the hands thrown in before or during the bidding.

- Four hands of 18 cards and a chien of 6: the 78 cards, each once.
- A wrong deck is reported once; what follows from it is not.  A card listed
  twice is placed by neither list, a hand not known in full holds what its
  seat plays, and a chien not known in full is what four known hands leave.
- Petit sec: a seat whose only trump is the Petit, without the Excuse,
  throws the hand in before any call (FFT; ``rules.petit_sec``).
- Four passes throw the hand in (see :mod:`bidding`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.games.tarot.cards import DECK, EXCUSE_BIT, PETIT, TRUMPS, card_name, cards_in, count, parse_card
from pipeline.games.tarot.state import HandState

HAND_SIZE = 18
CHIEN_SIZE = 6
THROW_IN_REASONS = ("all_passed", "petit_sec")


@dataclass(frozen=True, slots=True)
class Listed:
    """One list of the deal as recorded: its cards (each once), its length, the
    tokens, and the cards it lists that an earlier list, or itself, already did."""

    mask: int
    size: int
    tokens: list[Any]
    doubled: int


def deal_phase(state: HandState, hand: dict[str, Any]) -> None:
    """Read the four hands and the chien; report bad tokens and a wrong deck.

    What follows from a wrong deck is not reported again.  A card listed twice
    is placed by neither list.  A hand that is not 18 cards of its own is not
    known in full: its seat holds what it plays (see :mod:`play`).  A chien
    that is not 6 cards of its own is the 6 cards the four hands do not hold,
    when they are known in full; else the taker holds what it discards and
    plays (see :mod:`chien`).
    """
    seen: dict[int, str] = {}
    hands = _read_hands(state, hand.get("deal"), seen)
    chien = _read_chien(state, hand.get("chien"), seen)
    doubled = 0
    for listed in (*hands, chien):
        doubled |= listed.doubled if listed is not None else 0
    for seat, listed in enumerate(hands):
        known = listed.mask & ~doubled
        state.result.deal[seat] = state.held[seat] = known
        state.sure[seat] = listed.size == HAND_SIZE and count(known) == HAND_SIZE
    _place_chien(state, chien, doubled)


def _read_hands(state: HandState, deal: object, seen: dict[int, str]) -> list[Listed]:
    if not (isinstance(deal, list) and len(deal) == 4 and all(isinstance(h, list) for h in deal)):
        state.add("schema", ".deal", "deal must be 4 lists of 18 cards, indexed by seat")
        return [Listed(0, 0, [], 0)] * 4
    hands = []
    for seat, cards in enumerate(deal):
        hands.append(_read_cards(state, cards, f".deal[{seat}]", f"seat {seat}", seen, seat))
        if len(cards) != HAND_SIZE:
            state.add(
                "deck",
                f".deal[{seat}]",
                f"seat {seat} was dealt {len(cards)} cards; each seat gets {HAND_SIZE}",
                seat=seat,
            )
    return hands


def _read_chien(state: HandState, chien: object, seen: dict[int, str]) -> Listed | None:
    if not isinstance(chien, list):
        state.add("schema", ".chien", f"chien must be a list of {CHIEN_SIZE} cards")
        return None
    listed = _read_cards(state, chien, ".chien", "the chien", seen)
    if len(chien) != CHIEN_SIZE:
        state.add("deck", ".chien", f"the chien has {len(chien)} cards; it has {CHIEN_SIZE}")
    return listed


def _place_chien(state: HandState, chien: Listed | None, doubled: int) -> None:
    """The chien as recorded, or as the four hands known in full leave it."""
    result = state.result
    known = chien.mask & ~doubled if chien is not None else 0
    recorded = chien is not None and chien.size == CHIEN_SIZE and count(known) == CHIEN_SIZE
    hands_known = all(state.sure)
    if not recorded and hands_known:
        known = DECK & ~(state.held[0] | state.held[1] | state.held[2] | state.held[3])
        for card in cards_in(known):
            state.located.setdefault(card, "the chien")
    state.chien_sure = recorded or hands_known
    listed = _in_order(chien.tokens) if chien is not None else []
    result.chien = [c for c in dict.fromkeys([*listed, *cards_in(known)]) if known >> c & 1]
    if state.chien_sure:
        state.taken |= known  # else a hand not known in full may have held one of them
    result.deal_known = recorded and hands_known


def _in_order(tokens: list[Any]) -> list[int]:
    return [c for c in (parse_card(t) for t in tokens) if c is not None]


def _read_cards(
    state: HandState, tokens: list[Any], path: str, where: str, seen: dict[int, str], seat: int | None = None
) -> Listed:
    """A list of card tokens; a bad token or a card seen before is reported."""
    mask = doubled = 0
    for k, token in enumerate(tokens):
        card = parse_card(token)
        if card is None:
            state.card(token, f"{path}[{k}]", seat=seat)  # reported as a bad card
            continue
        if card in seen:
            state.add(
                "deck", f"{path}[{k}]", f"{card_name(card)} is dealt twice: to {seen[card]} and to {where}"
            )
            doubled |= 1 << card
            continue
        seen[card] = where
        state.located[card] = where
        mask |= 1 << card
    return Listed(mask, len(tokens), tokens, doubled)


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
