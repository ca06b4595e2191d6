"""Euchre cards as small ints, and the tables the replay runs on.

A card is ``suit * 8 + rank`` with suits ``C D H S`` (0-3) and ranks
``7 8 9 T J Q K A`` (0-7); the joker of the 25-card deck is 32.  A set of cards
(a hand, a deck) is an int bit mask.  Everything trump-dependent is looked up
in tables built once at import, indexed by the trump suit.

>>> parse_card("jd"), card_name(parse_card("J♦"))
(12, 'JD')
>>> effective_suit(parse_card("JD"), trump=HEARTS) == HEARTS   # the left bower
True
>>> [card_name(c) for c in sorted_by_power(mask_of("9H JD JH AH"), trump=HEARTS)]
['JH', 'JD', 'AH', '9H']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

#: A card: ``suit * 8 + rank`` (see above), ``JOKER`` or ``UNKNOWN``.
Card = int
#: A set of cards as a bit mask: bit ``c`` is set when card ``c`` is in the set.
CardSet = int
#: A suit 0-3 (``CLUBS`` ... ``SPADES``).
Suit = int

SUITS = "CDHS"
RANKS = "789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
JACK = RANKS.index("J")
JOKER = 32
NUM_CARDS = 33
UNKNOWN = -1  # "??": a card the log does not know

#: The suit of the same colour: clubs <-> spades, diamonds <-> hearts.
SAME_COLOUR = (SPADES, HEARTS, DIAMONDS, CLUBS)

_SUIT_ALIASES = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"10": RANKS.index("T")}


def card_of(rank: int, suit: int) -> int:
    return suit * 8 + rank


def suit_of(card: int) -> int:
    """The printed suit (the joker has none: 4)."""
    return 4 if card == JOKER else card >> 3


def rank_of(card: int) -> int:
    return card & 7


def card_name(card: int) -> str:
    if card == UNKNOWN:
        return "??"
    if card == JOKER:
        return "JK"
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def _parse_token(token: str) -> int | None:
    text = token.strip().upper()
    if text in ("JK", "JOKER", "BENNY"):
        return JOKER
    if len(text) < 2:
        return None
    rank = _RANK_ALIASES.get(text[:-1])
    suit = _SUIT_ALIASES.get(text[-1])
    if rank is None or suit is None:
        return None
    return card_of(rank, suit)


#: Every spelling accepted on input, mapped to its card (a dict lookup per play).
CARD_CODES: dict[str, int] = {}
for _card in range(NUM_CARDS):
    _name = card_name(_card)
    _ranks = (_name[0], _name[0].lower(), "10") if _name[0] == "T" else (_name[0], _name[0].lower())
    for _rank in _ranks:
        for _suit in {_name[1], _name[1].lower()}:
            CARD_CODES[_rank + _suit] = _card
CARD_CODES["??"] = UNKNOWN


#: The name of every card, by its int (for writing records and rows).
CARD_NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(NUM_CARDS))


def parse_card(token: object) -> int | None:
    """The card a token names (``"10h"``, ``"T♥"``, ``"JK"``), ``UNKNOWN`` for
    ``"??"``, or None when it names no card."""
    if not isinstance(token, str):
        return None
    code = CARD_CODES.get(token)
    if code is not None:
        return code
    return _parse_token(token)


def bit(card: int) -> int:
    return 1 << card


def mask_of(cards: Iterable[int] | str) -> int:
    """A bit mask of cards, from ints or a space-separated string of names."""
    items = (parse_card(t) for t in cards.split()) if isinstance(cards, str) else cards
    out = 0
    for card in items:
        if card is None or card == UNKNOWN:
            raise ValueError(f"not a card: {card!r}")
        out |= 1 << card
    return out


def cards_in(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def deck_mask(size: int) -> int:
    """The 24-card (9 up), 32-card (7 up) or 25-card (24 + joker) deck."""
    low_rank = {24: 2, 25: 2, 32: 0}[size]
    mask = mask_of(card_of(r, s) for s in range(4) for r in range(low_rank, 8))
    return mask | (bit(JOKER) if size == 25 else 0)


def is_left_bower(card: int, trump: int) -> bool:
    return card == card_of(JACK, SAME_COLOUR[trump])


def effective_suit(card: int, trump: int) -> int:
    """The suit a card follows as, given trump: the left bower and the joker are trumps."""
    if card == JOKER or is_left_bower(card, trump):
        return trump
    return suit_of(card)


def power(card: int, trump: int, led: int) -> int:
    """How strongly a card competes in a trick: 0 when it cannot win it."""
    suit = effective_suit(card, trump)
    if suit == trump:
        if card == JOKER:
            return 103
        if card == card_of(JACK, trump):
            return 102
        if is_left_bower(card, trump):
            return 101
        return 90 + rank_of(card)
    if suit == led:
        return 1 + rank_of(card)
    return 0


# Tables: SUIT_MASK[trump][suit] is every card that follows as `suit` given
# `trump`; EFFECTIVE[trump][card] its effective suit; POWER[trump][led][card].
EFFECTIVE: tuple[tuple[int, ...], ...] = tuple(
    tuple(effective_suit(c, t) for c in range(NUM_CARDS)) for t in range(4)
)
SUIT_MASK: tuple[tuple[int, ...], ...] = tuple(
    tuple(mask_of(c for c in range(NUM_CARDS) if EFFECTIVE[t][c] == s) for s in range(4)) for t in range(4)
)
POWER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(power(c, t, led) for c in range(NUM_CARDS)) for led in range(4)) for t in range(4)
)


def sorted_by_power(mask: int, trump: int) -> list[int]:
    """Cards strongest first, trumps above the rest (each plain suit as if led)."""
    return sorted(cards_in(mask), key=lambda c: (-POWER[trump][effective_suit(c, trump)][c], c))


#: The cards of each deck size, and per deck size every accepted spelling of its
#: cards (and "??") as one dict lookup a card, and the bit of each known card's spellings.
DECKS: dict[int, CardSet] = {size: deck_mask(size) for size in (24, 25, 32)}
DECK_TOKENS: dict[int, dict[str, Card]] = {
    size: {t: c for t, c in CARD_CODES.items() if c == UNKNOWN or mask >> c & 1}
    for size, mask in DECKS.items()
}
DECK_BITS: dict[int, dict[str, CardSet]] = {
    size: {t: 1 << c for t, c in tokens.items() if c != UNKNOWN} for size, tokens in DECK_TOKENS.items()
}
#: The nines and tens of the four suits (a farmer's hand holds four of them).
NINES_AND_TENS: CardSet = sum(bit(card_of(RANKS.index(r), s)) for s in range(4) for r in "9T")
