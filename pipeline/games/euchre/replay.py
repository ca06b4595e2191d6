"""Replaying a euchre/1 game record against the rules of its variant.

A game is replayed hand by hand; a hand goes through explicit phases (deal,
bidding, discard, play, scoring), each a small function that checks what the
record says happened against what the rules allow, appends a violation for
each problem and goes on with what the record says, so that one fault gives
one violation rather than a cascade.

Where ``deal`` is absent or holds ``"??"``, the holdings are inferred from the
play: a seat held every card it played, so failing to follow a suit it plays
later is still a renege, and a card played twice or by two seats is still
caught.

>>> import json
>>> game = replay_game(json.loads(_DOCTEST_GAME))
>>> [v.code for v in game.violations]
['renege']
>>> game.violations[0].message
'hand 0, trick 1: seat 1 played QS on a diamond (trump) lead while holding 9D'
>>> game.hands[0].maker, game.hands[0].maker_tricks, game.hands[0].points
(0, 5, (2, 0))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.games.euchre.cards import (
    CARD_CODES,
    EFFECTIVE,
    JOKER,
    POWER,
    RANKS,
    SUIT_MASK,
    UNKNOWN,
    bit,
    card_name,
    cards_in,
    deck_mask,
    parse_card,
    rank_of,
    suit_of,
)
from pipeline.games.euchre.rules import (
    Rules,
    RulesError,
    dealer_picks_up,
    first_leader,
    hand_points,
    sitting_out,
)
from pipeline.violations import Violation

SUIT_NAMES = ("club", "diamond", "heart", "spade")
CALLS = {"pass": None, "order": -1, "C": 0, "D": 1, "H": 2, "S": 3}
THROW_IN_REASONS = ("all_passed", "farmers_hand")
GAME_FIELDS = frozenset(
    ("format", "game_id", "players", "rules", "started_at", "source", "hands", "final_score")
) | {"initial_score", "origin"}  # tricklog's own: a game picked up part way, an imported game
_NINES_AND_TENS = [bit(s * 8 + RANKS.index(r)) for s in range(4) for r in "9T"]
NINES_AND_TENS = sum(_NINES_AND_TENS)


DECKS = {size: deck_mask(size) for size in (24, 25, 32)}
#: Per deck size, every accepted spelling of its cards (and "??"): one dict lookup a card.
DECK_TOKENS: dict[int, dict[str, int]] = {
    size: {t: c for t, c in CARD_CODES.items() if c == UNKNOWN or mask >> c & 1}
    for size, mask in DECKS.items()
}
#: Per deck size, the bit of each known card's spellings.
DECK_BITS: dict[int, dict[str, int]] = {
    size: {t: 1 << c for t, c in tokens.items() if c != UNKNOWN} for size, tokens in DECK_TOKENS.items()
}
#: For each set of active seats, the order of play from each leader.
PLAY_ORDER: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {
    active: tuple(tuple(s for s in ((lead + i) % 4 for i in range(4)) if s in active) for lead in range(4))
    for active in (tuple(s for s in range(4) if m >> s & 1) for m in range(16))
}


def team_of(seat: int) -> int:
    return seat & 1


@dataclass(slots=True)
class Bid:
    seat: int
    call: str
    alone: bool


@dataclass(slots=True)
class HandResult:
    """What one hand came to, as the replay saw it."""

    index: int
    dealer: int
    upcard: int = UNKNOWN
    bids: list[Bid] = field(default_factory=list)
    trump: int | None = None
    maker: int | None = None
    #: 1 = the upcard was ordered up, 2 = trump was named in round two.
    round: int | None = None
    alone: bool = False
    defender_alone: int | None = None
    discard: int | None = None
    #: Per trick: the plays as (seat, card) in order, its leader and winner.
    tricks: list[list[tuple[int, int]]] = field(default_factory=list)
    leaders: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    maker_tricks: int = 0
    points: tuple[int, int] = (0, 0)
    score: tuple[int, int] = (0, 0)
    thrown_in: str | None = None
    #: Five tricks were played (or the hand was thrown in).
    complete: bool = False
    #: The hand has no violation.
    valid: bool = True
    #: The deal was recorded in full (no holding had to be inferred).
    deal_known: bool = False

    @property
    def maker_team(self) -> int | None:
        return None if self.maker is None else team_of(self.maker)


@dataclass(slots=True)
class GameReplay:
    """A replayed game: its hands, running score and every violation found."""

    game_id: str | None
    rules: Rules | None
    hands: list[HandResult] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    score: tuple[int, int] = (0, 0)
    #: The hand after which a team reached the target, if one did.
    ended_at: int | None = None
    #: Top-level fields the spec does not name: kept by the loader, warned about.
    unknown_fields: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.ended_at is not None

    @property
    def winner(self) -> int | None:
        if not self.complete:
            return None
        return 0 if self.score[0] > self.score[1] else 1


class _Context:
    """Collects violations for one game, stamped with its id."""

    __slots__ = ("game_id", "violations")

    def __init__(self, game_id: str | None) -> None:
        self.game_id = game_id
        self.violations: list[Violation] = []

    def add(self, code: str, hand: int | None, path: str, message: str, rule: str | None = None) -> None:
        where = "" if hand is None else f"hand {hand}, " if message.startswith("trick ") else f"hand {hand}: "
        self.violations.append(Violation(code, where + message, self.game_id, hand, path, rule=rule))


def replay_game(record: dict[str, Any], rules: Rules | None = None) -> GameReplay:
    """Replay one euchre/1 game object; ``rules`` overrides the record's own."""
    game_id = record.get("game_id")
    ctx = _Context(game_id if isinstance(game_id, str) and game_id else None)
    _check_game_fields(ctx, record)
    if rules is None:
        try:
            rules = Rules.from_record(record.get("rules"))
        except RulesError as e:
            ctx.add("schema", None, "rules", f"{e}; replayed with the default preset")
            rules = Rules()
    game = GameReplay(ctx.game_id, rules)
    game.unknown_fields = [k for k in record if k not in GAME_FIELDS]
    hands = record.get("hands")
    if isinstance(hands, list):
        _replay_hands(ctx, game, rules, hands, int_pair(record.get("initial_score")) or (0, 0))
        _check_final_score(ctx, game, record.get("final_score"))
    game.violations = ctx.violations
    return game


def _check_game_fields(ctx: _Context, record: dict[str, Any]) -> None:
    if record.get("format") != "euchre/1":
        ctx.add("schema", None, "format", f"format is {record.get('format')!r}, expected 'euchre/1'")
    if ctx.game_id is None:
        ctx.add("schema", None, "game_id", "game_id is missing or not a non-empty string")
    players = record.get("players")
    if not (isinstance(players, list) and len(players) == 4 and all(isinstance(p, str) for p in players)):
        ctx.add("schema", None, "players", "players must be a list of 4 names, indexed by seat")
    if not isinstance(record.get("hands"), list):
        ctx.add("schema", None, "hands", "hands is missing or not a list")
    initial = record.get("initial_score")
    if initial is not None and int_pair(initial) is None:
        ctx.add("schema", None, "initial_score", f"initial_score must be [team0, team1], not {initial!r}")


def _replay_hands(
    ctx: _Context, game: GameReplay, rules: Rules, hands: list[Any], initial: tuple[int, int]
) -> None:
    score = [initial[0], initial[1]]
    previous_dealer: int | None = None
    claim_offset = (0, 0)
    for index, hand in enumerate(hands):
        if game.ended_at is not None:
            ctx.add(
                "game_over",
                index,
                f"hands[{index}]",
                f"recorded after the game ended at {score[0]}-{score[1]} in hand {game.ended_at}",
            )
        result = _replay_hand(ctx, rules, index, hand, previous_dealer)
        if result is None:
            continue
        score[0] += result.points[0]
        score[1] += result.points[1]
        result.score = (score[0], score[1])
        claim_offset = _check_claimed_score(ctx, index, hand, result.score, claim_offset)
        previous_dealer = result.dealer
        game.hands.append(result)
        if game.ended_at is None and max(score) >= rules.target:
            game.ended_at = index
    game.score = (score[0], score[1])


def _check_claimed_score(
    ctx: _Context, index: int, hand: dict[str, Any], score: tuple[int, int], offset: tuple[int, int]
) -> tuple[int, int]:
    """Report a claimed running score when it departs from the replay.

    A log whose running score went wrong once stays wrong by the same amount:
    that is one violation, not one per remaining hand.
    """
    claimed = hand.get("claimed")
    pair = int_pair(claimed.get("score")) if isinstance(claimed, dict) else None
    if pair is None:
        return offset
    new_offset = (pair[0] - score[0], pair[1] - score[1])
    if new_offset != offset and new_offset != (0, 0):
        ctx.add(
            "score",
            index,
            f"hands[{index}].claimed.score",
            f"the log claims a score of {pair[0]}-{pair[1]}, the replay gives {score[0]}-{score[1]}",
        )
    return new_offset


def _check_final_score(ctx: _Context, game: GameReplay, claimed: object) -> None:
    if claimed is None:
        return
    pair = int_pair(claimed)
    if pair is None:
        ctx.add("schema", None, "final_score", f"final_score must be [team0, team1], not {claimed!r}")
    elif pair != game.score:
        ctx.add(
            "score",
            None,
            "final_score",
            f"the log claims a final score of {pair[0]}-{pair[1]}, "
            f"the replay gives {game.score[0]}-{game.score[1]}",
        )


#: The largest score (or points) a pair may hold: scores stay far from overflowing the warehouse's columns.
MAX_SCORE = 1_000_000


def int_pair(value: object) -> tuple[int, int] | None:
    """A ``[team0, team1]`` pair of whole numbers (at most :data:`MAX_SCORE` in size), or None."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) and abs(x) <= MAX_SCORE for x in value)
    ):
        return value[0], value[1]
    return None


def _is_seat(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3


# --------------------------------------------------------------------------
# One hand: the phase machine


class _Hand:
    """The state of one hand being replayed."""

    __slots__ = (
        "ctx",
        "deck",
        "held",
        "index",
        "later",
        "out_of_play",
        "result",
        "rules",
        "slots",
        "tokens",
        "unsure_holding",
    )

    def __init__(self, ctx: _Context, rules: Rules, index: int, dealer: int) -> None:
        self.ctx = ctx
        self.rules = rules
        self.index = index
        self.deck = DECKS[rules.deck]
        self.tokens = DECK_TOKENS[rules.deck]
        self.result = HandResult(index, dealer)
        #: Known cards each seat still holds, and how many unknown ones.
        self.held = [0, 0, 0, 0]
        self.slots = [5, 5, 5, 5]
        #: Cards each seat plays later in this hand (so it held them before).
        self.later = [0, 0, 0, 0]
        #: Cards that no seat can play: kitty, turned-down upcard, discard, played.
        self.out_of_play = 0
        #: A seat whose known holding may include a card it discarded unseen.
        self.unsure_holding: int | None = None

    def add(self, code: str, path: str, message: str, rule: str | None = None) -> None:
        self.result.valid = False
        self.ctx.add(code, self.index, f"hands[{self.index}]{path}", message, rule)

    def card(self, token: object, path: str, *, unknown_ok: bool = True) -> int | None:
        """Parse a card token, reporting a bad one; None when it is unusable."""
        card = self.tokens.get(token) if type(token) is str else None
        if card is not None and (card != UNKNOWN or unknown_ok):
            return card
        return self.bad_card(token, path, unknown_ok)

    def bad_card(self, token: object, path: str, unknown_ok: bool) -> int | None:
        """The slow path of :meth:`card`: odd spellings, and tokens to report."""
        card = parse_card(token)
        if card is None:
            self.add("bad_card", path, f"{token!r} is not a card")
            return None
        if card == UNKNOWN:
            if unknown_ok:
                return UNKNOWN
            self.add("bad_card", path, "a played card cannot be unknown ('??')")
            return None
        if not self.deck >> card & 1:
            self.add("bad_card", path, f"{card_name(card)} is not a card of the {self.rules.deck}-card deck")
            return None
        return card


def _replay_hand(
    ctx: _Context, rules: Rules, index: int, hand: object, previous_dealer: int | None
) -> HandResult | None:
    if not isinstance(hand, dict):
        ctx.add("schema", index, f"hands[{index}]", "a hand must be an object")
        return None
    dealer = hand.get("dealer")
    if not _is_seat(dealer):
        ctx.add("schema", index, f"hands[{index}].dealer", f"dealer must be a seat 0-3, not {dealer!r}")
        return None
    assert isinstance(dealer, int)
    state = _Hand(ctx, rules, index, dealer)
    if previous_dealer is not None and dealer != (previous_dealer + 1) % 4:
        state.add(
            "dealer_rotation",
            ".dealer",
            f"seat {dealer} dealt; the deal passes clockwise, so it was seat {(previous_dealer + 1) % 4}'s",
        )
    _deal_phase(state, hand)
    if not _throw_in_phase(state, hand) and _bidding_phase(state, hand):
        _defender_alone_phase(state, hand)
        _discard_phase(state, hand)
        _play_phase(state, hand)
    _scoring_phase(state, hand)
    return state.result


def _deal_phase(state: _Hand, hand: dict[str, Any]) -> None:
    """Read deal, upcard and kitty; check the deck (counts, cards dealt twice)."""
    result = state.result
    seen = 0
    upcard_token = hand.get("upcard")
    if upcard_token is None:
        state.add("schema", ".upcard", "upcard is missing")
    else:
        upcard = state.card(upcard_token, ".upcard", unknown_ok=False)
        if upcard is not None:
            result.upcard = upcard
            seen = bit(upcard)
    deal = hand.get("deal")
    if deal is not None:
        seen = _read_deal(state, deal, seen)
    kitty = hand.get("kitty")
    if kitty is not None:
        seen = _read_kitty(state, kitty, seen)


def _read_deal(state: _Hand, deal: object, seen: int) -> int:
    if not (isinstance(deal, list) and all(isinstance(h, list) for h in deal)):
        state.add("schema", ".deal", "deal must be 4 lists of cards, indexed by seat")
        return seen
    if len(deal) != 4 or any(len(h) != 5 for h in deal):
        counts = [len(h) for h in deal]
        state.add("deck", ".deal", f"deal must give 5 cards to each of 4 seats, not {counts}")
        return seen
    if _read_clean_deal(state, deal, seen):
        return seen | state.held[0] | state.held[1] | state.held[2] | state.held[3]
    return _read_deal_by_card(state, deal, seen)


def _read_deal_by_card(state: _Hand, deal: list[list[Any]], seen: int) -> int:
    """Read a deal card by card, reporting each bad or repeated card."""
    known_all = True
    tokens = state.tokens
    held = state.held
    for seat, cards in enumerate(deal):
        for k, token in enumerate(cards):
            card = tokens.get(token) if type(token) is str else None
            if card is None:
                card = state.bad_card(token, f".deal[{seat}][{k}]", True)
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


def _read_clean_deal(state: _Hand, deal: list[list[Any]], seen: int) -> bool:
    """The common case in a few operations: 20 known, distinct cards of the deck.

    Anything else (an unknown, odd or repeated card) returns False and leaves
    the state alone, for :func:`_read_deal` to read card by card and report.
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


def _read_kitty(state: _Hand, kitty: object, seen: int) -> int:
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
        card = state.card(token, f".kitty[{k}]")
        if card is None or card == UNKNOWN:
            continue
        if seen >> card & 1:
            state.add("deck", f".kitty[{k}]", f"{card_name(card)} is dealt twice")
            continue
        seen |= bit(card)
        state.out_of_play |= bit(card)
    return seen


def _throw_in_phase(state: _Hand, hand: dict[str, Any]) -> bool:
    """Check a thrown-in hand (and a farmer's hand that was not); True when thrown in."""
    reason = hand.get("thrown_in")
    farmer = _farmers_seat(state) if state.rules.farmers_hand else None
    if reason is None:
        if farmer is not None:
            state.add(
                "bid_illegal",
                ".thrown_in",
                f"seat {farmer} holds four or more nines and tens: with farmer's hand on, "
                "the hand is thrown in before any call",
                rule="farmers_hand_not_thrown",
            )
        return False
    result = state.result
    result.thrown_in = str(reason)
    result.complete = True
    if reason not in THROW_IN_REASONS:
        state.add("schema", ".thrown_in", f"thrown_in must be 'all_passed' or 'farmers_hand', not {reason!r}")
    elif reason == "farmers_hand":
        _check_farmers_throw_in(state, hand, farmer)
    else:
        _read_bids(state, hand)
        passes = sum(b.call == "pass" for b in result.bids)
        if state.rules.stick_the_dealer:
            state.add(
                "bid_illegal",
                ".thrown_in",
                "thrown in as all passed, but with stick the dealer the dealer must name trump",
                rule="stuck_dealer_pass",
            )
        elif passes != 8 or len(result.bids) != 8:
            state.add("bid_illegal", ".thrown_in", f"thrown in as all passed after {passes} passes, not 8")
    if hand.get("discard") is not None:
        state.add("discard", ".discard", "a thrown-in hand has no discard")
    if hand.get("tricks"):
        state.add("schema", ".tricks", "a thrown-in hand has no tricks")
    return True


def _farmers_seat(state: _Hand) -> int | None:
    for seat in range(4):
        if (state.held[seat] & NINES_AND_TENS).bit_count() >= 4:
            return seat
    return None


def _check_farmers_throw_in(state: _Hand, hand: dict[str, Any], farmer: int | None) -> None:
    if not state.rules.farmers_hand:
        state.add("bid_illegal", ".thrown_in", "thrown in as a farmer's hand, which these rules do not allow")
    elif hand.get("bids"):
        state.add("bid_illegal", ".bids", "a farmer's hand is thrown in before any call")
    elif farmer is None and state.result.deal_known:
        state.add(
            "bid_illegal", ".thrown_in", "thrown in as a farmer's hand, but no seat holds 4 nines and tens"
        )


def _read_bids(state: _Hand, hand: dict[str, Any]) -> list[tuple[int, Bid]]:
    """The bids with their index; an unreadable one is a schema violation and an unknown call."""
    bids = hand.get("bids")
    if not isinstance(bids, list):
        state.add("schema", ".bids", "bids is missing or not a list")
        return []
    out: list[tuple[int, Bid]] = []
    for j, b in enumerate(bids):
        if not (
            isinstance(b, dict)
            and _is_seat(b.get("seat"))
            and isinstance(b.get("call"), str)
            and b["call"] in CALLS
        ):
            state.add(
                "schema", f".bids[{j}]", f"a bid is {{'seat': 0-3, 'call': pass|order|C|D|H|S}}, not {b!r}"
            )
            out.append((j, Bid(UNKNOWN, "?", False)))
            continue
        alone = b.get("alone", False)
        if not isinstance(alone, bool):
            state.add("schema", f".bids[{j}].alone", f"alone must be true or false, not {alone!r}")
            alone = False
        bid = Bid(b["seat"], b["call"], alone)
        state.result.bids.append(bid)
        out.append((j, bid))
    return out


def _bidding_phase(state: _Hand, hand: dict[str, Any]) -> bool:
    """Two rounds of calls from the dealer's left; True when trump was made."""
    result = state.result
    rules = state.rules
    dealer = result.dealer
    upcard_suit = suit_of(result.upcard) if result.upcard not in (UNKNOWN, JOKER) else None
    passes = 0
    for j, bid in _read_bids(state, hand):
        path = f".bids[{j}]"
        if result.maker is not None or passes == 8:
            state.add("bid_turn", path, f"seat {bid.seat} called {bid.call!r} after the bidding had ended")
            continue
        turn = (dealer + 1 + passes) % 4
        if bid.seat == UNKNOWN:  # unreadable: counted as a call, so the turns stay in step
            passes += 1
            continue
        if bid.seat != turn:
            state.add("bid_turn", path, f"seat {bid.seat} called out of turn: it was seat {turn}'s turn")
        _check_call(state, path, bid, 1 if passes < 4 else 2, upcard_suit)
        if bid.call == "pass":
            passes += 1
            continue
        result.maker = bid.seat
        result.alone = bid.alone
        result.round = 1 if bid.call == "order" else 2
        result.trump = upcard_suit if bid.call == "order" else CALLS[bid.call]
    if result.maker is None:
        if hand.get("tricks"):
            state.add("schema", ".bids", "tricks are recorded, but no one made trump in the bids")
        elif passes == 8:
            result.thrown_in = "all_passed"
            result.complete = True
            if rules.stick_the_dealer:
                state.add(
                    "bid_illegal", ".bids", "all passed, but with stick the dealer the dealer must name trump"
                )
        return False
    if result.trump is None:  # ordered up a joker or an unreadable upcard
        state.add("unsupported", ".upcard", "trump cannot be told: the upcard is the joker or unreadable")
        return False
    return True


def _check_call(state: _Hand, path: str, bid: Bid, round_: int, upcard_suit: int | None) -> None:
    rules = state.rules
    call = bid.call
    dealer = state.result.dealer
    if round_ == 1 and call not in ("pass", "order"):
        state.add(
            "bid_illegal",
            path,
            f"seat {bid.seat} named {call} in round one, where only 'order' or 'pass' are allowed",
        )
    elif round_ == 2 and call == "order":
        state.add(
            "bid_illegal",
            path,
            f"seat {bid.seat} ordered the upcard up in round two, after it was turned down",
        )
    elif (
        round_ == 2
        and upcard_suit is not None
        and CALLS.get(call) == upcard_suit
        and not rules.may_name_turned_down_suit
    ):
        state.add(
            "bid_illegal",
            path,
            f"seat {bid.seat} named {SUIT_NAMES[upcard_suit]}s, the suit turned down in round one",
            rule="turned_down_suit",
        )
    elif round_ == 2 and call == "pass" and bid.seat == dealer and rules.stick_the_dealer:
        state.add(
            "bid_illegal",
            path,
            f"the dealer (seat {dealer}) passed in round two; with stick the dealer the dealer must name trump",
            rule="stuck_dealer_pass",
        )
    if bid.alone and call == "pass":
        state.add("bid_illegal", path, f"seat {bid.seat} passed and declared alone")
    elif bid.alone and not rules.allow_alone:
        state.add("bid_illegal", path, f"seat {bid.seat} went alone, which these rules do not allow")


def _defender_alone_phase(state: _Hand, hand: dict[str, Any]) -> None:
    result = state.result
    assert result.maker is not None
    seat = hand.get("defender_alone")
    if seat is None:
        return
    if not _is_seat(seat):
        state.add("schema", ".defender_alone", f"defender_alone must be a seat 0-3, not {seat!r}")
        return
    assert isinstance(seat, int)
    if not state.rules.defend_alone:
        state.add(
            "bid_illegal",
            ".defender_alone",
            f"seat {seat} defended alone, which these rules do not allow",
            rule="defend_alone_forbidden",
        )
    elif team_of(seat) == team_of(result.maker):
        state.add(
            "bid_illegal", ".defender_alone", f"seat {seat} is on the makers' team and cannot defend alone"
        )
    else:
        result.defender_alone = seat


def _discard_phase(state: _Hand, hand: dict[str, Any]) -> None:
    """After an order-up the dealer picks the upcard up and discards one card."""
    result = state.result
    rules = state.rules
    dealer = result.dealer
    token = hand.get("discard")
    upcard = result.upcard
    assert result.maker is not None and result.round is not None
    picks_up = dealer_picks_up(rules, dealer, result.maker, result.alone, result.round)
    if picks_up and token is None and rules.dealer_may_leave_upcard:
        picks_up = False  # the dealer chose to leave the upcard
    if not picks_up:
        if upcard != UNKNOWN:
            state.out_of_play |= bit(upcard)
        if token is not None:
            state.add(
                "discard", ".discard", "a discard is recorded, but the dealer did not pick the upcard up"
            )
        return
    if upcard != UNKNOWN:
        state.held[dealer] |= bit(upcard)
    if token is None:
        state.add(
            "discard",
            ".discard",
            f"the dealer (seat {dealer}) picked up {card_name(upcard)} but no discard is recorded",
        )
        return
    card = state.card(token, ".discard")
    if card is None:
        return
    if card == UNKNOWN:
        _unknown_discard(state, dealer, upcard)
        return
    result.discard = card
    if card == upcard and not rules.dealer_may_discard_upcard:
        state.add(
            "discard",
            ".discard",
            f"the dealer discarded the upcard {card_name(card)}, which these rules forbid",
        )
    if state.held[dealer] >> card & 1:
        state.held[dealer] &= ~bit(card)
    elif state.slots[dealer] > 0 and not _located_elsewhere(state, card, dealer):
        state.slots[dealer] -= 1
    else:
        state.add(
            "discard", ".discard", f"the dealer (seat {dealer}) discarded {card_name(card)}, a card not held"
        )
    state.out_of_play |= bit(card)


def _unknown_discard(state: _Hand, dealer: int, upcard: int) -> None:
    """An unrecorded discard: surely an unknown card only if no known card of the dealer may go."""
    may_go = state.held[dealer]
    if upcard != UNKNOWN and not state.rules.dealer_may_discard_upcard:
        may_go &= ~bit(upcard)
    if state.slots[dealer] > 0 and not may_go:
        state.slots[dealer] -= 1
        return
    # One of the dealer's six cards went (perhaps the upcard it took), and which is
    # not known: only cards the dealer plays later prove what it held.
    state.unsure_holding = dealer


def _located_elsewhere(state: _Hand, card: int, seat: int) -> bool:
    mask = bit(card)
    if state.out_of_play & mask:
        return True
    return any(state.held[s] & mask for s in range(4) if s != seat)


def _play_phase(state: _Hand, hand: dict[str, Any]) -> None:
    """Replay the tricks: turn order, cards held, following suit, winners."""
    result = state.result
    tricks = hand.get("tricks")
    if tricks is None:
        return
    if not isinstance(tricks, list) or len(tricks) > 5:
        shown = f"{len(tricks)} tricks" if isinstance(tricks, list) else repr(tricks)
        state.add("schema", ".tricks", f"tricks must be a list of up to 5 tricks, not {shown}")
        return
    if state.unsure_holding is not None or any(state.slots):
        _note_later_plays(state, tricks)
    assert result.maker is not None
    out = sitting_out(result.maker, result.alone, result.defender_alone)
    active = tuple(s for s in range(4) if s not in out)
    leader = first_leader(state.rules, result.dealer, result.maker, result.alone, result.defender_alone)
    full = True
    for t, trick in enumerate(tricks):
        if type(trick) is not list:
            state.add("schema", f".tricks[{t}]", "a trick is a list of [seat, card] plays")
            return
        winner, played = _play_trick(state, t, trick, leader, active, out)
        if played < len(active):
            full = False
            if t < len(tricks) - 1 and played >= 0:
                state.add(
                    "play_turn", f".tricks[{t}]", f"trick {t} has {played} cards; {len(active)} seats play"
                )
        if winner is None:
            return
        result.winners.append(winner)
        if team_of(winner) == team_of(result.maker):
            result.maker_tricks += 1
        leader = winner
    result.complete = full and len(tricks) == 5


def _note_later_plays(state: _Hand, tricks: list[Any]) -> None:
    """Where holdings are not all known: every card each seat plays (so it held it before)."""
    tokens = state.tokens
    for trick in tricks:
        for play in trick if type(trick) is list else ():
            if type(play) is list and len(play) == 2 and _is_seat(play[0]):
                card = tokens.get(play[1]) if type(play[1]) is str else None
                if card is not None and card != UNKNOWN:
                    state.later[play[0]] |= 1 << card


def _play_trick(
    state: _Hand,
    t: int,
    trick: list[Any],
    leader: int,
    active: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[int | None, int]:
    """Replay one trick; returns its winner (None if it cannot be told) and the
    number of active plays (-1 when a play is not a [seat, card] pair).

    The common case (the right seat, a card it holds, suit followed) costs a few
    bit operations a card; every irregularity goes to a function that reports it.
    """
    result = state.result
    trump = result.trump
    assert trump is not None
    effective = EFFECTIVE[trump]
    held = state.held
    later = state.later
    tokens = state.tokens
    cards: list[int] = []
    seats: list[int] = []
    led = -1
    follow = 0
    order = PLAY_ORDER[active][leader]
    for k, play in enumerate(trick):
        if not (type(play) is list and len(play) == 2 and type(play[0]) is int and 0 <= play[0] <= 3):
            state.add("schema", f".tricks[{t}][{k}]", f"a play is [seat, card], not {play!r}")
            return None, -1
        seat, token = play
        if seat in out or seat in seats:
            _report_extra_play(state, t, k, seat, out)
            continue
        n = len(seats)
        if n >= len(order) or seat != order[n]:
            expected = _next_to_play(leader, seats, active)
            if seat != expected:
                _report_turn(state, t, k, seat, expected, first=not seats)
            if not seats:
                leader = seat
                order = PLAY_ORDER[active][leader]
        card = tokens.get(token) if type(token) is str else None
        if card is None or card == UNKNOWN:
            card = state.bad_card(token, f".tricks[{t}][{k}][1]", False)
            if card is None:
                return None, len(seats)
        mask = 1 << card
        later[seat] &= ~mask
        if held[seat] & mask:
            held[seat] ^= mask
        else:
            _take_unknown_card(state, t, k, seat, card)
        state.out_of_play |= mask
        if led < 0:
            led = effective[card]
            follow = SUIT_MASK[trump][led]
        elif effective[card] != led and (later[seat] | held[seat]) & follow:
            _report_renege(state, t, k, seat, card, led)
        seats.append(seat)
        cards.append(card)
    result.leaders.append(seats[0] if seats else leader)
    result.tricks.append(list(zip(seats, cards, strict=True)))
    if not cards:
        return None, 0
    table = POWER[trump][led]
    best = 0
    for i in range(1, len(cards)):
        if table[cards[i]] > table[cards[best]]:
            best = i
    return seats[best], len(cards)


def _next_to_play(leader: int, played: list[int], active: tuple[int, ...]) -> int:
    """The first active seat, clockwise from the leader, that has not played yet."""
    for step in range(4):
        seat = (leader + step) % 4
        if seat in active and seat not in played:
            return seat
    return leader


def _report_extra_play(state: _Hand, t: int, k: int, seat: int, out: tuple[int, ...]) -> None:
    path = f".tricks[{t}][{k}]"
    if seat in out:
        state.add("sitting_out", path, f"trick {t}: seat {seat} played, but sits out: its partner went alone")
    else:
        state.add("play_turn", path, f"trick {t}: seat {seat} played a second card")


def _report_turn(state: _Hand, t: int, k: int, seat: int, expected: int, *, first: bool) -> None:
    path = f".tricks[{t}][{k}]"
    if first:
        why = "won the previous trick" if t else "leads first under these rules"
        state.add("lead", path, f"trick {t}: seat {seat} led; seat {expected} {why}")
    else:
        state.add(
            "play_turn", path, f"trick {t}: seat {seat} played out of turn; it was seat {expected}'s turn"
        )


def _take_unknown_card(state: _Hand, t: int, k: int, seat: int, card: int) -> None:
    """A card not among the seat's known cards: one of its unknown ones, or not held."""
    if state.slots[seat] > 0 and not _located_elsewhere(state, card, seat):
        state.slots[seat] -= 1
        return
    whereabouts = _whereabouts(state, card, seat)
    state.add(
        "not_held", f".tricks[{t}][{k}]", f"trick {t}: seat {seat} played {card_name(card)}, {whereabouts}"
    )


def _whereabouts(state: _Hand, card: int, seat: int) -> str:
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


def _report_renege(state: _Hand, t: int, k: int, seat: int, card: int, led: int) -> None:
    """A card off the led suit: a renege if the seat held (or later played) one of it."""
    trump = state.result.trump
    assert trump is not None
    holding = state.later[seat] if seat == state.unsure_holding else state.held[seat] | state.later[seat]
    could = holding & SUIT_MASK[trump][led]
    if not could:
        return
    held = min(cards_in(could), key=lambda c: rank_of(c))
    suit = SUIT_NAMES[led] + (" (trump)" if led == trump else "")
    state.add(
        "renege",
        f".tricks[{t}][{k}]",
        f"trick {t}: seat {seat} played {card_name(card)} on a {suit} lead while holding {card_name(held)}",
    )


def _scoring_phase(state: _Hand, hand: dict[str, Any]) -> None:
    result = state.result
    if result.complete and result.thrown_in is None:
        makers, defenders = hand_points(
            state.rules, result.maker_tricks, result.alone, result.defender_alone is not None
        )
        maker_team = team_of(result.maker or 0)
        result.points = (makers, defenders) if maker_team == 0 else (defenders, makers)
    claimed = hand.get("claimed")
    if not isinstance(claimed, dict):
        if claimed is not None:
            state.add("schema", ".claimed", "claimed must be an object")
        return
    winners = claimed.get("trick_winners")
    if isinstance(winners, list):
        for t, (said, replayed) in enumerate(zip(winners, result.winners, strict=False)):
            if said != replayed:
                state.add(
                    "trick_winner",
                    f".claimed.trick_winners[{t}]",
                    f"trick {t}: the log says seat {said} won it, the replay gives seat {replayed}",
                )
    points = int_pair(claimed.get("points"))
    if points is not None and result.complete and points != result.points:
        state.add(
            "points",
            ".claimed.points",
            f"the log claims {points[0]}-{points[1]} points for the hand, the replay gives "
            f"{result.points[0]}-{result.points[1]}",
        )


_DOCTEST_GAME = """{"format":"euchre/1","game_id":"doc","players":["a","b","c","d"],
"hands":[{"dealer":3,"deal":[["JD","AD","KC","AC","AS"],["9D","QS","9C","TC","9S"],
["KD","QD","QC","JC","TS"],["TD","AH","KH","QH","JH"]],"upcard":"9H","kitty":["TH","JS","KS"],
"bids":[{"seat":0,"call":"pass"},{"seat":1,"call":"pass"},{"seat":2,"call":"pass"},{"seat":3,"call":"pass"},
{"seat":0,"call":"D"}],
"tricks":[[[0,"AS"],[1,"9S"],[2,"TS"],[3,"KH"]],[[0,"AD"],[1,"QS"],[2,"KD"],[3,"TD"]],
[[0,"JD"],[1,"9D"],[2,"QD"],[3,"JH"]],[[0,"AC"],[1,"9C"],[2,"QC"],[3,"AH"]],
[[0,"KC"],[1,"TC"],[2,"JC"],[3,"QH"]]]}]}"""
