"""Euchre's part of ``tricklog analyze``: the double-dummy par of every hand.

For each complete, valid hand with a known deal (``euchre.deals``) and a
maker, :func:`analyze_hand` rebuilds the holdings at the start of play (the
dealer's pick-up and discard included), then asks :class:`par.Solver`:

* ``par_maker_tricks``: the makers' tricks at par in the hand as played (the
  maker alone or not, a lone defender or not, the dealer's actual discard);
* ``par_partner`` and ``par_alone``: the same with the maker's partner in and
  with the maker alone (where the rules allow it), and the points each is
  worth to the makers at par (``par_points_*``: makers' points minus the
  defenders');
* ``par_line``: one line of perfect play;
* per card played (``euchre.par_plays``): the par before and after it, and
  the ``loss``: tricks that card gave away to the other team.  Where it lost
  some, ``best`` is a card that kept the par.

The tables and the figures built on them are in ``par.sql`` beside this file.

>>> import json
>>> from pipeline.games.euchre.replay import replay_game, _DOCTEST_GAME
>>> record = json.loads(_DOCTEST_GAME)
>>> rows = analyze_hand(hand_inputs(record, replay_game(record))[0])
>>> rows["par_hands"][0][2:10]   # solved; par as played, with the partner, alone; points
(True, None, 4, 4, 4, 1, 1, 1)
>>> [(p[2], p[5], p[-2], p[-1]) for p in rows["par_plays"] if p[-2]]   # the cards that gave tricks away
[(1, 'AD', 1, 'KC'), (1, 'TD', 2, 'JH')]

(``analyze`` takes valid hands only; this one is not -- seat 1 reneges in
trick 1 -- which the solver does not mind.)
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from pipeline.games.euchre.cards import CARD_NAMES, SUITS, Card, CardSet, bit, parse_card
from pipeline.games.euchre.par import Position, Solver
from pipeline.games.euchre.rules import Rules, Seat, first_leader, partner_of, sitting_out
from pipeline.games.euchre.scoring import hand_points

#: Bump when the analysis changes what it writes: hands analysed by an older
#: version are analysed again.
VERSION = 2  # 2: a discard the record does not know (??) is read from the play

#: The input of one hand, as :data:`INPUTS_SQL` selects it.
HandInput = tuple[Any, ...]

#: The hands to analyse: complete, valid, with a maker and the deal in the
#: warehouse, not analysed yet by this version (``$version``: :data:`VERSION`);
#: the copies of a hand share its fingerprint.
TODO_SQL = """
select h.game_id, h.hand_no, h.fingerprint as copy_key
from euchre.hands as h
where h.valid and h.complete and h.thrown_in is null and h.maker_seat is not null and h.deal_known
  and exists (select 1 from euchre.deals as d where d.game_id = h.game_id and d.hand_no = h.hand_no)
  and not exists (
      select 1 from euchre.par_hands as p
      where p.game_id = h.game_id and p.hand_no = h.hand_no and p.version = $version)
"""

#: All :func:`analyze_hand` needs of the hands of one batch (``analysis_batch``).
INPUTS_SQL = """
with todo as (
    select game_id, hand_no from analysis_batch
),
deal as (
    select d.game_id, d.hand_no, list(d.cards order by d.seat) as deal
    from euchre.deals as d join todo using (game_id, hand_no)
    group by all
),
play as (
    select p.game_id, p.hand_no,
           list(p.seat order by p.trick_no, p.play_no) as seats,
           list(p.card order by p.trick_no, p.play_no) as cards,
           list(p.trick_no order by p.trick_no, p.play_no) as trick_nos,
           list(p.play_no order by p.trick_no, p.play_no) as play_nos
    from euchre.plays as p join todo using (game_id, hand_no)
    group by all
)
select t.game_id, t.hand_no, g.rules, h.dealer, h.upcard, h.trump, h.maker_seat, h.alone,
       h.defender_alone, h.round, h.discard, deal.deal, play.seats, play.cards,
       play.trick_nos, play.play_nos
from todo as t
join euchre.hands as h using (game_id, hand_no)
join main.games as g using (game_id)
left join deal using (game_id, hand_no)
left join play using (game_id, hand_no)
order by t.game_id, t.hand_no
"""


def par_ddl() -> str:
    """The tables and views of the par study (idempotent)."""
    return files("pipeline.games.euchre").joinpath("par.sql").read_text(encoding="utf-8")


def hand_inputs(record: dict[str, Any], replay: Any) -> list[HandInput]:
    """The inputs of :func:`analyze_hand` for a record's hands, as the warehouse
    would give them (for tests and notebooks that start from records)."""
    rules = json.dumps(replay.rules.as_dict())
    out: list[HandInput] = []
    for hand, raw in zip(replay.hands, record["hands"], strict=False):
        if hand.maker is None or not hand.complete or hand.trump is None:
            continue
        deal = [[CARD_NAMES[parse_card(t) or 0] for t in cards] for cards in raw["deal"]]
        plays = [
            (t, k, seat, card) for t, trick in enumerate(hand.tricks) for k, (seat, card) in enumerate(trick)
        ]
        out.append(
            (
                replay.game_id,
                hand.index,
                rules,
                hand.dealer,
                CARD_NAMES[hand.upcard],
                SUITS[hand.trump],
                hand.maker,
                hand.alone,
                hand.defender_alone,
                hand.round,
                None if hand.discard is None else CARD_NAMES[hand.discard],
                deal,
                [p[2] for p in plays],
                [CARD_NAMES[p[3]] for p in plays],
                [p[0] for p in plays],
                [p[1] for p in plays],
            )
        )
    return out


def analyze_hands(hands: list[HandInput]) -> dict[str, list[tuple[Any, ...]]]:
    """:func:`analyze_hand` of each hand, the rows of each table put together
    (what a worker process runs on a chunk)."""
    out: dict[str, list[tuple[Any, ...]]] = {"par_hands": [], "par_plays": []}
    for hand in hands:
        for table, rows in analyze_hand(hand).items():
            out[table].extend(rows)
    return out


def _mask(names: list[str]) -> CardSet:
    out = 0
    for name in names:
        card = parse_card(name)
        if card is None or card < 0:
            raise ValueError(f"not a card: {name!r}")
        out |= bit(card)
    return out


def _net(rules: Rules, tricks: int, alone: bool, defender_alone: bool) -> int:
    makers, defenders = hand_points(rules, tricks, alone, defender_alone)
    return makers - defenders


def analyze_hand(hand: HandInput) -> dict[str, list[tuple[Any, ...]]]:
    """The ``par_hands`` row and the ``par_plays`` rows of one hand."""
    (game_id, hand_no, rules_json, dealer, upcard, trump_letter, maker, alone, defender_alone, round_,
     discard, deal, seats, cards, trick_nos, play_nos) = hand  # fmt: skip
    note = None
    if deal is None or len(deal) != 4:
        note = "no deal"
    elif not seats or len(seats) != len(cards):
        note = "no plays"
    if note is not None:
        return {"par_hands": [_unsolved(game_id, hand_no, note)], "par_plays": []}
    rules = Rules.from_record(json.loads(rules_json))
    trump = SUITS.index(trump_letter)
    dealt = [_mask(c) for c in deal]
    played = [0, 0, 0, 0]
    for seat, card in zip(seats, cards, strict=True):
        played[seat] |= _mask([card])
    out = sitting_out(maker, alone, defender_alone)
    if round_ == 1 and discard is None and dealer not in out:
        discard = _discard_from_play(dealt[dealer], upcard, played[dealer])
    start = _holdings(dealt, dealer, upcard, discard, round_)
    for seat in range(4):
        if seat not in out and start[seat] != played[seat]:
            return {
                "par_hands": [_unsolved(game_id, hand_no, "the plays differ from the deal")],
                "par_plays": [],
            }
    lone_defender = defender_alone is not None
    solver = Solver(start, trump, maker, out)
    leader = first_leader(rules, dealer, maker, alone, defender_alone)
    par = solver.par(leader)
    plays, pos = [], Position(solver.hands, leader)
    before = par
    for seat, name, t, k in zip(seats, cards, trick_nos, play_nos, strict=True):
        card = parse_card(name)
        assert card is not None
        nxt = solver.after(pos, card)
        after = solver.value(nxt)
        loss = before - after if seat & 1 == maker & 1 else after - before
        best = _keeping_card(solver, pos, before) if loss > 0 else None
        plays.append((game_id, hand_no, t, k, seat, name, before, after, loss, best))
        pos, before = nxt, after
    line = solver.par_line(leader)
    # the other choice of the maker: with the partner in, or alone
    if alone:
        par_alone = par
        par_partner = _par_partner(
            rules, dealt, dealer, upcard, discard, round_, trump, maker, defender_alone
        )
    else:
        par_partner = par
        par_alone = None
        if rules.allow_alone:
            lone = sitting_out(maker, True, defender_alone)
            par_alone = Solver(start, trump, maker, lone).par(
                first_leader(rules, dealer, maker, True, defender_alone)
            )
    row = (
        game_id,
        hand_no,
        True,
        None,
        par,
        par_partner,
        par_alone,
        _net(rules, par, alone, lone_defender),
        _net(rules, par_partner, False, lone_defender),
        None if par_alone is None else _net(rules, par_alone, True, lone_defender),
        [s for s, _ in line],
        [CARD_NAMES[c] for _, c in line],
        solver.nodes,
        VERSION,
    )
    return {"par_hands": [row], "par_plays": plays}


def _unsolved(game_id: str, hand_no: int, note: str) -> tuple[Any, ...]:
    return (game_id, hand_no, False, note, None, None, None, None, None, None, None, None, 0, VERSION)


def _holdings(
    dealt: list[CardSet], dealer: Seat, upcard: str, discard: str | None, round_: int | None
) -> list[CardSet]:
    """The cards each seat holds at the start of play: the dealer, having picked
    the upcard up (round one, a discard recorded), holds it and not the discard."""
    start = list(dealt)
    if round_ == 1 and discard is not None:
        start[dealer] = (start[dealer] | _mask([upcard])) & ~_mask([discard])
    return start


def _discard_from_play(dealt: CardSet, upcard: str, played: CardSet) -> str | None:
    """The discard of a dealer who picked the upcard up and played its five cards,
    when the record does not say it (``??``): the one of its six it did not play
    (None when the plays do not leave exactly one)."""
    left = (dealt | _mask([upcard])) & ~played
    if played & ~(dealt | _mask([upcard])) or left.bit_count() != 1:
        return None
    return CARD_NAMES[left.bit_length() - 1]


def _par_partner(
    rules: Rules,
    dealt: list[CardSet],
    dealer: Seat,
    upcard: str,
    discard: str | None,
    round_: int | None,
    trump: int,
    maker: Seat,
    defender_alone: Seat | None,
) -> int:
    """The makers' par had a lone maker kept the partner in.  When the partner
    is the dealer and did not pick the upcard up (it sat out), it now does, and
    discards the card best for the makers."""
    out = sitting_out(maker, False, defender_alone)
    leader = first_leader(rules, dealer, maker, False, defender_alone)
    if not (round_ == 1 and discard is None and dealer == partner_of(maker)):
        return Solver(_holdings(dealt, dealer, upcard, discard, round_), trump, maker, out).par(leader)
    best = 0
    held = dealt[dealer] | _mask([upcard])
    for card in range(33):
        if held >> card & 1:
            start = list(dealt)
            start[dealer] = held & ~bit(card)
            best = max(best, Solver(start, trump, maker, out).par(leader))
    return best


def _keeping_card(solver: Solver, pos: Position, par: int) -> str | None:
    """A card the seat to play could have played that keeps the par."""
    cards: list[Card] = solver.moves(pos)
    for card in cards:
        if solver.value(solver.after(pos, card)) == par:
            return CARD_NAMES[card]
    return None
