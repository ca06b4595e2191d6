"""Announcements: poignées and the chelem.

- A poignée is shown just before its announcer plays its first card: 10, 13
  or 15 trumps at four players (simple, double, triple), all held by the
  announcer (after the écart, for the taker).  The Excuse may stand for a
  trump, only when the announcer has no other trump to show (FFT;
  ``rules.excuse_in_poignee_only_if_short``).
- A chelem is announced before the first lead; the announcer then leads the
  first trick (checked in :mod:`play`).

An announcement may carry ``"trick": k``, the trick during which it was made;
a poignée is made in the announcer's first trick (``0``) and a chelem before
it (``0``): anything later is a violation.
"""

from __future__ import annotations

from typing import Any

from pipeline.games.tarot.cards import EXCUSE, EXCUSE_BIT, TRUMPS, card_name, cards_in, is_trump
from pipeline.games.tarot.rules import POIGNEE_NAMES
from pipeline.games.tarot.state import HandState, is_int, is_seat


def announcement_phase(state: HandState, hand: dict[str, Any]) -> None:
    raw = hand.get("announcements")
    if raw is None:
        return
    if not isinstance(raw, list):
        state.add("schema", ".announcements", "announcements must be a list of objects")
        return
    showed: set[int] = set()
    for k, item in enumerate(raw):
        path = f".announcements[{k}]"
        if not (isinstance(item, dict) and is_seat(item.get("seat")) and isinstance(item.get("type"), str)):
            state.add(
                "schema", path, f"an announcement is {{seat: 0-3, type: 'poignee' | 'chelem'}}, not {item!r}"
            )
            continue
        seat: int = item["seat"]
        when = item.get("trick")
        if when is not None and not (is_int(when) and 0 <= when < 18):
            state.add("schema", f"{path}.trick", f"trick must be a trick number 0-17, not {when!r}")
            when = None
        if item["type"] == "poignee":
            if seat in showed:
                state.add("poignee", path, f"seat {seat} showed a second poignée; one a hand", seat=seat)
                continue
            showed.add(seat)
            _poignee(state, item, path, seat, when)
        elif item["type"] == "chelem":
            _chelem(state, path, seat, when)
        else:
            state.add(
                "schema", f"{path}.type", f"unknown announcement type {item['type']!r} (poignee, chelem)"
            )


def _poignee(state: HandState, item: dict[str, Any], path: str, seat: int, when: int | None) -> None:
    rules = state.rules
    tokens = item.get("trumps")
    if not isinstance(tokens, list):
        state.add("schema", f"{path}.trumps", "a poignée lists the trumps shown")
        return
    shown = 0
    for k, token in enumerate(tokens):
        card = state.card(token, f"{path}.trumps[{k}]", seat=seat)
        if card is None:
            return
        if not (is_trump(card) or card == EXCUSE):
            state.add(
                "poignee",
                f"{path}.trumps[{k}]",
                f"seat {seat} showed {card_name(card)} in a poignée; only trumps are shown",
                seat=seat,
            )
            return
        if shown >> card & 1:
            state.add(
                "poignee",
                f"{path}.trumps[{k}]",
                f"seat {seat} showed {card_name(card)} twice in its poignée",
                seat=seat,
            )
            return
        shown |= 1 << card
    sizes = rules.poignee_sizes
    n = len(tokens)
    if n not in sizes:
        state.add(
            "poignee",
            f"{path}.trumps",
            f"seat {seat} showed {n} trumps; a poignée is {sizes[0]}, {sizes[1]} or {sizes[2]} (simple, double, triple)",
            seat=seat,
        )
        return
    # From here on the poignée counts as the record says it was shown, faults or not.
    state.result.poignees.append((seat, POIGNEE_NAMES[sizes.index(n)]))
    if when is not None and when > 0:
        state.add(
            "poignee",
            f"{path}.trick",
            f"seat {seat} showed its poignée in trick {when}, after its first card; it is shown just before it",
            seat=seat,
            rule="poignee_late",
        )
        return
    held = state.held[seat]
    if state.sure[seat]:
        missing = shown & ~held
        if missing:
            card = next(cards_in(missing))
            state.add(
                "poignee",
                f"{path}.trumps",
                f"seat {seat} showed {card_name(card)} in its poignée, a card it did not hold ({state.whereabouts(card, seat)})",
                seat=seat,
            )
            return
        unshown = held & TRUMPS & ~shown
        if shown & EXCUSE_BIT and unshown and rules.excuse_in_poignee_only_if_short:
            state.add(
                "poignee",
                f"{path}.trumps",
                f"seat {seat} showed the Excuse for a trump while holding {card_name(next(cards_in(unshown)))} unshown; "
                "the Excuse stands for a trump only when no other is left",
                seat=seat,
                rule="excuse_in_poignee",
            )


def _chelem(state: HandState, path: str, seat: int, when: int | None) -> None:
    result = state.result
    if result.chelem_announced:
        state.add("chelem", path, f"seat {seat} announced a second chelem; one a hand", seat=seat)
        return
    if when is not None and when > 0:
        state.add(
            "chelem",
            f"{path}.trick",
            f"seat {seat} announced a chelem in trick {when}; a chelem is announced before the first lead",
            seat=seat,
        )
    result.chelem_announced = True
    result.chelem_announcer = seat
