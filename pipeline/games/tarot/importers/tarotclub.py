"""Reading TarotClub's saved played deals as tarot/1 records.

TarotClub (tarotclub.fr) saves each deal it plays as a JSON object
(``Deal::GenerateEndDealLog``, file version ``"3"``)::

    {"version": "3",
     "deal_info": {"number_of_players": 4, "taker": "South", "contract": "Guard",
                   "slam": false, "first_trick_lead": "East", "dog": "03-S;...",
                   "attack_handle": "", "defense_handle": ""},
     "tricks": ["01-H;13-H;14-H;03-H", ...]}

- Places ``South East North West`` are seats 0-3; TarotClub's ``Place::Next``
  is +1, anti-clockwise, the tarot/1 playing order.
- A card is ``NN-S``: value then suit ``S H D C T``; values 11-14 are Valet,
  Cavalier, Dame, Roi; ``NN-T`` is trump NN and ``00-T`` the Excuse.
- Each trick lists its cards in play order from its leader: the first trick
  from ``first_trick_lead``, each next one from the winner of the last.
- The hands are not saved: each seat held the cards it played, and the taker
  also its écart, which is the six cards no one played (prise, garde); in
  garde sans and garde contre those six are the chien.
- The bidding is not saved: the record has the taker's call and three passes,
  and the dealer is taken as the seat before the first leader (in a slam
  announced, the taker leads, so the taker is also the first to speak).
- A handle is saved by side; the defender who showed it is the one whose
  played cards include it.

Where TarotClub scores otherwise than the FFT, the record says so in its
``rules`` (see docs/import-tarotclub.md): TarotClub always loses the Excuse
played to the last trick (``excuse_last_trick: "lost"``), and in a slam takes
the Petit of the last-but-one trick as "au bout" whoever played the Excuse to
the last (``petit_au_bout_excuse_by: "any"``).

>>> record, problems = deal_to_record(_DOCTEST_DEAL, game_id="doc")
>>> hand = record["hands"][0]
>>> problems, hand["bids"][0], hand["dealer"], hand["chien"]
([], {'seat': 0, 'call': 'garde_sans'}, 3, ['T16', 'T17', 'T18', 'T19', 'T20', 'T21'])
>>> hand["tricks"][0], hand["tricks"][1][0]
([[0, '1S'], [1, '2S'], [2, '3S'], [3, '4S']], [3, '5S'])
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

import orjson

from pipeline.games.tarot.cards import DECK, EXCUSE, card_name, cards_in, mask_of_cards, trump
from pipeline.games.tarot.trick import winner_index
from pipeline.sources import (
    LongLine,
    SourceItem,
    iter_lines,
    parse_line,
    read_document,
    still_written,
    too_long_document,
)
from pipeline.violations import Violation

PLACES = ("South", "East", "North", "West")
CONTRACTS = {
    "Take": "prise",
    "Guard": "garde",
    "Guard without": "garde_sans",
    "Guard against": "garde_contre",
}
SUITS = "SHDC"
#: The rules TarotClub plays by, as tarot/1 options.
RULES = {"preset": "fft", "excuse_last_trick": "lost", "petit_au_bout_excuse_by": "any"}
_CARD = re.compile(r"^(\d\d)-([SHDCT])$")
_SNIFF = re.compile(rb'"(deal_info|tricks)"\s*:')


class TarotClubError(ValueError):
    """A deal file that is not one tricklog can read, with the code to report."""

    def __init__(self, code: str, message: str, path: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.path = path


def looks_like_tarotclub(head: bytes) -> bool:
    """True when the start of an input is a TarotClub deal (a JSON object with ``deal_info``).

    >>> looks_like_tarotclub(b'{\\n    "deal_info": {"taker": "South"},')
    True
    >>> looks_like_tarotclub(b'{"format": "tarot/1", "game_id": "x"}')
    False
    """
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text.startswith(b"{") and b'"deal_info"' in text and _SNIFF.search(text) is not None


def parse_card(token: str) -> int:
    """A TarotClub card (``"14-H"``, ``"21-T"``, ``"00-T"``) as a tricklog card.

    >>> [card_name(parse_card(t)) for t in ("01-H", "12-S", "14-C", "21-T", "00-T")]
    ['1H', 'NS', 'KC', 'T21', 'EX']
    """
    match = _CARD.match(token.strip())
    if match is None:
        raise TarotClubError("bad_card", f"{token!r} is not a TarotClub card (NN-S, NN-T)")
    value, suit = int(match.group(1)), match.group(2)
    if suit == "T":
        if value > 21:
            raise TarotClubError("bad_card", f"{token!r}: there is no trump {value}")
        return EXCUSE if value == 0 else trump(value)
    if not 1 <= value <= 14:
        raise TarotClubError("bad_card", f"{token!r}: a suit card is 01-14")
    return SUITS.index(suit) * 14 + value - 1


def parse_cards(text: object, where: str) -> list[int]:
    """A ``;``-separated list of cards (an empty string is no card)."""
    if not isinstance(text, str):
        raise TarotClubError(
            "schema", f"{where} must be a string of cards separated by ';', not {text!r}", where
        )
    return [parse_card(t) for t in text.split(";") if t.strip()]


def place(value: object, where: str) -> int:
    if value not in PLACES:
        raise TarotClubError("schema", f"{where} must be one of {', '.join(PLACES)}, not {value!r}", where)
    assert isinstance(value, str)
    return PLACES.index(value)


def deal_to_record(
    deal: object, *, game_id: str, origin: dict[str, Any] | None = None
) -> tuple[dict[str, Any] | None, list[Violation]]:
    """A TarotClub deal object as a one-hand tarot/1 record, or None and why."""
    try:
        return _convert(deal, game_id, origin or {"format": "tarotclub"}), []
    except TarotClubError as e:
        return None, [Violation(e.code, str(e), game_id, 0 if e.path.startswith("tricks") else None, e.path)]


def _convert(deal: object, game_id: str, origin: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(deal, dict) or not isinstance(deal.get("deal_info"), dict):
        raise TarotClubError("schema", "a TarotClub deal is an object with deal_info and tricks", "deal_info")
    info: dict[str, Any] = deal["deal_info"]
    players = info.get("number_of_players", 4)
    if players != 4:
        raise TarotClubError(
            "unsupported",
            f"a deal at {players!r} players; tricklog replays four-player Tarot",
            "deal_info.number_of_players",
        )
    taker = place(info.get("taker"), "deal_info.taker")
    raw_contract = info.get("contract")
    contract = CONTRACTS.get(raw_contract) if isinstance(raw_contract, str) else None
    if contract is None:
        raise TarotClubError(
            "schema",
            f"deal_info.contract must be one of {', '.join(CONTRACTS)}, not {info.get('contract')!r}",
            "deal_info.contract",
        )
    slam = info.get("slam", False) is True
    first = place(info.get("first_trick_lead"), "deal_info.first_trick_lead")
    dog = parse_cards(info.get("dog", ""), "deal_info.dog")
    raw_tricks = deal.get("tricks")
    if not isinstance(raw_tricks, list):
        raise TarotClubError("schema", "tricks must be a list of strings of 4 cards", "tricks")
    if len(raw_tricks) != 18:
        raise TarotClubError("deck", f"{len(raw_tricks)} tricks; a deal at four players has 18", "tricks")
    tricks, played = _seat_tricks(raw_tricks, first, taker)
    unplayed = list(cards_in(DECK & ~mask_of_cards([c for cards in played for c in cards])))
    dealer = (first - 1) % 4
    hand: dict[str, Any] = {"dealer": dealer}
    held = [mask_of_cards(played[s]) for s in range(4)]
    if contract in ("prise", "garde"):
        held[taker] = (held[taker] | mask_of_cards(unplayed)) & ~mask_of_cards(dog)
        hand["ecart"] = [card_name(c) for c in unplayed]
    hand["deal"] = [[card_name(c) for c in cards_in(h)] for h in held]
    hand["chien"] = [card_name(c) for c in dog]
    hand["bids"] = [
        {"seat": seat, "call": contract if seat == taker else "pass"}
        for seat in ((dealer + 1 + i) % 4 for i in range(4))
    ]
    announcements = _announcements(info, taker, played, slam)
    if announcements:
        hand["announcements"] = announcements
    hand["tricks"] = tricks
    return {
        "format": "tarot/1",
        "game_id": game_id,
        "players": list(PLACES),
        "rules": dict(RULES),
        "source": "tarotclub",
        "hands": [hand],
        "origin": {**origin, "version": deal.get("version"), "dealer_inferred": True, "deal_inferred": True},
    }


def _seat_tricks(raw: list[Any], first: int, taker: int) -> tuple[list[list[list[Any]]], list[list[int]]]:
    """The tricks as [seat, card] plays, each led by the winner of the last, and each seat's cards."""
    tricks: list[list[list[Any]]] = []
    played: list[list[int]] = [[], [], [], []]
    leader = first
    for t, text in enumerate(raw):
        cards = parse_cards(text, f"tricks[{t}]")
        if len(cards) != 4:
            raise TarotClubError(
                "deck", f"trick {t} has {len(cards)} cards; four players play one each", f"tricks[{t}]"
            )
        seats = [(leader + i) % 4 for i in range(4)]
        for seat, card in zip(seats, cards, strict=True):
            earlier = next(
                (k for k, trick in enumerate(tricks) if any(c == card_name(card) for _, c in trick)), None
            )
            if earlier is not None or cards.count(card) > 1:
                where = f"in trick {earlier}" if earlier is not None else "twice in it"
                raise TarotClubError(
                    "not_held", f"trick {t}: {card_name(card)} was already played {where}", f"tricks[{t}]"
                )
            played[seat].append(card)
        tricks.append([[s, card_name(c)] for s, c in zip(seats, cards, strict=True)])
        excuse_wins = (
            t == len(raw) - 1 and EXCUSE in cards and _won_all(tricks, taker, seats[cards.index(EXCUSE)])
        )
        leader = seats[winner_index(cards, excuse_wins=excuse_wins)]
    return tricks, played


def _won_all(tricks: list[list[list[Any]]], taker: int, seat: int) -> bool:
    """Whether the seat's side won every earlier trick (each trick's winner leads the next)."""
    leaders = [trick[0][0] for trick in tricks[1:]]
    return bool(leaders) and all((lead == taker) == (seat == taker) for lead in leaders)


def _announcements(
    info: dict[str, Any], taker: int, played: list[list[int]], slam: bool
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if slam:
        out.append({"seat": taker, "type": "chelem"})
    attack = parse_cards(info.get("attack_handle", ""), "deal_info.attack_handle")
    if attack:
        out.append({"seat": taker, "type": "poignee", "trumps": [card_name(c) for c in attack]})
    defence = parse_cards(info.get("defense_handle", ""), "deal_info.defense_handle")
    if defence:
        shown = mask_of_cards(defence)
        seat = next((s for s in range(4) if s != taker and shown & ~mask_of_cards(played[s]) == 0), None)
        if seat is None:
            raise TarotClubError(
                "poignee",
                "the defence's handle is not among the cards of any one defender",
                "deal_info.defense_handle",
            )
        out.append({"seat": seat, "type": "poignee", "trumps": [card_name(c) for c in defence]})
    return out


def game_id_for(deal: object) -> str:
    """The id of an imported deal: a digest of its content (the parsed JSON, keys
    sorted, no whitespace), the same however the file is laid out or wherever it is read.

    >>> game_id_for({"tricks": [], "version": "3"}) == game_id_for({"version": "3", "tricks": []})
    True
    """
    text = orjson.dumps(deal, option=orjson.OPT_SORT_KEYS)
    return "tarotclub-" + hashlib.sha256(text).hexdigest()[:16]


def read_tarotclub(path: str, stop: int | None = None) -> Iterator[SourceItem]:
    """The deals of a TarotClub file: one deal object, or JSON Lines of them (one
    item each, streamed).  With ``stop``, the file as it stood at that size.

    A deal written over many lines (an object opened alone on the first line) is
    one document: when it is not JSON, it is one ``malformed_json`` for the file,
    as an EGN document is, never one for each of its lines.
    """
    document = read_document(path, stop)
    if isinstance(document, LongLine):
        yield from _long_input(path, document, stop)
        return
    try:
        deal = orjson.loads(document)
    except orjson.JSONDecodeError as e:
        if not _opens_alone(_first_line(document)):
            yield from _json_lines(path, stop)
        elif not still_written(path, stop):  # else cut where it stood: the next read's, whole
            yield _malformed_document(path, document, e)
        return
    if isinstance(deal, dict) or _opens_alone(_first_line(document)):
        yield _item(path, None, document, deal)
    else:
        yield from _json_lines(path, stop)


def _first_line(document: bytes) -> bytes:
    return next((line for line in document.splitlines() if line.strip()), b"")


def _opens_alone(line: bytes) -> bool:
    """Whether a first line only opens an object or a list: one document written
    over many lines, not JSON Lines (whose every line is a whole deal)."""
    return line.strip() in (b"{", b"[")


def _malformed_document(path: str, document: bytes, error: orjson.JSONDecodeError) -> SourceItem:
    violation = Violation("malformed_json", f"{path} is not valid JSON ({error})", file=path)
    return SourceItem(path, None, document, None, [violation])


def _long_input(path: str, document: LongLine, stop: int | None) -> Iterator[SourceItem]:
    """An input too long to read whole: one deal over many lines is too long a
    document; JSON Lines are read a line at a time."""
    for k, (number, line) in enumerate(iter_lines(path, stop=stop)):
        if k == 0 and _opens_alone(line):
            yield too_long_document(path, document)
            return
        yield _line_item(path, number, line)


def _json_lines(path: str, stop: int | None) -> Iterator[SourceItem]:
    for number, line in iter_lines(path, stop=stop):
        yield _line_item(path, number, line)


def _line_item(path: str, number: int, line: bytes) -> SourceItem:
    parsed = parse_line(path, number, line)
    return parsed if parsed.record is None else _item(path, number, line, parsed.record)


def _item(path: str, line: int | None, raw: bytes, value: object) -> SourceItem:
    game_id = game_id_for(value)
    origin = {"format": "tarotclub", "file": path, "line": line}
    record, problems = deal_to_record(value, game_id=game_id, origin=origin)
    located = [v.at(file=path, line=line) for v in problems]
    return SourceItem(path, line, raw if record is None else None, record, located)


#: 78 TarotClub tokens; the doctest's deal plays them four by four and leaves six for the dog.
_TOKENS = [f"{v:02d}-{s}" for s in "SHDC" for v in range(1, 15)] + [f"{v:02d}-T" for v in range(22)]
_DOCTEST_DEAL: dict[str, Any] = {
    "version": "3",
    "deal_info": {
        "number_of_players": 4,
        "taker": "South",
        "contract": "Guard without",
        "slam": False,
        "first_trick_lead": "South",
        "dog": ";".join(_TOKENS[72:]),
        "attack_handle": "",
        "defense_handle": "",
    },
    "tricks": [";".join(_TOKENS[4 * t : 4 * t + 4]) for t in range(18)],
}

__all__ = ["deal_to_record", "game_id_for", "looks_like_tarotclub", "parse_card", "read_tarotclub"]
