"""The 78 cards of French Tarot as small ints, and the tables the replay runs on.

A suit card is ``suit * 14 + rank - 1`` with suits ``S H D C`` (0-3) and ranks
1-10, then ``J`` (valet, 11), ``N`` (cavalier, 12), ``Q`` (dame, 13) and ``K``
(roi, 14): cards 0-55.  The trumps ``T1``..``T21`` are 56-76 and the Excuse
``EX`` is 77.  A set of cards (a hand, a trick, a chien) is an int bit mask.

Card points are kept in half points so that all arithmetic is on ints: a bout
or a King is 9 half points (4.5), a Queen 7, a Cavalier 5, a Valet 3 and any
other card 1; the deck holds 182 half points (91 points).

>>> parse_card("NC"), card_name(parse_card("10S")), card_name(PETIT), card_name(EXCUSE)
(53, '10S', 'T1', 'EX')
>>> [HALF_POINTS[parse_card(t)] for t in ("KH", "QH", "NH", "JH", "7H", "T21", "T5", "EX")]
[9, 7, 5, 3, 1, 9, 1, 9]
>>> sum(HALF_POINTS) == DECK_HALF_POINTS == 182
True
>>> [card_name(c) for c in cards_in(mask_of(["T1", "EX", "KS"]))]
['KS', 'T1', 'EX']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "SHDC"
SUIT_NAMES = ("spade", "heart", "diamond", "club")
#: Rank tokens, index = rank - 1.
RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "N", "Q", "K")
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
#: The "suit" of the trumps and of the Excuse, as returned by :func:`suit_of`.
TRUMP = 4
EXCUSE_SUIT = 5

NUM_CARDS = 78
FIRST_TRUMP = 56
PETIT = 56  # T1, le Petit
T21 = 76
EXCUSE = 77

DECK = (1 << NUM_CARDS) - 1
#: Every card of each suit (index 0-3), then every trump (index 4).
SUIT_MASK: tuple[int, ...] = (
    *(((1 << 14) - 1) << (14 * s) for s in range(4)),
    ((1 << 21) - 1) << FIRST_TRUMP,
)
TRUMPS = SUIT_MASK[TRUMP]
PLAIN = SUIT_MASK[0] | SUIT_MASK[1] | SUIT_MASK[2] | SUIT_MASK[3]
KINGS, QUEENS, CAVALIERS, VALETS = (
    sum(1 << (14 * s + rank - 1) for s in range(4)) for rank in (14, 13, 12, 11)
)
EXCUSE_BIT = 1 << EXCUSE
BOUTS = (1 << PETIT) | (1 << T21) | EXCUSE_BIT

DECK_HALF_POINTS = 182


def bit(card: int) -> int:
    return 1 << card


def suit_of(card: int) -> int:
    """0-3 for a suit card, :data:`TRUMP` (4) for a trump, :data:`EXCUSE_SUIT` (5) for the Excuse."""
    if card < FIRST_TRUMP:
        return card // 14
    return TRUMP if card < EXCUSE else EXCUSE_SUIT


def rank_of(card: int) -> int:
    """The rank within the suit: 1-14 for suit cards, 1-21 for trumps, 0 for the Excuse."""
    if card < FIRST_TRUMP:
        return card % 14 + 1
    return card - FIRST_TRUMP + 1 if card < EXCUSE else 0


#: :func:`suit_of` of each card, as a table for the hot paths.
SUIT_OF: tuple[int, ...] = tuple(suit_of(c) for c in range(NUM_CARDS))


def is_trump(card: int) -> bool:
    return FIRST_TRUMP <= card < EXCUSE


def trump(n: int) -> int:
    """The card of trump ``n`` (1-21)."""
    return FIRST_TRUMP + n - 1


def _half_points(card: int) -> int:
    if BOUTS >> card & 1:
        return 9
    if card < FIRST_TRUMP:
        return {14: 9, 13: 7, 12: 5, 11: 3}.get(rank_of(card), 1)
    return 1


#: The half points of each card.
HALF_POINTS: tuple[int, ...] = tuple(_half_points(c) for c in range(NUM_CARDS))

_NAMES: tuple[str, ...] = (
    *(RANKS[r] + SUITS[s] for s in range(4) for r in range(14)),
    *(f"T{n}" for n in range(1, 22)),
    "EX",
)
#: Token -> card, for every token of the record spec.
CARD_CODES: dict[str, int] = {name: card for card, name in enumerate(_NAMES)}


def card_name(card: int) -> str:
    return _NAMES[card]


def parse_card(token: object) -> int | None:
    """The card of a record token (``KH``, ``10S``, ``NC``, ``T1``, ``EX``), or None."""
    return CARD_CODES.get(token) if isinstance(token, str) else None


def mask_of(tokens: Iterable[str]) -> int:
    """The bit mask of card tokens (unknown tokens are skipped)."""
    mask = 0
    for token in tokens:
        card = parse_card(token)
        if card is not None:
            mask |= 1 << card
    return mask


def mask_of_cards(cards: Iterable[int]) -> int:
    """The bit mask of cards (a card given twice is one card, as in any set).

    >>> card_name(next(cards_in(mask_of_cards([parse_card("KC"), parse_card("KC")]))))
    'KC'
    """
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_in(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest first (suits S H D C, then trumps, then the Excuse)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def half_points_of(mask: int) -> int:
    """The half points of a set of cards: one a card, and eight more a bout or a King,
    six a Queen, four a Cavalier, two a Valet (:data:`HALF_POINTS`, card by card).

    >>> half_points_of(DECK), half_points_of(mask_of(["KH", "QS", "EX", "2C"]))
    (182, 26)
    """
    return (
        mask.bit_count()
        + 8 * (mask & (BOUTS | KINGS)).bit_count()
        + 6 * (mask & QUEENS).bit_count()
        + 4 * (mask & CAVALIERS).bit_count()
        + 2 * (mask & VALETS).bit_count()
    )


def suit_word(suit: int) -> str:
    """``heart``, ``trump`` ..., for messages."""
    return SUIT_NAMES[suit] if suit < 4 else "trump" if suit == TRUMP else "Excuse"


def format_points(half: int) -> str:
    """Half points as a number for a sentence: 88 -> '44', 89 -> '44.5'."""
    return str(half // 2) if half % 2 == 0 else f"{half // 2}.5"
