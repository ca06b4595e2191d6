"""An EGN condensed-deal encoder, for the tests only: it writes what the
reference encoder (``src/bitpacker.ts``) writes, so the decoder in
``pipeline.games.euchre.importers.egn_condensed`` can be tested on deals of
our own making.
"""

from __future__ import annotations

import base64

from pipeline.games.euchre.importers.egn_condensed import END_MARKER, build_deck


def encode_for_tests(
    *,
    dealer: int,
    upcard: str,
    calls: list[int],
    alone: bool,
    tricks: list[list[str]],
    version: int = 1,
    discard: str | None = None,
    defender: int | None = None,
) -> str:
    """A condensed deal string; ``calls`` are 0 (pass), 1 (order), or 1-3 (round two suit code)."""
    deck = build_deck("9")

    def num(value: int, max_value: int) -> str:
        return format(value, f"0{max(1, max_value.bit_length())}b")

    bits = num(version, 15) + num(dealer, 3 if version == 1 else 7)
    if version >= 2:
        bits += num(3, 7) + num(0, 3)
    bits += num(deck.index(upcard), 23) + ("0" if version >= 3 else "")
    bits += num(2 if tricks else 1, 7) + "0"
    bits += "".join(num(c, 1 if i < 4 else 3) for i, c in enumerate(calls)) + ("1" if alone else "0")
    if version >= 2 and alone:
        bits += "0" if defender is None else "1" + num(defender, 7)
    if version >= 3:
        bits += "0" if discard is None else "1" + num(deck.index(discard), 23)
    bits += "0"
    if tricks:
        remaining = list(deck)
        bits += "1" + num(len(tricks), 7)
        for card in (c for trick in tricks for c in trick):
            bits += num(remaining.index(card), len(remaining) - 1)
            remaining.remove(card)
        bits += "0"
    bits += "0" + END_MARKER
    bits += "0" * (-len(bits) % 8)
    raw = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8))
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
