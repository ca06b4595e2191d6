"""Importing EGN (Euchre Game Notation) and EMN (match) files into euchre/1.

An ``.egn`` file is one JSON document per game; an ``.emn`` file bundles games.
Tricks list cards in the order played without seats, so the seats are found
by replaying the lead rule: the first leader by the record's rules (the
replay's own ``rules.first_leader``), then each trick's winner.  Hands are not recorded; the replay infers them.

What cannot be checked honestly (a rule tricklog does not implement, a deal in
an encoding it does not decode, an unknown card played) becomes an
``unsupported`` violation and that deal is left out; the deals around it are
still checked, as separate stretches (see :func:`read_egn`).

>>> card_token("Ad", None), card_token("Nc", None), card_token("Xx", None), card_token("R", 2)
('AD', '9C', '??', 'JH')
>>> card_token("L", 2), card_token("B", None), card_token("", None)
('JD', 'JK', '??')
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from pipeline.games.euchre.cards import (
    JACK,
    SAME_COLOUR,
    SUITS,
    UNKNOWN,
    card_name,
    card_of,
    parse_card,
)
from pipeline.games.euchre.importers.egn_condensed import (
    CondensedError,
    CondensedUnsupported,
    decode_condensed,
)
from pipeline.games.euchre.record import int_pair
from pipeline.games.euchre.rules import (
    RULE_MAX,
    AloneLead,
    Rules,
    RulesError,
    first_active,
    first_leader,
    partner_of,
    sitting_out,
    team_of,
)
from pipeline.games.euchre.trick import play_order, trick_winner_index
from pipeline.sources import LongLine, SourceItem, read_document, still_written, too_long_document
from pipeline.violations import Violation

EGN_TYPE = "Euchre Game Notation"
EMN_TYPE = "Euchre Match Notation"
FILE_TYPES = (EGN_TYPE, EMN_TYPE, "EGN", "EMN")
SOURCE = "egn"
#: ``winning_score`` 0 (a fixed number of deals) means no target, which euchre/1
#: cannot say: the largest target it allows stands in (2,500 deals at 4 points).
NO_TARGET = RULE_MAX["target"]
_SUIT_LETTERS = {"c": 0, "d": 1, "h": 2, "s": 3}
#: Round-one acceptances of the upcard: the schema's "Order", and the replayer
#: document's "PickUp", "Call" and "Alone" (the last also makes the maker alone).
ORDER_CALLS = frozenset(("Order", "PickUp", "Call", "Alone"))
_SNIFF = re.compile(
    rb'^\s*\{.*?"fileType"\s*:\s*"(Euchre Game Notation|Euchre Match Notation|EGN|EMN)"', re.S
)


def looks_like_egn(head: bytes) -> bool:
    """Whether the first bytes of a file are an EGN or EMN JSON document.

    >>> looks_like_egn(b'{"fileType": "Euchre Game Notation", "version": "1.6"')
    True
    >>> looks_like_egn(b'{"format":"euchre/1","game_id":"g"}')
    False
    """
    return _SNIFF.match(head.removeprefix(b"\xef\xbb\xbf")) is not None


def card_token(token: object, trump: int | None) -> str | None:
    """The euchre/1 token of an EGN card: ``"??"`` when unknown, None when not a card.

    ``R`` and ``L`` (the bowers) and the generic suits ``t`` (trump) and ``n``
    (next) need the trump suit; without it they are unknown.  The green suit
    ``g`` does not say which suit it is: unknown.  An empty string is a slot the
    EGN editor left unfilled (its kitty is written ``["", "", ""]``): unknown.
    """
    if not isinstance(token, str):
        return None
    if token == "":
        return "??"
    if token == "B":
        return "JK"
    if token in ("R", "L"):
        if trump is None:
            return "??"
        return card_name(card_of(JACK, trump if token == "R" else SAME_COLOUR[trump]))
    if len(token) != 2:
        return None
    rank, suit_letter = token[0], token[1].lower()
    if rank == "X" or suit_letter in ("x", "g"):
        return "??"
    if suit_letter in ("t", "n"):
        if trump is None:
            return "??"
        suit = trump if suit_letter == "t" else SAME_COLOUR[trump]
    elif suit_letter in _SUIT_LETTERS:
        suit = _SUIT_LETTERS[suit_letter]
    else:
        return None
    card = parse_card(("9" if rank == "N" else rank) + SUITS[suit])
    return None if card is None or card == UNKNOWN else card_name(card)


# --------------------------------------------------------------------------
# Reading files


def read_egn(path: str, stop: int | None = None) -> Iterator[SourceItem]:
    """One SourceItem per game of an ``.egn`` or ``.emn`` file.

    A game whose deals are all checkable is one item.  Where a deal cannot be
    checked, it is reported as ``unsupported`` and the game is cut there: each
    stretch of checkable deals becomes its own record (``game_id`` suffixed
    ``@deals-A-B``, no final score claim), so that dealer rotation and scores
    stay true within each stretch.  A document that cannot be read at all is an
    item with ``record=None``, the raw bytes and a ``malformed_json`` or
    ``schema`` violation; one longer than ``--max-line-bytes``, its first KiB and
    ``document_too_long``.  With ``stop``, the file as it stood at that size: a
    document that has grown since is being written, and is left for the next read.
    """
    if still_written(path, stop):
        return
    raw = read_document(path, stop)
    if isinstance(raw, LongLine):
        yield too_long_document(path, raw)
        return
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        yield _failed(path, raw, "malformed_json", f"{path} is not valid JSON ({e})")
        return
    if not isinstance(document, dict) or document.get("fileType") not in FILE_TYPES:
        yield _failed(path, raw, "schema", f"{path} has no EGN or EMN fileType")
        return
    try:
        if document["fileType"] in (EMN_TYPE, "EMN"):
            items = list(_read_match(path, raw, document))
        else:
            items = list(_read_game(path, raw, document, None, None))
    except SHAPE_ERRORS as e:
        items = [_failed(path, raw, "schema", f"{path}: {_shape_problem(e)}")]
    yield from items


def _failed(path: str, raw: bytes, code: str, message: str, line: int | None = None) -> SourceItem:
    return SourceItem(path, line, raw, None, [Violation(code, message, file=path, line=line)])


def _read_match(path: str, raw: bytes, document: dict[str, Any]) -> Iterator[SourceItem]:
    metadata = document.get("metadata")
    games = document.get("games")
    if not isinstance(metadata, dict) or not isinstance(games, list):
        yield _failed(path, raw, "schema", f"{path}: an EMN match needs a metadata object and a games list")
        return
    names = {
        p["id"]: p.get("name", p["id"])
        for p in metadata.get("players", [])
        if isinstance(p, dict) and "id" in p
    }
    for index, game in enumerate(games):
        if not isinstance(game, dict) or not isinstance(game.get("gameData"), dict):
            yield _failed(path, raw, "schema", f"{path}: games[{index}] has no gameData object", index)
            continue
        override = game.get("playersOverride")
        players = [str(names.get(p, p)) for p in override] if isinstance(override, list) else None
        yield from _read_game(path, None, game["gameData"], players, index)


# --------------------------------------------------------------------------
# One game


@dataclass(slots=True)
class _Game:
    """A game being converted: what every deal needs, and what went wrong."""

    file: str
    game_id: str
    ruleset: dict[str, Any]
    line: int | None
    violations: list[Violation] = field(default_factory=list)
    #: The rules the replay judges the record by, so that the importer seats tricks as it does.
    rules: Rules = field(init=False)

    def __post_init__(self) -> None:
        self.rules = replay_rules(self.ruleset)

    def unsupported(self, message: str, rule: str, path: str = "", code: str = "unsupported") -> None:
        self.violations.append(
            Violation(
                code, message, game_id=self.game_id, path=path, file=self.file, line=self.line, rule=rule
            )
        )


@dataclass(slots=True)
class _Hand:
    """One converted deal: the euchre/1 hand and its own findings."""

    number: int
    hand: dict[str, Any]
    #: (code, path inside the hand, message, rule, seat at fault) found by the importer itself.
    findings: list[tuple[str, str, str, str | None, int | None]] = field(default_factory=list)


def content_id(egn: dict[str, Any], players: list[str] | None = None) -> str:
    """The id of an EGN game that has no ``gameId``: from its content, never its file name,
    so that copies of one game under other names get the same id.

    >>> content_id({"deals": []}) == content_id({"deals": []}), content_id({"deals": []})[:4]
    (True, 'egn-')
    """
    text = orjson.dumps([egn, players], option=orjson.OPT_SORT_KEYS)
    return "egn-" + hashlib.sha256(text).hexdigest()[:16]


def _read_game(
    path: str,
    raw: bytes | None,
    egn: dict[str, Any],
    players: list[str] | None,
    line: int | None,
) -> Iterator[SourceItem]:
    metadata = egn.get("metadata")
    deals = egn.get("deals")
    if not isinstance(metadata, dict) or not isinstance(deals, list):
        yield _failed(
            path, raw or b"", "schema", f"{path}: an EGN game needs a metadata object and a deals list", line
        )
        return
    ruleset: dict[str, Any] = metadata["ruleset"] if isinstance(metadata.get("ruleset"), dict) else {}
    given = metadata.get("gameId")
    game_id = given if isinstance(given, str) and given else content_id(egn, players)
    game = _Game(path, game_id, ruleset, line)
    if _game_unsupported(game):
        yield SourceItem(path, line, raw, None, game.violations)
        return
    stretches = _convert_deals(game, deals)
    _check_num_deals(game, len(deals), whole=len(stretches) == 1)
    base = _base_record(game, metadata, players or metadata.get("players"))
    _check_metadata(game, metadata, players or metadata.get("players"))
    records = _assemble(game, base, metadata, stretches)
    if not records and not game.violations:  # no deal recorded: a game with no hands
        records = [({**base, "hands": [], "origin": _origin(game, [])}, [])]
    if not records:
        yield SourceItem(path, line, raw, None, game.violations)
        return
    for k, (record, findings) in enumerate(records):
        yield SourceItem(path, line, None, record, (game.violations if k == 0 else []) + findings)


def _check_metadata(game: _Game, metadata: dict[str, Any], players: object) -> None:
    """What the record leaves out or reads otherwise, said (``schema``): a ruleset
    that is no object (the defaults are used), a date that is no text (left out),
    more than four players (the first four sit)."""
    ruleset = metadata.get("ruleset")
    if ruleset is not None and not isinstance(ruleset, dict):
        game.unsupported(
            f"metadata.ruleset must be an object, not {ruleset!r}: the default rules were used",
            "ruleset",
            "metadata.ruleset",
            code="schema",
        )
    date = metadata.get("date")
    if date is not None and not isinstance(date, str):
        game.unsupported(
            f"metadata.date must be a date as text, not {date!r}: it was left out",
            "date",
            "metadata.date",
            code="schema",
        )
    if isinstance(players, list) and len(players) > 4:
        game.unsupported(
            f"{len(players)} players are named; Euchre seats 4: the first four were seated",
            "players",
            "metadata.players",
            code="schema",
        )


def _game_unsupported(game: _Game) -> bool:
    """Report rules that make every deal of the game uncheckable; True when any does."""
    rules = game.ruleset
    before = len(game.violations)
    if rules.get("num_players", 4) != 4:
        game.unsupported(
            f"ruleset num_players is {rules['num_players']}: only 4-player Euchre is replayed", "num_players"
        )
    if rules.get("go_under"):
        game.unsupported(
            "ruleset go_under: exchanges with the kitty may be unrecorded, so no deal can be checked",
            "go_under",
        )
    if rules.get("min_rank", 9) not in (7, 9):
        game.unsupported(
            f"ruleset min_rank {rules['min_rank']}: only the 24- and 32-card decks are replayed", "min_rank"
        )
    elif rules.get("joker") and rules.get("min_rank", 9) == 7:
        game.unsupported("ruleset joker with min_rank 7: a 33-card deck is not replayed", "joker")
    return len(game.violations) > before


def _rules_object(ruleset: dict[str, Any]) -> dict[str, Any]:
    """The euchre/1 ``rules`` object for an EGN ruleset (preset cards4net plus overrides)."""
    deck = 32 if ruleset.get("min_rank", 9) == 7 else 25 if ruleset.get("joker") else 24
    winning = ruleset.get("winning_score", 10)
    rules: dict[str, Any] = {
        "preset": "cards4net",
        "deck": deck,
        "stick_the_dealer": bool(ruleset.get("std", True)),
        "alone_lead": _alone_lead(ruleset),
        "points_alone_march": ruleset.get("loner_march_score", 4),
        "points_alone_euchre": ruleset.get("loner_euchred_score", 2),
        "defend_alone": bool(ruleset.get("defend_alone", False)),
        "target": winning if isinstance(winning, int) and winning > 0 else NO_TARGET,
    }
    if rules["defend_alone"]:
        # EGN: a lone defender who takes 3 or more tricks scores 4.
        rules["points_defender_alone_euchre"] = 4
        rules["points_defender_alone_march"] = 4
    return rules


def _alone_lead(ruleset: dict[str, Any]) -> AloneLead:
    return "left_of_alone" if ruleset.get("loner_lead") == "LEFT_OF_LONER" else "left_of_dealer"


def replay_rules(ruleset: dict[str, Any]) -> Rules:
    """The rules the replay reads from the record's ``rules`` object: the default
    preset when it refuses them (as ``replay_game`` does, with a ``schema`` violation)."""
    try:
        return Rules.from_record(_rules_object(ruleset))
    except RulesError:
        return Rules()


def _base_record(game: _Game, metadata: dict[str, Any], players: object) -> dict[str, Any]:
    names = (
        [p.get("name", "") if isinstance(p, dict) else p for p in players]
        if isinstance(players, list)
        else []
    )
    names = [n if isinstance(n, str) and n else f"seat {i}" for i, n in enumerate(names[:4])]
    names += [f"seat {i}" for i in range(len(names), 4)]
    record: dict[str, Any] = {
        "format": "euchre/1",
        "game_id": game.game_id,
        "players": names,
        "rules": _rules_object(game.ruleset),
        "source": f"EGN {metadata.get('title', '')}".strip(),
    }
    if isinstance(metadata.get("date"), str):
        record["started_at"] = metadata["date"]
    return record


# --------------------------------------------------------------------------
# Deals into stretches of checkable hands


def _convert_deals(game: _Game, deals: list[Any]) -> list[list[_Hand]]:
    """Convert each deal; an unsupported one ends the current stretch."""
    stretches: list[list[_Hand]] = [[]]
    for position, deal in enumerate(deals):
        number = deal.get("dealNumber", position) if isinstance(deal, dict) else position
        converted = _convert_deal(game, position, number, deal)
        if converted is None:
            stretches.append([])
        else:
            stretches[-1].append(converted)
    return stretches


def _assemble(
    game: _Game, base: dict[str, Any], metadata: dict[str, Any], stretches: list[list[_Hand]]
) -> list[tuple[dict[str, Any], list[Violation]]]:
    """One record per non-empty stretch, with the importer's findings on its hands.

    The claims about the whole game (finalScore) go on a whole game only; the
    initial score on the stretch that starts with the game.
    """
    whole = len(stretches) == 1
    out: list[tuple[dict[str, Any], list[Violation]]] = []
    for k, stretch in enumerate(stretches):
        if not stretch:
            continue
        record = dict(base)
        if not whole:
            record["game_id"] = f"{game.game_id}@deals-{stretch[0].number}-{stretch[-1].number}"
        initial = metadata.get("initialScore")
        if k == 0 and initial is not None and int_pair(initial) != (0, 0):
            record["initial_score"] = initial  # the replay checks it (a bad one is a schema violation)
        if whole and metadata.get("finalScore") is not None and not game.ruleset.get("four_trick_tokens"):
            record["final_score"] = metadata["finalScore"]
        record["hands"] = [h.hand for h in stretch]
        record["origin"] = _origin(game, stretch)
        if k > 0:  # a stretch after an unchecked deal picks the game up part way
            record["origin"]["from_start"] = False
        out.append((record, _findings(game, record["game_id"], stretch)))
    if game.ruleset.get("four_trick_tokens") and metadata.get("finalScore") is not None:
        game.unsupported(
            "ruleset four_trick_tokens: the tokens' extra points are not replayed, finalScore is not checked",
            "four_trick_tokens",
        )
    return out


def _origin(game: _Game, stretch: list[_Hand]) -> dict[str, Any]:
    """Where a record comes from: the file, the game's id, and the deal number of each hand."""
    return {
        "format": SOURCE,
        "file": game.file,
        "game_id": game.game_id,
        "deals": [h.number for h in stretch],
    }


def _findings(game: _Game, game_id: str, stretch: list[_Hand]) -> list[Violation]:
    """The importer's own findings on a stretch's hands, as violations of its record."""
    return [
        Violation(
            code,
            f"hand {index}: {message}",
            game_id=game_id,
            hand=index,
            path=f"hands[{index}]{path}",
            file=game.file,
            line=game.line,
            rule=rule,
            seat=seat,
        )
        for index, converted in enumerate(stretch)
        for code, path, message, rule, seat in converted.findings
    ]


def _check_num_deals(game: _Game, total: int, *, whole: bool) -> None:
    """Deals past ``num_deals``: the first of them, a hand of the game's record
    when every deal was converted (``whole``: deal ``k`` is then hand ``k``)."""
    limit = game.ruleset.get("num_deals", 0)
    if isinstance(limit, int) and 0 < limit < total:
        game.violations.append(
            Violation(
                "game_over",
                f"{total} deals recorded; the ruleset plays {limit} (num_deals)",
                game_id=game.game_id,
                hand=limit if whole else None,
                path=f"deals[{limit}]",
                file=game.file,
                line=game.line,
            )
        )


# --------------------------------------------------------------------------
# One deal


#: What reading a field of an unexpected type raises deep in a conversion: a last
#: resort, turned into a schema violation rather than a crash of the whole run.
SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError)


def _shape_problem(error: Exception) -> str:
    return f"a field has an unexpected type or shape ({type(error).__name__}: {error})"


class _Skip(Exception):
    """This deal cannot be checked: the reason and the rule."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.code = "schema" if rule == "schema" else "unsupported"


def _convert_deal(game: _Game, position: int, number: int, deal: object) -> _Hand | None:
    """The euchre/1 hand of one deal, or None (reported) when it cannot be checked."""
    try:
        if isinstance(deal, str):
            deal = _decode(deal, number)
        if not isinstance(deal, dict):
            raise _Skip(
                f"a deal must be an object or a condensed string, not {type(deal).__name__}", "schema"
            )
        return _DealConverter(game, number, deal).convert()
    except _Skip as skip:
        message = f"file {game.file}, deal {number}: {skip}; this deal is not checked"
        game.unsupported(message, skip.rule, f"deals[{position}]", skip.code)
        return None
    except SHAPE_ERRORS as e:
        message = f"file {game.file}, deal {number}: {_shape_problem(e)}; this deal is not checked"
        game.unsupported(message, "schema", f"deals[{position}]", "schema")
        return None


def _decode(text: str, number: int) -> dict[str, Any]:
    try:
        return decode_condensed(text, number)
    except CondensedUnsupported as e:
        raise _Skip(str(e), e.rule) from e
    except CondensedError as e:
        raise _Skip(f"condensed deal {text[:16]!r}... {e}", "condensed") from e


class _DealConverter:
    """Turns one EGN deal object into a euchre/1 hand."""

    def __init__(self, game: _Game, number: int, deal: dict[str, Any]) -> None:
        self.game = game
        self.number = number
        self.deal = deal
        self.out = _Hand(number, {})
        self.trump: int | None = None

    def convert(self) -> _Hand:
        state = self.deal.get("initialState")
        phases = self.deal.get("phases")
        if not isinstance(state, dict) or not isinstance(phases, list):
            raise _Skip("initialState (an object) and phases (a list) are required", "schema")
        bidding = next((p for p in phases if isinstance(p, dict) and p.get("type") == "EUCHRE_BIDDING"), None)
        play = next((p for p in phases if isinstance(p, dict) and p.get("type") == "TRICK_PLAY"), None)
        if bidding is None:
            raise _Skip("no bidding is recorded (a misdeal or farmer's hand?)", "no_bidding")
        self._initial_state(state)
        maker, alone = self._bids(bidding)
        self._holdings(state)
        defender = self._defender(bidding, maker, alone)
        self._discard(bidding)
        if play is not None:
            self._tricks(play, maker, alone, defender)
        elif self.out.hand.get("bids") and maker is None and len(bidding.get("calls", [])) == 8:
            self.out.hand["thrown_in"] = "all_passed"
        return self.out

    def _initial_state(self, state: dict[str, Any]) -> None:
        dealer = state.get("dealer")
        upcard = card_token(state.get("upCard"), None)
        if upcard == "??":
            raise _Skip("the upcard is unknown, so trump cannot be told", "unknown_card")
        hand = self.out.hand
        hand["dealer"] = dealer
        hand["upcard"] = upcard if upcard is not None else state.get("upCard")

    def _holdings(self, state: dict[str, Any]) -> None:
        """playerCards and kitty, read once trump is known (for R, L, t, n).

        EGN 1.0 editors write ``player_cards``.  A kitty with no known card
        (``[]``, ``["", "", ""]``) was not recorded, as if absent.
        """
        hand = self.out.hand
        cards = state.get("playerCards", state.get("player_cards"))
        if isinstance(cards, list) and any(cards):
            hand["deal"] = [self._cards(h) if h else ["??"] * 5 for h in cards]
        kitty = state.get("kitty")
        if isinstance(kitty, list) and any(card_token(t, None) != "??" for t in kitty):
            hand["kitty"] = self._cards(kitty)
        elif kitty is not None and not isinstance(kitty, list):
            hand["kitty"] = kitty  # the replay reports it as malformed

    def _cards(self, tokens: object) -> list[Any]:
        if not isinstance(tokens, list):
            return [tokens]
        return [t if (c := card_token(t, self.trump)) is None else c for t in tokens]

    def _bids(self, bidding: dict[str, Any]) -> tuple[int | None, bool]:
        """Calls to bids from the dealer's left; the maker's seat and whether alone."""
        calls = bidding.get("calls")
        dealer = self.out.hand["dealer"]
        if not isinstance(calls, list) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
            raise _Skip(f"dealer {dealer!r} and calls {calls!r} do not make a 4-player bidding", "schema")
        if bidding.get("cardExchanges"):
            raise _Skip("cards were exchanged (partners_best, go_under or farmers)", "card_exchange")
        bids: list[dict[str, Any]] = []
        maker: int | None = None
        for i, call in enumerate(calls):
            seat = (dealer + 1 + i) % 4
            bids.append({"seat": seat, "call": self._call(call, i)})
            if maker is None and call != "Pass":
                maker = seat
                self._set_trump(call, i)
        alone = bidding.get("isAlone") is True or "Alone" in calls
        if alone and maker is not None:
            bids[calls.index(next(c for c in calls if c != "Pass"))]["alone"] = True
        self.out.hand["bids"] = bids
        self._check_canadian(dealer, maker, alone, calls)
        return maker, alone

    def _call(self, call: object, index: int) -> object:
        if call == "n":
            raise _Skip("a no-trump call ('n')", "no_trump")
        if call == "x":
            raise _Skip("an unknown call ('x')", "unknown_call")
        if call == "Pass":
            return "pass"
        if call in ORDER_CALLS:
            return "order"
        if isinstance(call, str) and call in _SUIT_LETTERS:
            return call.upper()
        return call  # the replay reports it as a malformed bid

    def _set_trump(self, call: object, index: int) -> None:
        if call in ORDER_CALLS:
            upcard = parse_card(self.out.hand["upcard"])
            self.trump = None if upcard is None or upcard > 31 else upcard >> 3
        elif isinstance(call, str) and call in _SUIT_LETTERS:
            self.trump = _SUIT_LETTERS[call]

    def _check_canadian(self, dealer: int, maker: int | None, alone: bool, calls: list[Any]) -> None:
        ordered = maker is not None and calls.index(next(c for c in calls if c != "Pass")) < 4
        if self.game.ruleset.get("canadian") and ordered and maker == partner_of(dealer) and not alone:
            self.out.findings.append(
                (
                    "bid_illegal",
                    ".bids",
                    f"seat {maker}, the dealer's partner, ordered the upcard up without going alone (Canadian loner)",
                    "canadian_loner",
                    maker,
                )
            )

    def _defender(self, bidding: dict[str, Any], maker: int | None, alone: bool) -> int | None:
        seat = bidding.get("aloneDefender", -1)
        if seat == -1 or seat is None:
            return None
        if self.game.ruleset.get("partners_best") and alone:
            raise _Skip(
                "partners_best with a loner: the partner's card passed may be unrecorded", "partners_best"
            )
        self.out.hand["defender_alone"] = seat
        return seat if isinstance(seat, int) and 0 <= seat <= 3 else None

    def _discard(self, bidding: dict[str, Any]) -> None:
        ordered = any(b["call"] == "order" for b in self.out.hand["bids"])
        if "discard" in bidding:
            self.out.hand["discard"] = self._cards([bidding["discard"]])[0]
        elif ordered:
            self.out.hand["discard"] = "??"  # EGN: the discard is optional

    def _tricks(self, play: dict[str, Any], maker: int | None, alone: bool, defender: int | None) -> None:
        tricks = play.get("tricks")
        if not isinstance(tricks, list) or not all(isinstance(t, list) for t in tricks):
            raise _Skip("tricks must be a list of card lists", "schema")
        if self.game.ruleset.get("partners_best") and alone:
            raise _Skip(
                "partners_best with a loner: the partner's card passed may be unrecorded", "partners_best"
            )
        tokens = [self._cards(t) for t in tricks]
        for t, trick in enumerate(tokens):
            if "??" in trick:
                raise _Skip(
                    f"trick {t} holds an unknown card, so its seats and winner cannot be told", "unknown_card"
                )
        leader = self._initial_lead(play, maker, alone, defender)
        if leader is None:
            leader = self._rule_lead(maker, alone, defender)
        seated = seat_tricks(tokens, leader, maker, alone, defender, self.trump)
        self.out.hand["tricks"] = seated
        self._check_fast_break(seated, maker)

    def _initial_lead(
        self, play: dict[str, Any], maker: int | None, alone: bool, defender: int | None
    ) -> int | None:
        """The seat the file says led the first trick (``initialLead``), if it says.

        The record then shows that seat leading, and the replay judges it
        against the lead rule (a ``lead`` violation when they differ).
        """
        seat = play.get("initialLead")
        if seat is None:
            return None
        if type(seat) is not int or not 0 <= seat <= 3 or seat in sitting_out(maker, alone, defender):
            raise _Skip(f"initialLead {seat!r} is not a seat in play", "schema")
        return seat

    def _rule_lead(self, maker: int | None, alone: bool, defender: int | None) -> int:
        """The first leader by the record's rules, as the replay seats it."""
        dealer: int = self.out.hand["dealer"]
        if maker is None:  # nobody named trump (the replay reports the play): no lone maker
            return first_leader(self.game.rules, dealer, dealer, False, defender)
        return first_leader(self.game.rules, dealer, maker, alone, defender)

    def _check_fast_break(self, seated: list[list[list[Any]]], maker: int | None) -> None:
        if not self.game.ruleset.get("fast_break") or maker is None or self.trump is None or len(seated) != 5:
            return
        winners = [_winner(trick, self.trump) for trick in seated]
        makers = [w is not None and team_of(w) == team_of(maker) for w in winners]
        if makers == [False, False, True, True, True]:
            raise _Skip("fast_break scores this deal 0-0, which is not replayed", "fast_break")


# --------------------------------------------------------------------------
# Seats from the lead rule


def seat_tricks(
    tricks: list[list[Any]],
    leader: int,
    maker: int | None,
    alone: bool,
    defender: int | None,
    trump: int | None,
) -> list[list[list[Any]]]:
    """Tricks as ``[[seat, card], ...]``: seats clockwise from each leader (the
    first given), skipping those sitting out; the winner of a trick leads the next.

    >>> seat_tricks([["AC", "TC", "9C", "KC"], ["AH", "KH", "TH", "QD"]], 0, 0, False, None, 1)
    [[[0, 'AC'], [1, 'TC'], [2, '9C'], [3, 'KC']], [[0, 'AH'], [1, 'KH'], [2, 'TH'], [3, 'QD']]]
    """
    out = sitting_out(maker, alone, defender)
    seated: list[list[list[Any]]] = []
    for trick in tricks:
        order = play_order(leader if leader not in out else first_active(0, out), out)
        plays = [[order[k % len(order)], card] for k, card in enumerate(trick)]
        seated.append(plays)
        winner = _winner(plays, trump)
        # No winner (a bad card): the replay reports it; seat the rest from the next seat.
        leader = order[1 % len(order)] if winner is None else winner
    return seated


def _winner(plays: list[list[Any]], trump: int | None) -> int | None:
    cards = [parse_card(card) for _, card in plays]
    if trump is None or not cards or any(c is None or c == UNKNOWN for c in cards):
        return None
    known = [c for c in cards if c is not None]
    seat: int = plays[trick_winner_index(known, trump)][0]
    return seat
