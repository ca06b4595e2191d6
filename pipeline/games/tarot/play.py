"""The play of the 18 tricks: who leads, whose turn, cards held, the obligations.

- The seat after the dealer leads the first trick, or the seat that
  announced a chelem; the winner of each trick leads the next.
- Each seat plays once a trick, in turn ("next" is seat + 1).
- A seat plays a card it holds, as :mod:`trick` allows.

After a fault the replay goes on with what the record says (the seat that
played, the card it played), so one fault gives one violation.  For the
obligations, a seat's holding is the cards it is known to hold *and* plays
later in the record: a card the record never shows it playing again (because
an earlier play was faulty) does not make a later play look like a renege.
Where a seat's hand was not recorded in full, it is read from its plays.
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.cards import CARD_CODES, EXCUSE, SUIT_OF, TRUMP, card_name, parse_card, suit_word
from pipeline.games.tarot.state import HandState, PlayedTrick, is_seat
from pipeline.games.tarot.trick import highest_trump, led_suit, play_fault, winner_index

TRICKS = 18


def first_leader(state: HandState) -> int:
    """The seat after the dealer, or the seat that announced a chelem."""
    result = state.result
    if result.chelem_announcer is not None:
        return result.chelem_announcer
    return (result.dealer + 1) % 4


def play_phase(state: HandState, hand: dict[str, Any]) -> None:
    result = state.result
    tricks = hand.get("tricks")
    if tricks is None:
        if hand.get("thrown_in") is None:
            state.add("schema", ".tricks", "tricks is missing (18 tricks of [seat, card])")
        return
    if not isinstance(tricks, list) or len(tricks) > TRICKS:
        shown = f"{len(tricks)} tricks" if isinstance(tricks, list) else repr(tricks)
        state.add("schema", ".tricks", f"tricks must be a list of {TRICKS} tricks, not {shown}")
        return
    _note_plays(state, tricks)
    full_record = len(tricks) == TRICKS
    leader = first_leader(state)
    complete = full_record
    for t, trick in enumerate(tricks):
        if not isinstance(trick, list):
            state.add("schema", f".tricks[{t}]", "a trick is a list of [seat, card] plays", trick=t)
            complete = False
            break
        played = _play_trick(state, t, trick, leader, full_record)
        if played is None:
            complete = False
            break
        if played.winner is not None and (played.unsure or state.follow_record):
            _winner_from_record(state, played, t, tricks, hand)
        if len(played.plays) < 4 and not played.winner_from_record and t == len(tricks) - 1:
            played.winner = None  # the last trick, a card short: no one is known to have taken it
        if len(played.plays) < 4:
            complete = False
        if len(trick) < 4:  # a seat listed twice is its play_turn, not a missing card
            state.add(
                "deck",
                f".tricks[{t}]",
                f"the trick has {len(trick)} cards; each of the 4 seats plays one",
                trick=t,
            )
        if played.winner is None:
            break
        leader = played.winner
    result.taker_tricks = sum(1 for p in result.tricks if p.winner is not None and p.winner == result.taker)
    result.complete = (
        complete and len(result.tricks) == TRICKS and all(t.winner is not None for t in result.tricks)
    )


def _winner_from_record(
    state: HandState, played: PlayedTrick, t: int, tricks: list[Any], hand: dict[str, Any]
) -> None:
    """A trick a seat played to after its fault: the record's winner (the next
    leader, or the claimed winner of the last trick) is kept when it differs.

    The fault was reported once; what follows in the record was written from
    the real play, and replaying the faulty card's effect would report the
    same fault again as a wrong lead and wrong claims.
    """
    said: object = None
    if t + 1 < len(tricks):
        following = tricks[t + 1]
        if isinstance(following, list) and following and isinstance(following[0], list) and following[0]:
            said = following[0][0]
    else:
        claimed = hand.get("claimed")
        winners = claimed.get("trick_winners") if isinstance(claimed, dict) else None
        if isinstance(winners, list) and len(winners) > t:
            said = winners[t]
    # the winner played to the trick, or is a seat whose card the record lacks
    if (
        is_seat(said)
        and said != played.winner
        and (len(played.plays) < 4 or any(s == said for s, _ in played.plays))
    ):
        assert isinstance(said, int)
        played.winner = said
        played.winner_from_record = True


def _note_plays(state: HandState, tricks: list[Any]) -> None:
    """Every card each seat plays in the record; the holding of a seat whose hand is not known."""
    for trick in tricks:
        for play in trick if isinstance(trick, list) else ():
            if isinstance(play, list) and len(play) == 2 and is_seat(play[0]):
                card = parse_card(play[1])
                if card is not None:
                    state.later[play[0]] |= 1 << card
    for seat in range(4):
        if not state.sure[seat]:
            state.held[seat] |= state.later[seat] & ~state.taken


def _play_trick(
    state: HandState, t: int, trick: list[Any], leader: int, full_record: bool
) -> PlayedTrick | None:
    """Replay one trick; None when a play cannot be read at all."""
    result = state.result
    played = PlayedTrick(leader)
    result.tricks.append(played)
    seats: list[int] = []
    cards: list[int] = []
    led = -1  # the suit to follow once known (-1: none yet)
    for k, play in enumerate(trick):
        if not (type(play) is list and len(play) == 2 and type(play[0]) is int and 0 <= play[0] <= 3):
            state.add("schema", f".tricks[{t}][{k}]", f"a play is [seat 0-3, card], not {play!r}", trick=t)
            return None
        seat: int = play[0]
        token = play[1]
        if seat in seats:
            state.add(
                "play_turn",
                f".tricks[{t}][{k}]",
                f"seat {seat} played a second card to the trick",
                trick=t,
                seat=seat,
            )
            played.unsure = True
            continue
        expected = (leader + len(seats)) % 4
        if expected in seats:
            expected = next_to_play(leader, seats)
        if seat != expected:
            _report_turn(state, t, k, seat, expected, first=not seats)
            played.unsure = True
            if not seats:
                leader = seat
                played.leader = seat
        card = CARD_CODES.get(token) if type(token) is str else None
        if card is None:
            state.add(
                "bad_card",
                f".tricks[{t}][{k}][1]",
                f"seat {seat} played {token!r}, which is not a card of the Tarot deck",
                trick=t,
                seat=seat,
            )
            return None
        mask = 1 << card
        held = state.held[seat]
        holding = held & state.later[seat] if full_record else held
        state.later[seat] &= ~mask
        if held & mask and not state.taken & mask:
            state.held[seat] = held ^ mask
            suit = SUIT_OF[card]
            # Fast path: a lead, the Excuse, or following a led suit are always legal.
            if led >= 0 and card != EXCUSE and not (suit == led and led != TRUMP):
                fault = play_fault(holding & ~mask, cards, card)
                if fault is not None and seat not in state.suspect and not played.unsure:
                    _report_obligation(state, t, k, seat, card, cards, fault)
                if fault is not None:
                    state.suspect.add(seat)
                    state.faulty |= mask
                    played.unsure = True
        elif seat in state.suspect and (not state.taken & mask or state.faulty & mask):
            pass  # a card moved by the seat's earlier fault
        else:
            # The seat that held the card (if any) will be short of it, or play it again:
            # the same fault, not another one.
            state.suspect.update(o for o in range(4) if o != seat and state.held[o] & mask)
            state.suspect.add(seat)
            state.faulty |= mask
            played.unsure = True
            state.add(
                "not_held",
                f".tricks[{t}][{k}]",
                f"seat {seat} played {card_name(card)}, {state.whereabouts(card, seat)}",
                trick=t,
                seat=seat,
            )
        if seat in state.suspect:
            played.unsure = True  # its card may be out of place: the rest of the trick is not judged
        if led < 0 and card != EXCUSE:
            led = SUIT_OF[card]
        state.taken |= mask
        seats.append(seat)
        cards.append(card)
        played.plays.append((seat, card))
    if not cards:
        return played
    if len(cards) < 4:
        played.unsure = True  # the missing card may have won it: the record's winner is kept
    excuse_wins = t == TRICKS - 1 and EXCUSE in cards and _side_won_all(state, seats[cards.index(EXCUSE)])
    played.winner = seats[winner_index(cards, excuse_wins=excuse_wins)]
    return played


def next_to_play(leader: int, played: list[int]) -> int:
    """The first seat from the leader on that has not played to the trick yet."""
    return next((s for s in ((leader + i) % 4 for i in range(4)) if s not in played), leader)


def _side_won_all(state: HandState, seat: int) -> bool:
    """The side of ``seat`` won every trick so far (the Excuse then wins the last one)."""
    result = state.result
    side = result.side_of(seat)
    done = result.tricks[:-1]
    return bool(done) and all(p.winner is not None and result.side_of(p.winner) == side for p in done)


def _report_turn(state: HandState, t: int, k: int, seat: int, expected: int, *, first: bool) -> None:
    path = f".tricks[{t}][{k}]"
    result = state.result
    if first and t == 0 and result.chelem_announcer is not None:
        state.add(
            "chelem",
            path,
            f"seat {seat} led, but seat {expected} announced a chelem and leads the first trick",
            trick=t,
            seat=expected,
        )
    elif first:
        why = "won the previous trick" if t else "sits after the dealer and leads first"
        state.add("lead", path, f"seat {seat} led; seat {expected} {why}", trick=t, seat=seat)
        state.follow_record = True
    else:
        state.add(
            "play_turn",
            path,
            f"seat {seat} played out of turn; it was seat {expected}'s turn",
            trick=t,
            seat=seat,
        )


def _report_obligation(
    state: HandState, t: int, k: int, seat: int, card: int, trick: list[int], fault: tuple[str, int]
) -> None:
    code, instead = fault
    led = led_suit(trick)
    assert led is not None
    lead = f"a {suit_word(led)} lead"
    if code == "renege":
        message = f"seat {seat} played {card_name(card)} on {lead} while holding {card_name(instead)}"
    elif code == "must_trump":
        message = (
            f"seat {seat} played {card_name(card)} on {lead}, void in {suit_word(led)}s, "
            f"while holding the trump {card_name(instead)}"
        )
    else:
        top = highest_trump(trick)
        message = (
            f"seat {seat} played {card_name(card)} under T{top} while holding {card_name(instead)}, "
            "a higher trump"
        )
    state.add(code, f".tricks[{t}][{k}]", message, trick=t, seat=seat)


__all__ = ["TRICKS", "first_leader", "next_to_play", "play_phase"]
