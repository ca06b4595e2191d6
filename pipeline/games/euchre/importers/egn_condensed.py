"""Decoding EGN condensed deals: Base64URL bit-packed strings in ``deals``.

EGN (Euchre Game Notation) may store a deal as a string instead of an
object.  The bit layout is described in the package's ``docs/binary-format.md``;
where that text and the reference encoder (``src/bitpacker.ts``,
``src/bitstream.ts``, ``src/card-encoding.ts``) disagree, the files in the wild
were written by the encoder, so this follows the encoder:

- a field that can hold values up to ``m`` takes as many bits as ``m`` has in
  binary, and at least one (an index into a one-card list still takes a bit);
- the deck is ordered by rank, then by suit in the order ``s h c d``, and the
  round-two suit codes 1-3 name the suits other than the upcard's in that
  order (the document says alphabetical);
- version 1 gives the dealer 2 bits (the document says 3);
- version 3 records player cards for every seat, with no count of seats.

Versions 1, 2 and 3 are decoded.  Version 0 (no header, no trick count) and
deals carrying alternative lines are refused with :class:`CondensedUnsupported`,
because decoding them would be a guess.  A string that breaks the layout raises
:class:`CondensedError`.

A version 1 deal: dealer 3 turns up the jack of diamonds, seat 2 orders it up
and one trick is played (the tests' encoder, ``tests/egn_encoder.py``, wrote it):

>>> deal = decode_condensed("HWgk2MKBQA")
>>> deal["initialState"], deal["phases"][0]["calls"], deal["phases"][1]["tricks"]
({'dealer': 3, 'upCard': 'Jd'}, ['Pass', 'Pass', 'Pass', 'Order'], [['Ac', 'Tc', '9c', 'Kc']])
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

#: Suits in the encoder's order, and ranks from the lowest a deck may start at.
SUIT_ORDER = "shcd"
ALL_RANKS = "23456789TJQKA"
MIN_RANK_BY_CODE = ("9", "8", "7", "6")
END_MARKER = "1010"


class CondensedError(ValueError):
    """The string is not a well-formed condensed deal."""


class CondensedUnsupported(ValueError):
    """The string is a condensed deal in a form tricklog does not decode."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class _Bits:
    """A reader over a string of '0'/'1' characters."""

    __slots__ = ("bits", "pos")

    def __init__(self, bits: str) -> None:
        self.bits = bits
        self.pos = 0

    def take(self, count: int) -> str:
        if self.pos + count > len(self.bits):
            raise CondensedError("the bit stream ends early")
        out = self.bits[self.pos : self.pos + count]
        self.pos += count
        return out

    def flag(self) -> bool:
        return self.take(1) == "1"

    def number(self, max_value: int) -> int:
        """An unsigned field wide enough for ``max_value`` (at least one bit)."""
        return int(self.take(max(1, max_value.bit_length())), 2)

    def index(self, items: list[str]) -> str:
        """One element of ``items``, by an index field sized for the list."""
        position = self.number(len(items) - 1)
        if position >= len(items):
            raise CondensedError(f"card index {position} is past the {len(items)} cards left")
        return items[position]


def to_bits(text: str) -> str:
    """The bits of a Base64URL string (padding optional)."""
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError) as e:
        raise CondensedError(f"not Base64URL ({e})") from e
    return "".join(f"{byte:08b}" for byte in raw)


def build_deck(min_rank: str) -> list[str]:
    """The encoder's deck: ranks from ``min_rank`` up, suits in ``s h c d`` order."""
    ranks = ALL_RANKS[ALL_RANKS.index(min_rank) :]
    return [rank + suit for rank in ranks for suit in SUIT_ORDER]


def decode_condensed(text: str, deal_number: int = 0) -> dict[str, Any]:
    """An EGN deal object from a condensed string (versions 1-3)."""
    reader = _Bits(to_bits(text))
    version = {"0001": 1, "0010": 2, "0011": 3}.get(reader.bits[:4])
    if version is None:
        raise CondensedUnsupported(
            "a version 0 (legacy) condensed deal: its layout is not specified well enough to decode",
            "condensed_v0",
        )
    reader.take(4)
    try:
        deal = _decode_body(reader, version, deal_number)
    except CondensedError as e:
        raise CondensedError(f"does not decode as a version {version} condensed deal: {e}") from e
    return deal


def _decode_body(reader: _Bits, version: int, deal_number: int) -> dict[str, Any]:
    dealer, deck = _read_header(reader, version)
    upcard = reader.index(deck)
    state: dict[str, Any] = {"dealer": dealer, "upCard": upcard}
    if version >= 3 and reader.flag():
        state["playerCards"] = [[reader.index(deck) for _ in range(reader.number(15))] for _ in range(4)]
    remaining = list(deck)
    phases: list[dict[str, Any]] = []
    sitting_out = 0
    for number in range(reader.number(7)):
        if reader.take(1) == "0":
            bidding = _read_bidding(reader, version, upcard, deck)
            sitting_out = int(bidding["isAlone"]) + int(bidding.get("aloneDefender", -1) >= 0)
            phases.append({"phaseNumber": number, **bidding})
        else:
            tricks = _read_tricks(reader, 4 - sitting_out, remaining)
            phases.append({"phaseNumber": number, "type": "TRICK_PLAY", "tricks": tricks})
    if reader.flag():
        raise CondensedUnsupported(
            "the condensed deal carries alternative lines", "condensed_alternative_lines"
        )
    _read_end(reader)
    return {"dealNumber": deal_number, "initialState": state, "phases": phases}


def _read_header(reader: _Bits, version: int) -> tuple[int, list[str]]:
    if version == 1:
        return reader.number(3), build_deck("9")
    dealer = reader.number(7)
    players = reader.number(7) + 1
    min_rank = MIN_RANK_BY_CODE[reader.number(3)]
    if players != 4:
        raise CondensedUnsupported(f"the condensed deal is for {players} players", "num_players")
    if min_rank not in ("9", "7"):
        raise CondensedUnsupported(f"the condensed deal uses a deck from {min_rank} up", "min_rank")
    if dealer > 3:
        raise CondensedError(f"dealer seat {dealer} in a 4-player deal")
    return dealer, build_deck(min_rank)


def _read_bidding(reader: _Bits, version: int, upcard: str, deck: list[str]) -> dict[str, Any]:
    calls: list[str] = []
    for _ in range(4):
        calls.append("Order" if reader.flag() else "Pass")
        if calls[-1] == "Order":
            break
    if calls[-1] == "Pass":
        named = [s for s in SUIT_ORDER if s != upcard[1]]
        for _ in range(4):
            code = reader.number(3)
            calls.append(named[code - 1] if code else "Pass")
            if code:
                break
    phase: dict[str, Any] = {"type": "EUCHRE_BIDDING", "calls": calls, "isAlone": reader.flag()}
    if version >= 2 and phase["isAlone"] and reader.flag():
        phase["aloneDefender"] = reader.number(7)
    if version >= 3 and reader.flag():
        phase["discard"] = reader.index(deck)
    _skip_annotations(reader)
    return phase


def _read_tricks(reader: _Bits, per_trick: int, remaining: list[str]) -> list[list[str]]:
    tricks: list[list[str]] = []
    for _ in range(reader.number(7)):
        trick: list[str] = []
        for _ in range(per_trick):
            card = reader.index(remaining)
            remaining.remove(card)
            trick.append(card)
        tricks.append(trick)
    _skip_annotations(reader)
    return tricks


def _skip_annotations(reader: _Bits) -> None:
    """Annotations are commentary: read past them."""
    if not reader.flag():
        return
    for _ in range(reader.number(255)):
        reader.number(255)
        for _ in range(reader.number(255)):
            reader.take(8 * reader.number(65535))


def _read_end(reader: _Bits) -> None:
    if reader.take(4) != END_MARKER:
        raise CondensedError("the end marker 1010 is missing")
    rest = reader.bits[reader.pos :]
    if len(rest) >= 8 or "1" in rest:
        raise CondensedError("bits follow the end marker")
