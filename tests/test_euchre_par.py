"""The double-dummy solver (pipeline/games/euchre/par.py) against plain minimax.

Random deals are played out at random for a few tricks (part of a trick
included), and the solver's value of the ending is held to :func:`brute_force`
(every legal card, no pruning, no table, no equivalence).  Full hands are held
to the minimax of the solver's own values one card deep, and the par line
itself must score the par.
"""

from __future__ import annotations

import random

import pytest

from pipeline.games.euchre.cards import DECKS, HEARTS, cards_in, mask_of, parse_card
from pipeline.games.euchre.par import Position, Solver, brute_force
from pipeline.games.euchre.rules import sitting_out


def random_deal(rng: random.Random, deck: int = 24) -> list[int]:
    cards = list(cards_in(DECKS[deck]))
    rng.shuffle(cards)
    return [mask_of(cards[5 * s : 5 * s + 5]) for s in range(4)]


def random_setup(rng: random.Random, compiled: bool = False) -> tuple[Solver, Position]:
    deck = rng.choice((24, 24, 25, 32))
    hands = random_deal(rng, deck)
    maker = rng.randrange(4)
    alone = rng.random() < 0.25
    defender = rng.choice((None, None, None, (maker + 1) % 4, (maker + 3) % 4))
    out = sitting_out(maker, alone, defender)
    solver = Solver(hands, rng.randrange(4), maker, out, compiled=compiled)
    leader = next(s for s in ((maker + k) % 4 for k in range(1, 5)) if s not in out)
    return solver, Position(solver.hands, leader)


def play_randomly(rng: random.Random, solver: Solver, pos: Position, cards: int) -> Position:
    for _ in range(cards):
        pos = solver.after(pos, rng.choice(solver.moves(pos)))
    return pos


def backend(compiled: bool) -> bool:
    """The plain Python search, or the numba-compiled one (skipped without numba)."""
    if compiled:
        pytest.importorskip("numba")
    return compiled


BACKENDS = [pytest.param(False, id="python"), pytest.param(True, id="numba")]


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("seed", range(60))
def test_endings_match_brute_force(seed: int, compiled: bool) -> None:
    rng = random.Random(seed)
    solver, pos = random_setup(rng, backend(compiled))
    active = 4 - len(solver.out)
    tricks_left = rng.choice((2, 3))
    pos = play_randomly(rng, solver, pos, (5 - tricks_left) * active + rng.randrange(active))
    assert solver.value(pos) == brute_force(solver, pos)
    # the same ending again, from a table filled by the first question
    assert solver.value(pos) == brute_force(solver, pos)


@pytest.mark.parametrize("seed", range(12))
def test_full_hands_are_the_minimax_of_their_children(seed: int) -> None:
    rng = random.Random(1000 + seed)
    solver, pos = random_setup(rng)
    par = solver.value(pos)
    fresh = Solver(solver.hands, solver.trump, 0 if solver.maker_team == 0 else 1, solver.out)
    children = [fresh.value(fresh.after(pos, card)) for card in fresh.moves(pos)]
    makers_to_play = fresh.to_play(pos) & 1 == fresh.maker_team
    assert par == (max(children) if makers_to_play else min(children))


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("seed", range(12))
def test_the_par_line_scores_the_par(seed: int, compiled: bool) -> None:
    rng = random.Random(2000 + seed)
    solver, pos = random_setup(rng, backend(compiled))
    par = solver.value(pos)
    line = solver.par_line(pos.leader)
    for seat, card in line:
        assert solver.to_play(pos) == seat
        assert card in solver.moves(pos)
        pos = solver.after(pos, card)
        assert solver.value(pos) == par  # no card of the line gives a trick away
    assert not any(pos.hands) and pos.maker_tricks == par


def test_a_worked_ending() -> None:
    """Hearts trump, two tricks left, seat 0 (a maker) leads holding JH and AS.

    Seat 1 holds AH and 9C, void in spades.  Leading the right bower first
    draws seat 1's ace of trumps, and AS then takes the last trick: 2.  Leading
    AS first lets seat 1 ruff it with AH: 1.  (Seats 2 and 3 hold diamonds,
    which take nothing.)
    """
    hands = [mask_of("JH AS"), mask_of("AH 9C"), mask_of("9D TD"), mask_of("QD KD")]
    solver = Solver(hands, HEARTS, maker=0)
    start = Position(solver.hands, 0)
    assert solver.par(leader=0) == 2
    assert solver.value(solver.after(start, parse_card("AS"))) == 1
    assert solver.value(solver.after(start, parse_card("JH"))) == 2
    assert solver.par_line(leader=0)[0] == (0, parse_card("JH"))


def test_a_lone_maker_with_the_top_five_trumps_marches() -> None:
    hands = [
        mask_of("JH JD AH KH QH"),
        mask_of("9C TC 9S TS AS"),
        mask_of("AC KC QC JC 9D"),
        mask_of("TD QD KD AD KS"),
    ]
    solver = Solver(hands, HEARTS, maker=0, out=(2,))
    assert solver.par(leader=1) == 5
    assert solver.par_line(leader=1)[0][0] == 1


@pytest.mark.parametrize("seed", range(40))
def test_the_compiled_search_gives_the_python_values_all_along_a_hand(seed: int) -> None:
    backend(True)
    rng = random.Random(3000 + seed)
    python, pos = random_setup(rng)
    compiled = Solver(python.hands, python.trump, python.maker_team, python.out, compiled=True)
    while moves := python.moves(pos):
        assert compiled.value(pos) == python.value(pos)
        pos = python.after(pos, rng.choice(moves))


def test_the_compiled_search_is_compiled_once() -> None:
    """Its recursive calls pass typed values, not constants: numba compiled the
    search once for each constant they passed (four times, 7 s, where once is 2 s)."""
    pytest.importorskip("numba")
    solver, pos = random_setup(random.Random(3), compiled=True)
    solver.value(play_randomly(random.Random(4), solver, pos, 2))
    from pipeline.games.euchre import par_kernel

    assert len(par_kernel.search.signatures) == 1
