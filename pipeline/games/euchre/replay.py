"""Replaying a euchre/1 game record against the rules of its variant.

A game is replayed hand by hand; a hand goes through explicit phases
(:class:`Phase`: deal, throw-in, bidding, lone defender, discard, play,
scoring), each a small function that checks what the record says happened
against what the rules allow, appends a violation for each problem, goes on
with what the record says (so that one fault gives one violation rather than a
cascade) and returns the phase that comes next.

The rules themselves live beside this machine: the seats and calls in
:mod:`rules`, the trick in :mod:`trick`, the points in :mod:`scoring`; the
record is read by :mod:`record`, holdings are kept (and inferred where the
deal is not recorded) by :mod:`holdings`, and claims are checked by
:mod:`claims`.

Every violation names its hand, and where they apply its trick and the seat at
fault; a hand is ``valid`` exactly when no violation names it.

>>> import json
>>> game = replay_game(json.loads(_DOCTEST_GAME))
>>> [(v.code, v.hand, v.trick, v.seat) for v in game.violations]
[('renege', 0, 1, 1)]
>>> game.violations[0].message
'hand 0, trick 1: seat 1 played QS on a diamond (trump) lead while holding 9D'
>>> game.hands[0].maker, game.hands[0].maker_tricks, game.hands[0].points, game.hands[0].valid
(0, 5, (2, 0), False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline.games.euchre.cards import (
    DECK_BITS,
    DECK_TOKENS,
    DECKS,
    EFFECTIVE,
    JOKER,
    NINES_AND_TENS,
    SUIT_MASK,
    UNKNOWN,
    Card,
    Suit,
    bit,
    card_name,
    cards_in,
    rank_of,
    suit_of,
)
from pipeline.games.euchre.claims import check_claimed_score, check_final_score, check_hand_claims
from pipeline.games.euchre.holdings import (
    farmers_seat,
    holding_before_play,
    note_later_plays,
    read_deal,
    read_kitty,
    take_unknown_card,
    unknown_discard,
    whereabouts,
)
from pipeline.games.euchre.record import (
    GAME_FIELDS,
    bad_card,
    check_game_fields,
    int_pair,
    is_seat,
    read_bids,
    read_card,
)
from pipeline.games.euchre.rules import (
    CALLERS,
    PLAY_ORDER,
    Call,
    CallFault,
    Rules,
    RulesError,
    Seat,
    ThrowIn,
    call_faults,
    can_defend_alone,
    can_discard,
    dealer_picks_up,
    first_leader,
    next_dealer,
    sitting_out,
    team_of,
)
from pipeline.games.euchre.scoring import team_points
from pipeline.games.euchre.state import Bid, Context, GameReplay, HandResult, HandState, Phase
from pipeline.games.euchre.trick import Trick, is_legal_play, next_to_play, trick_winner_index
from pipeline.record import hand_dealer, mark_valid, record_game_id, unknown_fields

__all__ = [
    "DECKS",
    "DECK_BITS",
    "DECK_TOKENS",
    "GAME_FIELDS",
    "NINES_AND_TENS",
    "SUIT_NAMES",
    "THROW_IN_REASONS",
    "Bid",
    "GameReplay",
    "HandResult",
    "Phase",
    "int_pair",
    "mark_valid",
    "replay_game",
    "team_of",
]

SUIT_NAMES = ("club", "diamond", "heart", "spade")
THROW_IN_REASONS: tuple[ThrowIn, ...] = tuple(ThrowIn)


def replay_game(record: dict[str, Any], rules: Rules | None = None) -> GameReplay:
    """Replay one euchre/1 game object; ``rules`` overrides the record's own."""
    ctx = Context(record_game_id(record))
    check_game_fields(ctx, record)
    if rules is None:
        try:
            rules = Rules.from_record(record.get("rules"))
        except RulesError as e:
            ctx.add("schema", None, "rules", f"{e}; replayed with the default preset")
            rules = Rules()
    game = GameReplay(ctx.game_id, rules)
    game.unknown_fields = unknown_fields(record, GAME_FIELDS)
    hands = record.get("hands")
    if isinstance(hands, list):
        _replay_hands(ctx, game, rules, hands, int_pair(record.get("initial_score")) or (0, 0))
        check_final_score(ctx, game, record.get("final_score"))
    game.violations = ctx.violations
    if ctx.violations:
        mark_valid(game.hands, ctx.violations)
    return game


def _replay_hands(
    ctx: Context, game: GameReplay, rules: Rules, hands: list[Any], initial: tuple[int, int]
) -> None:
    score = [initial[0], initial[1]]
    previous_dealer: Seat | None = None
    claim_offset = (0, 0)
    final: tuple[int, int] | None = None  # the score when a team reached the target
    for index, hand in enumerate(hands):
        if final is not None:  # the score at the end, not the one run on by later hands
            ctx.add(
                "game_over",
                index,
                f"hands[{index}]",
                f"recorded after the game ended at {final[0]}-{final[1]} in hand {game.ended_at}",
            )
        result = _replay_hand(ctx, rules, index, hand, previous_dealer)
        if result is None:
            continue
        score[0] += result.points[0]
        score[1] += result.points[1]
        result.score = (score[0], score[1])
        claim_offset = check_claimed_score(ctx, index, hand, result.score, claim_offset)
        previous_dealer = result.dealer
        game.hands.append(result)
        if game.ended_at is None and max(score) >= rules.target:
            game.ended_at = index
            final = (score[0], score[1])
    # Hands recorded after the end (game_over) are replayed, but the game was decided.
    game.score = final or (score[0], score[1])


# --------------------------------------------------------------------------
# One hand: the phase machine


def _replay_hand(
    ctx: Context, rules: Rules, index: int, hand: object, previous_dealer: Seat | None
) -> HandResult | None:
    dealer = hand_dealer(ctx, index, hand)
    if dealer is None:
        return None
    assert isinstance(hand, dict)
    state = HandState(ctx, rules, index, dealer)
    if previous_dealer is not None and dealer != next_dealer(previous_dealer):
        state.add(
            "dealer_rotation",
            ".dealer",
            f"seat {dealer} dealt; the deal passes clockwise, so it was seat {next_dealer(previous_dealer)}'s",
            seat=dealer,
        )
    while state.phase is not _OVER:
        state.phase = PHASES[state.phase](state, hand)
    return state.result


def _deal_phase(state: HandState, hand: dict[str, Any]) -> Phase:
    """Read deal, upcard and kitty; check the deck (counts, cards dealt twice)."""
    result = state.result
    seen = 0
    upcard_token = hand.get("upcard")
    if upcard_token is None:
        state.add("schema", ".upcard", "upcard is missing")
    else:
        upcard = read_card(state, upcard_token, ".upcard", unknown_ok=False)
        if upcard is not None:
            result.upcard = upcard
            seen = bit(upcard)
    deal = hand.get("deal")
    if deal is not None:
        seen = read_deal(state, deal, seen)
    kitty = hand.get("kitty")
    if kitty is not None:
        seen = read_kitty(state, kitty, seen)
    return Phase.THROW_IN


def _throw_in_phase(state: HandState, hand: dict[str, Any]) -> Phase:
    """Check a thrown-in hand (and a farmer's hand that was not)."""
    reason = hand.get("thrown_in")
    farmer = farmers_seat(state) if state.rules.farmers_hand else None
    if reason is None:
        if farmer is not None:
            state.add(
                "bid_illegal",
                ".thrown_in",
                f"seat {farmer} holds four or more nines and tens: with farmer's hand on, "
                "the hand is thrown in before any call",
                rule="farmers_hand_not_thrown",
                seat=farmer,
            )
        return Phase.BIDDING
    result = state.result
    result.thrown_in = ThrowIn(reason) if reason in THROW_IN_REASONS else str(reason)
    result.complete = True
    dealer = result.dealer
    if reason not in THROW_IN_REASONS:
        state.add("schema", ".thrown_in", f"thrown_in must be 'all_passed' or 'farmers_hand', not {reason!r}")
    elif reason == ThrowIn.FARMERS_HAND:
        _check_farmers_throw_in(state, hand, farmer)
    else:
        for k, (j, bid) in enumerate(read_bids(state, hand)[:8]):
            turn = CALLERS[dealer][k]
            if bid.seat not in (UNKNOWN, turn):
                _out_of_turn(state, f".bids[{j}]", bid, turn)
        passes = sum(b.call == Call.PASS for b in result.bids)
        if state.rules.stick_the_dealer:
            state.add(
                "bid_illegal",
                ".thrown_in",
                "thrown in as all passed, but with stick the dealer the dealer must name trump",
                rule="stuck_dealer_pass",
                seat=dealer,
            )
        elif passes != 8 or len(result.bids) != 8:
            state.add("bid_illegal", ".thrown_in", f"thrown in as all passed after {passes} passes, not 8")
    if hand.get("discard") is not None:
        state.add("discard", ".discard", "a thrown-in hand has no discard", seat=dealer)
    if hand.get("tricks"):
        state.add("schema", ".tricks", "a thrown-in hand has no tricks")
    return Phase.SCORING


def _check_farmers_throw_in(state: HandState, hand: dict[str, Any], farmer: Seat | None) -> None:
    if not state.rules.farmers_hand:
        state.add("bid_illegal", ".thrown_in", "thrown in as a farmer's hand, which these rules do not allow")
    elif hand.get("bids"):
        state.add("bid_illegal", ".bids", "a farmer's hand is thrown in before any call")
    elif farmer is None and state.result.deal_known:
        state.add(
            "bid_illegal", ".thrown_in", "thrown in as a farmer's hand, but no seat holds 4 nines and tens"
        )


def _bidding_phase(state: HandState, hand: dict[str, Any]) -> Phase:
    """Two rounds of calls from the dealer's left, until one makes trump."""
    result = state.result
    rules = state.rules
    dealer = result.dealer
    upcard_suit = suit_of(result.upcard) if result.upcard not in (UNKNOWN, JOKER) else None
    passes = 0
    callers = CALLERS[dealer]
    swapped: Seat | None = None  # after a call by the seat due next: the seat it went before
    for j, bid in read_bids(state, hand):
        path = f".bids[{j}]"
        if result.maker is not None or passes == 8:
            state.add(
                "bid_turn",
                path,
                f"seat {bid.seat} called {str(bid.call)!r} after the bidding had ended",
                seat=None if bid.seat == UNKNOWN else bid.seat,
            )
            continue
        turn = callers[passes]
        if not isinstance(bid.call, Call):  # unreadable: counted as a call, so the turns stay in step
            passes += 1
            continue
        if bid.seat != turn and bid.seat != swapped:  # not the other half of two calls recorded swapped
            _out_of_turn(state, path, bid, turn)
        swapped = turn if bid.seat != turn and passes < 7 and bid.seat == callers[passes + 1] else None
        faults = call_faults(
            rules, bid.call, bid.alone, 1 if passes < 4 else 2, bid.seat, dealer, upcard_suit
        )
        if passes != 7:  # only the eighth call is the stuck dealer's: an earlier pass is out of turn
            faults = tuple(f for f in faults if f is not CallFault.STUCK_DEALER_PASS)
        if faults:
            _report_call(state, path, bid, bid.call, faults, upcard_suit)
        if bid.call == Call.PASS:
            passes += 1
            continue
        result.maker = bid.seat
        result.alone = bid.alone
        result.round = 1 if bid.call == Call.ORDER else 2
        result.trump = upcard_suit if bid.call == Call.ORDER else bid.call.suit
    if result.maker is None:
        if hand.get("tricks"):
            state.add("schema", ".bids", "tricks are recorded, but no one made trump in the bids")
        elif passes == 8:
            result.thrown_in = ThrowIn.ALL_PASSED
            result.complete = True
            if rules.stick_the_dealer:
                state.add(
                    "bid_illegal",
                    ".bids",
                    "all passed, but with stick the dealer the dealer must name trump",
                    seat=dealer,
                )
        return Phase.SCORING
    if result.trump is None:  # ordered up a joker or an unreadable upcard
        state.add("unsupported", ".upcard", "trump cannot be told: the upcard is the joker or unreadable")
        return Phase.SCORING
    return Phase.LONE_DEFENDER


def _out_of_turn(state: HandState, path: str, bid: Bid, turn: Seat) -> None:
    state.add(
        "bid_turn", path, f"seat {bid.seat} called out of turn: it was seat {turn}'s turn", seat=bid.seat
    )


def _report_call(
    state: HandState, path: str, bid: Bid, call: Call, faults: tuple[CallFault, ...], upcard_suit: Suit | None
) -> None:
    """One violation for each fault :func:`rules.call_faults` found in a call."""
    dealer = state.result.dealer
    seat = bid.seat
    for fault in faults:
        rule: str | None = None
        match fault:
            case CallFault.SUIT_IN_ROUND_ONE:
                message = f"seat {seat} named {call} in round one, where only 'order' or 'pass' are allowed"
            case CallFault.ORDER_IN_ROUND_TWO:
                message = f"seat {seat} ordered the upcard up in round two, after it was turned down"
            case CallFault.TURNED_DOWN_SUIT:
                assert upcard_suit is not None
                message = f"seat {seat} named {SUIT_NAMES[upcard_suit]}s, the suit turned down in round one"
                rule = "turned_down_suit"
            case CallFault.STUCK_DEALER_PASS:
                message = f"the dealer (seat {dealer}) passed in round two; with stick the dealer the dealer must name trump"
                rule = "stuck_dealer_pass"
            case CallFault.PASS_ALONE:
                message = f"seat {seat} passed and declared alone"
            case CallFault.ALONE_FORBIDDEN:
                message = f"seat {seat} went alone, which these rules do not allow"
        state.add("bid_illegal", path, message, rule=rule, seat=seat)


def _lone_defender_phase(state: HandState, hand: dict[str, Any]) -> Phase:
    """Where the rules allow it, a defender may play alone against the makers."""
    result = state.result
    assert result.maker is not None
    seat = hand.get("defender_alone")
    if seat is None:
        return Phase.DISCARD
    if not is_seat(seat):
        state.add("schema", ".defender_alone", f"defender_alone must be a seat 0-3, not {seat!r}")
    elif can_defend_alone(state.rules, seat, result.maker):
        result.defender_alone = seat
    elif not state.rules.defend_alone:
        state.add(
            "bid_illegal",
            ".defender_alone",
            f"seat {seat} defended alone, which these rules do not allow",
            rule="defend_alone_forbidden",
            seat=seat,
        )
    else:
        state.add(
            "bid_illegal",
            ".defender_alone",
            f"seat {seat} is on the makers' team and cannot defend alone",
            seat=seat,
        )
    return Phase.DISCARD


def _discard_phase(state: HandState, hand: dict[str, Any]) -> Phase:
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
                "discard",
                ".discard",
                "a discard is recorded, but the dealer did not pick the upcard up",
                seat=dealer,
            )
        return Phase.PLAY
    if upcard != UNKNOWN:
        state.held[dealer] |= bit(upcard)
    if token is None:
        state.add(
            "discard",
            ".discard",
            f"the dealer (seat {dealer}) picked up {card_name(upcard)} but no discard is recorded",
            seat=dealer,
        )
        return Phase.PLAY
    card = read_card(state, token, ".discard", seat=dealer)
    if card is None:
        return Phase.PLAY
    if card == UNKNOWN:
        unknown_discard(state, dealer, upcard)
        return Phase.PLAY
    result.discard = card
    if not can_discard(rules, card, upcard):
        state.add(
            "discard",
            ".discard",
            f"the dealer discarded the upcard {card_name(card)}, which these rules forbid",
            seat=dealer,
        )
    if state.held[dealer] >> card & 1:
        state.held[dealer] &= ~bit(card)
    elif not take_unknown_card(state, card, dealer):
        state.add(
            "discard",
            ".discard",
            f"the dealer (seat {dealer}) discarded {card_name(card)}, a card not held",
            seat=dealer,
        )
    state.out_of_play |= bit(card)
    return Phase.PLAY


def _play_phase(state: HandState, hand: dict[str, Any]) -> Phase:
    """Replay the tricks: turn order, cards held, following suit, winners."""
    result = state.result
    tricks = hand.get("tricks")
    if tricks is None:
        return Phase.SCORING
    if not isinstance(tricks, list) or len(tricks) > 5:
        shown = f"{len(tricks)} tricks" if isinstance(tricks, list) else repr(tricks)
        state.add("schema", ".tricks", f"tricks must be a list of up to 5 tricks, not {shown}")
        return Phase.SCORING
    if state.unsure_holding is not None or any(state.slots):
        note_later_plays(state, tricks)
    assert result.maker is not None
    out = sitting_out(result.maker, result.alone, result.defender_alone)
    active = 4 - len(out)
    leader = first_leader(state.rules, result.dealer, result.maker, result.alone, result.defender_alone)
    maker_team = team_of(result.maker)
    full = True
    for t, trick in enumerate(tricks):
        if type(trick) is not list:
            state.add("schema", f".tricks[{t}]", "a trick is a list of [seat, card] plays", trick=t)
            return Phase.SCORING
        winner, seats = _play_trick(state, t, trick, leader, out)
        if winner is None:
            return Phase.SCORING
        if seats is None or len(seats) < active:
            full = False
            if t < len(tricks) - 1 and seats is not None:
                missing = next_to_play(seats[0] if seats else leader, seats, out)
                state.add(
                    "play_turn",
                    f".tricks[{t}]",
                    f"trick {t} has {len(seats)} cards; {active} seats play",
                    trick=t,
                    seat=missing,
                )
            # a card short, no one is known to have taken it (the missing card may
            # win): the next trick is led by whoever the record says led it
            result.tricks[-1].winner = None
            leader = recorded_leader(tricks, t + 1, winner)
            continue
        if team_of(winner) == maker_team:
            result.maker_tricks += 1
        leader = winner
    result.complete = full and len(tricks) == 5
    return Phase.SCORING


def recorded_leader(tricks: list[Any], t: int, otherwise: Seat) -> Seat:
    """The seat of trick ``t``'s first play as recorded, or ``otherwise`` (no such
    trick, or a first play that names no seat)."""
    trick = tricks[t] if t < len(tricks) else None
    first = trick[0] if type(trick) is list and trick else None
    if type(first) is list and first and type(first[0]) is int and 0 <= first[0] <= 3:
        return first[0]
    return otherwise


def _play_trick(
    state: HandState, t: int, trick: list[Any], leader: Seat, out: tuple[Seat, ...]
) -> tuple[Seat | None, list[Seat] | None]:
    """Replay one trick; returns its winner (None if it cannot be told) and the
    active seats that played to it (None when a play is not a [seat, card] pair).

    The common case (the right seat, a card it holds, suit followed) costs a few
    bit operations a card; every irregularity goes to a function that reports it.
    Following suit is :func:`trick.is_legal_play`, inlined: a card off the led
    suit is looked at only when the seat's holding has a card of it.
    """
    result = state.result
    trump = result.trump
    assert trump is not None
    effective = EFFECTIVE[trump]
    held = state.held
    later = state.later
    tokens = state.tokens
    cards: list[Card] = []
    seats: list[Seat] = []
    led = -1
    follow = 0
    order = PLAY_ORDER[out][leader]
    for k, play in enumerate(trick):
        if not (type(play) is list and len(play) == 2 and type(play[0]) is int and 0 <= play[0] <= 3):
            state.add("schema", f".tricks[{t}][{k}]", f"a play is [seat, card], not {play!r}", trick=t)
            return None, None
        seat, token = play
        if seat in out or seat in seats:
            _report_extra_play(state, t, k, seat, out)
            continue
        n = len(seats)
        if n >= len(order) or seat != order[n]:
            expected = next_to_play(leader, seats, out)
            if seat != expected:
                _report_turn(state, t, k, seat, expected, first=not seats)
            if not seats:
                leader = seat
                order = PLAY_ORDER[out][leader]
        card = tokens.get(token) if type(token) is str else None
        if card is None or card == UNKNOWN:
            card = bad_card(state, token, f".tricks[{t}][{k}][1]", False, trick=t, seat=seat)
            if card is None:
                return None, seats
        mask = 1 << card
        later[seat] &= ~mask
        if held[seat] & mask:
            held[seat] ^= mask
        elif not take_unknown_card(state, card, seat):
            state.add(
                "not_held",
                f".tricks[{t}][{k}]",
                f"trick {t}: seat {seat} played {card_name(card)}, {whereabouts(state, card, seat)}",
                trick=t,
                seat=seat,
            )
        state.out_of_play |= mask
        if led < 0:
            led = effective[card]
            follow = SUIT_MASK[trump][led]
        elif effective[card] != led and (later[seat] | held[seat]) & follow:
            _report_renege(state, t, k, seat, card, led)
        seats.append(seat)
        cards.append(card)
    # seats and cards grow together; zip's strict= would cost a keyword call a trick
    played = Trick(zip(seats, cards))  # noqa: B905
    result.tricks.append(played)
    if not cards:
        played.leader = leader
        played.winner = None
        return None, seats
    winner = seats[trick_winner_index(cards, trump)]
    played.leader = seats[0]
    played.winner = winner
    return winner, seats


def _report_extra_play(state: HandState, t: int, k: int, seat: Seat, out: tuple[Seat, ...]) -> None:
    path = f".tricks[{t}][{k}]"
    if seat in out:
        state.add(
            "sitting_out",
            path,
            f"trick {t}: seat {seat} played, but sits out: its partner went alone",
            trick=t,
            seat=seat,
        )
    else:
        state.add("play_turn", path, f"trick {t}: seat {seat} played a second card", trick=t, seat=seat)


def _report_turn(state: HandState, t: int, k: int, seat: Seat, expected: Seat, *, first: bool) -> None:
    path = f".tricks[{t}][{k}]"
    if first:
        why = "won the previous trick" if t else "leads first under these rules"
        state.add("lead", path, f"trick {t}: seat {seat} led; seat {expected} {why}", trick=t, seat=seat)
    else:
        state.add(
            "play_turn",
            path,
            f"trick {t}: seat {seat} played out of turn; it was seat {expected}'s turn",
            trick=t,
            seat=seat,
        )


def _report_renege(state: HandState, t: int, k: int, seat: Seat, card: Card, led: Suit) -> None:
    """A card off the led suit: a renege if the seat held (or later played) one of it."""
    trump = state.result.trump
    assert trump is not None
    holding = holding_before_play(state, seat)
    if is_legal_play(holding | bit(card), card, trump, led):
        return
    could = holding & SUIT_MASK[trump][led]
    held = min(cards_in(could), key=lambda c: rank_of(c))
    suit = SUIT_NAMES[led] + (" (trump)" if led == trump else "")
    state.add(
        "renege",
        f".tricks[{t}][{k}]",
        f"trick {t}: seat {seat} played {card_name(card)} on a {suit} lead while holding {card_name(held)}",
        trick=t,
        seat=seat,
    )


def _scoring_phase(state: HandState, hand: dict[str, Any]) -> Phase:
    """A hand of five tricks scores by the makers' tricks; then the claims are checked."""
    result = state.result
    if result.complete and result.thrown_in is None:
        result.points = team_points(
            state.rules,
            result.maker or 0,
            result.maker_tricks,
            result.alone,
            result.defender_alone is not None,
        )
    check_hand_claims(state, hand)
    return Phase.OVER


_OVER = Phase.OVER
#: Each phase of a hand, and the function that replays it (returning the next phase).
PHASES: dict[Phase, Callable[[HandState, dict[str, Any]], Phase]] = {
    Phase.DEAL: _deal_phase,
    Phase.THROW_IN: _throw_in_phase,
    Phase.BIDDING: _bidding_phase,
    Phase.LONE_DEFENDER: _lone_defender_phase,
    Phase.DISCARD: _discard_phase,
    Phase.PLAY: _play_phase,
    Phase.SCORING: _scoring_phase,
}


_DOCTEST_GAME = """{"format":"euchre/1","game_id":"doc","players":["a","b","c","d"],
"hands":[{"dealer":3,"deal":[["JD","AD","KC","AC","AS"],["9D","QS","9C","TC","9S"],
["KD","QD","QC","JC","TS"],["TD","AH","KH","QH","JH"]],"upcard":"9H","kitty":["TH","JS","KS"],
"bids":[{"seat":0,"call":"pass"},{"seat":1,"call":"pass"},{"seat":2,"call":"pass"},{"seat":3,"call":"pass"},
{"seat":0,"call":"D"}],
"tricks":[[[0,"AS"],[1,"9S"],[2,"TS"],[3,"KH"]],[[0,"AD"],[1,"QS"],[2,"KD"],[3,"TD"]],
[[0,"JD"],[1,"9D"],[2,"QD"],[3,"JH"]],[[0,"AC"],[1,"9C"],[2,"QC"],[3,"AH"]],
[[0,"KC"],[1,"TC"],[2,"JC"],[3,"QH"]]]}]}"""
