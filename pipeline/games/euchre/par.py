"""Double-dummy par for Euchre: the tricks the makers take when everyone plays
perfectly with every hand in view.

A position is the cards each seat still holds, who leads the trick under way
and the cards already played to it.  :class:`Solver` searches it with minimax
and alpha-beta pruning over the remaining tricks (the makers' team maximises
the makers' tricks, the defenders minimise them), with two classic speed-ups
of double-dummy solvers:

* a **transposition table** at each trick's start: given the hands at the
  start of play, the cards not yet played and the leader fix the position,
  so the table keeps, per (cards left, leader), bounds on the makers' tricks
  still to come;
* **equivalent cards**: two cards of one hand in the same effective suit with
  no card between them that is still in play (held by anyone, or on the
  table) are worth the same, so only one of them is tried.

The same search, compiled with numba (:mod:`par_kernel`), takes over in a
process that solves many deals, when numba is installed; the tests hold the
two to the same values.

Seats that sit out (a lone maker's partner, a lone defender's) hold nothing
here; the rules of play are :mod:`trick`'s (:func:`trick.legal_plays`), the
tables are :mod:`cards`'s.

Hearts trump, seat 0 leads, everyone in.  Seat 0's two bowers and ace of
trumps draw the defenders' trumps, and its two clubs then take two more:

>>> from pipeline.games.euchre.cards import HEARTS, mask_of
>>> hands = [mask_of("JH JD AH AC KC"), mask_of("9H 9C TC 9S TS"),
...          mask_of("QS KS AS 9D TD"), mask_of("TH QH QC QD KD")]
>>> solver = Solver(hands, HEARTS, maker=0)
>>> solver.par(leader=0)
5
>>> line = solver.par_line(leader=0)
>>> [card_name(c) for _, c in line[:4]]
['JH', '9H', 'TD', 'QH']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.games.euchre.cards import EFFECTIVE, POWER, SUIT_MASK, Card, CardSet, Suit, card_name, power
from pipeline.games.euchre.rules import PLAY_ORDER, Seat

__all__ = ["ORDER", "Position", "Solver", "brute_force", "card_name"]


def _suit_order(trump: Suit, suit: Suit) -> tuple[Card, ...]:
    """The cards that follow as ``suit`` (``trump`` trump), strongest first."""
    cards = [c for c in range(33) if EFFECTIVE[trump][c] == suit]
    return tuple(sorted(cards, key=lambda c: -power(c, trump, suit)))


#: ORDER[trump][suit]: the cards of an effective suit, strongest first.
ORDER: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(_suit_order(t, s) for s in range(4)) for t in range(4)
)


#: SUIT_TURN[trump]: the suits in the order the search tries them, trumps first.
SUIT_TURN: tuple[tuple[Suit, ...], ...] = tuple((t, *(s for s in range(4) if s != t)) for t in range(4))


class Position:
    """A position in the play: the cards each seat holds, the trick under way
    (its leader and its (seat, card) plays so far) and the tricks the makers
    have taken already."""

    __slots__ = ("hands", "leader", "maker_tricks", "trick")

    def __init__(
        self,
        hands: Sequence[CardSet],
        leader: Seat,
        trick: Sequence[tuple[Seat, Card]] = (),
        maker_tricks: int = 0,
    ) -> None:
        self.hands = list(hands)
        self.leader = leader
        self.trick = list(trick)
        self.maker_tricks = maker_tricks


class Solver:
    """Double-dummy search of one deal's play: the hands at the start of play
    (after the dealer's discard), trump, the maker and the seats sitting out.

    One solver keeps its transposition table across calls, so the positions of
    one deal (the par, then the position after each card played) share it.
    """

    __slots__ = (
        "_effective",
        "_follow",
        "_kernel",
        "_order",
        "_power",
        "_table",
        "hands",
        "maker_team",
        "nodes",
        "out",
        "trump",
        "tt",
    )

    def __init__(
        self,
        hands: Sequence[CardSet],
        trump: Suit,
        maker: Seat,
        out: tuple[Seat, ...] = (),
        *,
        compiled: bool | None = None,
    ) -> None:
        self.hands = [0 if seat in out else hands[seat] for seat in range(4)]
        self.trump = trump
        self.maker_team = maker & 1
        self.out = out
        self.tt: dict[int, tuple[int, int]] = {}
        #: Positions searched (every card tried counts one): the solver's work.
        self.nodes = 0
        self._order = PLAY_ORDER[out]
        self._follow = SUIT_MASK[trump]
        self._effective = EFFECTIVE[trump]
        self._power = POWER[trump]
        #: The compiled search (numba) and its table, unless ``compiled`` is False
        #: or numba is missing: then the search below, in plain Python.
        self._kernel = _compiled_search(compiled is True) if compiled is not False else None
        self._table: tuple[Any, Any, Any] | None = None
        if compiled and self._kernel is None:
            raise RuntimeError("the compiled search needs numba")

    # ------------------------------------------------------------------
    # The public questions

    @property
    def tricks(self) -> int:
        """Tricks in the hand (5 at the start of play)."""
        return max(h.bit_count() for h in self.hands)

    def par(self, leader: Seat) -> int:
        """The makers' tricks under perfect play from the start of play."""
        return self.value(Position(self.hands, leader))

    def value(self, pos: Position) -> int:
        """The makers' tricks at par from ``pos``: those taken plus those still to come."""
        hands = [0 if seat in self.out else h for seat, h in enumerate(pos.hands)]
        left = max(h.bit_count() for h in hands)
        if self._kernel is not None:
            return pos.maker_tricks + self._compiled_value(hands, pos, left)
        if not pos.trick:
            return pos.maker_tricks + self._trick(hands, pos.leader, left, -1, left + 1)
        order = self._order[pos.leader]
        led = self._effective[pos.trick[0][1]]
        table = self._power[led]
        best_seat, best_power, on_table = pos.trick[0][0], -1, 0
        for seat, card in pos.trick:
            on_table |= 1 << card
            if table[card] > best_power:
                best_seat, best_power = seat, table[card]
        v = self._play(hands, order, len(pos.trick), led, best_seat, best_power, on_table, left, -1, left + 1)
        return pos.maker_tricks + v

    def _compiled_value(self, hands: list[CardSet], pos: Position, left: int) -> int:
        assert self._kernel is not None
        search, tables, np = self._kernel
        if self._table is None:
            self._table = tables()
        keys, lows, highs = self._table
        stats = np.zeros(1, dtype=np.int64)
        out_mask = sum(1 << s for s in self.out)
        held = np.array(hands, dtype=np.int64)
        if not pos.trick:
            v = search(held, pos.leader, 0, 0, pos.leader, -1, 0, left, -1, left + 1, True,
                       self.trump, self.maker_team, out_mask, keys, lows, highs, stats)  # fmt: skip
        else:
            led = self._effective[pos.trick[0][1]]
            table = self._power[led]
            best_seat, best_power, on_table = pos.trick[0][0], -1, 0
            for seat, card in pos.trick:
                on_table |= 1 << card
                if table[card] > best_power:
                    best_seat, best_power = seat, table[card]
            v = search(held, pos.leader, len(pos.trick), led, best_seat, best_power, on_table, left, -1,
                       left + 1, False, self.trump, self.maker_team, out_mask, keys, lows, highs, stats)  # fmt: skip
        self.nodes += int(stats[0])
        return int(v)

    def moves(self, pos: Position) -> list[Card]:
        """The cards the seat to play may play (every one, not one per class)."""
        seat = self._order[pos.leader][len(pos.trick)]
        hand = pos.hands[seat]
        if not pos.trick:
            return [c for c in range(33) if hand >> c & 1]
        follow = hand & self._follow[self._effective[pos.trick[0][1]]]
        legal = follow or hand
        return [c for c in range(33) if legal >> c & 1]

    def to_play(self, pos: Position) -> Seat:
        return self._order[pos.leader][len(pos.trick)]

    def after(self, pos: Position, card: Card) -> Position:
        """The position once the seat to play has played ``card``."""
        seat = self.to_play(pos)
        hands = list(pos.hands)
        hands[seat] &= ~(1 << card)
        trick = [*pos.trick, (seat, card)]
        order = self._order[pos.leader]
        if len(trick) < len(order):
            return Position(hands, pos.leader, trick, pos.maker_tricks)
        table = self._power[self._effective[trick[0][1]]]
        winner = max(trick, key=lambda p: table[p[1]])[0]
        won = 1 if winner & 1 == self.maker_team else 0
        return Position(hands, winner, (), pos.maker_tricks + won)

    def par_line(self, leader: Seat) -> list[tuple[Seat, Card]]:
        """A line of perfect play from the start: each card keeps the par
        (of the cards that do, the strongest, as the solver tries them first)."""
        pos = Position(self.hands, leader)
        target = self.value(pos)
        line: list[tuple[Seat, Card]] = []
        while any(pos.hands):
            seat = self.to_play(pos)
            for card in self._candidates(pos):
                nxt = self.after(pos, card)
                if self.value(nxt) == target:
                    line.append((seat, card))
                    pos = nxt
                    break
            else:  # pragma: no cover - the par is reached by some card, by definition
                raise AssertionError("no card keeps the par")
        return line

    def _candidates(self, pos: Position) -> list[Card]:
        moves = self.moves(pos)
        alive = pos.hands[0] | pos.hands[1] | pos.hands[2] | pos.hands[3]
        for _, card in pos.trick:
            alive |= 1 << card
        legal = 0
        for c in moves:
            legal |= 1 << c
        reps = self._classes(legal, alive)
        return reps + [c for c in moves if c not in reps]

    # ------------------------------------------------------------------
    # The search

    def _classes(self, legal: CardSet, alive: CardSet) -> list[Card]:
        """One card of each class of equivalent cards among ``legal``, the
        strongest of each, trumps first, then suit by suit."""
        reps: list[Card] = []
        order = ORDER[self.trump]
        follow = self._follow
        for suit in SUIT_TURN[self.trump]:
            mine = legal & follow[suit]
            if not mine:
                continue
            run = False
            for card in order[suit]:
                b = 1 << card
                if mine & b:
                    if not run:
                        reps.append(card)
                        run = True
                    mine ^= b
                    if not mine:
                        break
                elif alive & b:
                    run = False
        return reps

    def _trick(self, hands: list[CardSet], leader: Seat, left: int, alpha: int, beta: int) -> int:
        """The makers' tricks among the ``left`` tricks still to play, a trick starting."""
        if left == 0:
            return 0
        alive = hands[0] | hands[1] | hands[2] | hands[3]
        if left == 1:  # one card each: no choice left
            order = self._order[leader]
            first = hands[leader]
            led = self._effective[first.bit_length() - 1]
            table = self._power[led]
            best_seat, best = leader, -1
            for seat in order:
                card = hands[seat].bit_length() - 1
                if table[card] > best:
                    best_seat, best = seat, table[card]
            self.nodes += 1
            return 1 if best_seat & 1 == self.maker_team else 0
        key = alive << 2 | leader
        entry = self.tt.get(key)
        lo, hi = (0, left) if entry is None else entry
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        a, b = max(alpha, lo), min(beta, hi)
        v = self._play(hands, self._order[leader], 0, 0, leader, -1, 0, left, a, b)
        if v <= a:
            hi = min(hi, v)
        elif v >= b:
            lo = max(lo, v)
        else:
            lo = hi = v
        self.tt[key] = (lo, hi)
        return v

    def _play(
        self,
        hands: list[CardSet],
        order: tuple[Seat, ...],
        pos: int,
        led: Suit,
        best_seat: Seat,
        best_power: int,
        on_table: CardSet,
        left: int,
        alpha: int,
        beta: int,
    ) -> int:
        """The makers' tricks among ``left`` (the trick under way included), the
        ``pos``-th seat of ``order`` to play; fail-soft alpha-beta."""
        seat = order[pos]
        hand = hands[seat]
        legal = hand if pos == 0 else (hand & self._follow[led] or hand)
        alive = hands[0] | hands[1] | hands[2] | hands[3] | on_table
        moves = self._classes(legal, alive)
        maximise = seat & 1 == self.maker_team
        last = pos == len(order) - 1
        if pos and len(moves) > 1:
            # following: the cheapest card that takes the trick first, then the lowest
            table = self._power[led]
            partner_wins = best_seat & 1 == seat & 1
            winners = [c for c in moves if table[c] > best_power]
            if partner_wins or not winners:
                moves.reverse()  # lowest first
            else:
                losers = [c for c in moves if table[c] <= best_power]
                moves = winners[::-1] + losers[::-1]
        best = -1 if maximise else 99
        self.nodes += len(moves)
        for card in moves:
            hands[seat] = hand ^ (1 << card)
            if pos == 0:
                new_led = self._effective[card]
                new_seat, new_power = seat, self._power[new_led][card]
            else:
                new_led = led
                p = self._power[led][card]
                new_seat, new_power = (seat, p) if p > best_power else (best_seat, best_power)
            if last:
                won = 1 if new_seat & 1 == self.maker_team else 0
                v = won + self._trick(hands, new_seat, left - 1, alpha - won, beta - won)
            else:
                v = self._play(
                    hands,
                    order,
                    pos + 1,
                    new_led,
                    new_seat,
                    new_power,
                    on_table | 1 << card,
                    left,
                    alpha,
                    beta,
                )
            hands[seat] = hand
            if maximise:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            elif v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        return best


_KERNEL: list[Any] = []
#: Compiling the search takes seconds: a process uses it (when ``compiled`` is
#: left to the solver) once it has made this many solvers (about 1,200 hands, as
#: long as the Python search takes over them as the compile does).
COMPILE_AFTER = 3_000
_made = [0]


def _compiled_search(now: bool = False) -> tuple[Any, Any, Any] | None:
    """The numba-compiled search, its table maker and numpy; None without numba
    (or, unless ``now``, before :data:`COMPILE_AFTER` solvers)."""
    if not now and _made[0] < COMPILE_AFTER:
        _made[0] += 1
        return None
    if not _KERNEL:
        try:
            import numpy as np

            from pipeline.games.euchre.par_kernel import new_table, search
        except ImportError:
            _KERNEL.append(None)
        else:
            _KERNEL.append((search, new_table, np))
    kernel: tuple[Any, Any, Any] | None = _KERNEL[0]
    return kernel


def brute_force(solver: Solver, pos: Position) -> int:
    """The makers' tricks at par from ``pos`` by plain minimax: every legal card,
    no pruning, no table, no equivalence (the reference the tests hold the
    solver to; exponential, for endings only)."""
    if not any(pos.hands) and not pos.trick:
        return pos.maker_tricks
    seat = solver.to_play(pos)
    values = [brute_force(solver, solver.after(pos, card)) for card in solver.moves(pos)]
    return max(values) if seat & 1 == solver.maker_team else min(values)
