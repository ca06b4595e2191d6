"""Simulated French Tarot games, written as tarot/1 JSON Lines.

The heuristic bots of :mod:`bots` deal, bid, discard, announce and play whole
games; each hand's ``claimed`` figures are those of the scoring module, as a
careful scorer would write them.  Game ``n`` of a seed is played with its own
random generator, so the same seed always gives the same file, and any game
can be replayed alone.

>>> games = list(simulate_games(2, seed=3))
>>> [g["game_id"] for g in games], [g["rules"]["preset"] for g in games]
(['tarot-sim-3-0', 'tarot-sim-3-1'], ['fft', 'fft'])
>>> games == list(simulate_games(2, seed=3))
True
>>> from pipeline.games.tarot.replay import replay_game
>>> [replay_game(g).violations for g in games]
[[], []]
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from pipeline import simulation
from pipeline.faults import FaultPlanter
from pipeline.games.tarot import bots
from pipeline.games.tarot.cards import EXCUSE_BIT, NUM_CARDS, PETIT, TRUMPS, card_name, cards_in
from pipeline.games.tarot.replay import replay_hand
from pipeline.games.tarot.rules import PRESETS, Rules
from pipeline.games.tarot.state import Context
from pipeline.games.tarot.trick import winner_index
from pipeline.simulation import SOURCE, SimulationResult, corruptions_path_for, draw_players, start_of
from pipeline.violations import TricklogError

#: Minutes between the starts of two games of a seed.
MINUTES_APART = 60


def preset_names() -> tuple[str, ...]:
    return tuple(PRESETS)


def _rules_of(preset: str) -> Rules:
    if preset not in PRESETS:
        raise TricklogError(f"unknown preset {preset!r} (known: {', '.join(preset_names())})")
    return PRESETS[preset]


def game_rng(seed: int, n: int) -> random.Random:
    """The generator of game ``n`` of a seed (string seeds hash the same in every process)."""
    return simulation.game_rng("tricklog-simulate-tarot", seed, n)


def game_id_of(seed: int, n: int) -> str:
    return f"tarot-sim-{seed}-{n}"


def deal_cards(rng: random.Random) -> tuple[list[int], list[int]]:
    """Four hands of 18 (as masks) and the chien (6 cards)."""
    deck = list(range(NUM_CARDS))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[18 * s : 18 * s + 18]) for s in range(4)]
    return hands, sorted(deck[72:])


def _tokens(mask: int) -> list[str]:
    return [card_name(c) for c in cards_in(mask)]


def play_hand(rules: Rules, dealer: int, rng: random.Random) -> dict[str, Any]:
    """One hand as a tarot/1 hand object, without its claims."""
    hands, chien = deal_cards(rng)
    record: dict[str, Any] = {
        "dealer": dealer,
        "deal": [_tokens(h) for h in hands],
        "chien": [card_name(c) for c in chien],
    }
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    if rules.petit_sec and any(h & TRUMPS == 1 << PETIT and not h & EXCUSE_BIT for h in hands):
        record["bids"] = []
        record["thrown_in"] = "petit_sec"
        return record
    bids: list[dict[str, Any]] = []
    highest: str | None = None
    taker = None
    for seat in order:
        call = bots.choose_call(hands[seat], highest, rng)
        bids.append({"seat": seat, "call": call})
        if call != "pass":
            highest, taker = call, seat
    record["bids"] = bids
    if taker is None or highest is None:
        record["thrown_in"] = "all_passed"
        return record
    if highest in ("prise", "garde"):
        holding = hands[taker] | sum(1 << c for c in chien)
        ecart = bots.choose_ecart(holding)
        hands[taker] = holding & ~sum(1 << c for c in ecart)
        record["ecart"] = [card_name(c) for c in ecart]
    announcements: list[dict[str, Any]] = []
    if bots.announces_chelem(hands[taker]):
        announcements.append({"seat": taker, "type": "chelem"})
    for seat in order:
        shown = bots.choose_poignee(hands[seat], rules, rng)
        if shown is not None:
            announcements.append({"seat": seat, "type": "poignee", "trumps": [card_name(c) for c in shown]})
    if announcements:
        record["announcements"] = announcements
    leader = taker if any(a["type"] == "chelem" for a in announcements) else order[0]
    tricks: list[list[list[Any]]] = []
    for t in range(18):
        plays: list[tuple[int, int]] = []
        for i in range(4):
            seat = (leader + i) % 4
            card = bots.choose_card(hands[seat], plays, seat, taker, 18 - t, rng)
            hands[seat] &= ~(1 << card)
            plays.append((seat, card))
        tricks.append([[s, card_name(c)] for s, c in plays])
        leader = plays[winner_index([c for _, c in plays])][0]
    record["tricks"] = tricks
    return record


def play_game(
    rules: Rules,
    game_id: str,
    players: list[str],
    rng: random.Random,
    *,
    hands: int,
    started_at: str,
    source: str,
) -> dict[str, Any]:
    """A whole game of ``hands`` deals, with every hand's claimed figures."""
    dealer = rng.randrange(4)
    record: dict[str, Any] = {
        "format": "tarot/1",
        "game_id": game_id,
        "players": players,
        "rules": {"preset": rules.preset},
        "started_at": started_at,
        "source": source,
        "hands": [],
    }
    totals = [0, 0, 0, 0]
    ctx = Context(game_id)
    for index in range(hands):
        hand = play_hand(rules, dealer, rng)
        hand["claimed"] = claims_of(ctx, rules, index, hand, totals)
        record["hands"].append(hand)
        dealer = (dealer + 1) % 4
    return record


def claims_of(
    ctx: Context, rules: Rules, index: int, hand: dict[str, Any], totals: list[int]
) -> dict[str, Any]:
    """The figures a careful scorer writes for a hand (and adds to ``totals``)."""
    result = replay_hand(ctx, rules, index, hand, None)
    assert result is not None
    for seat in range(4):
        totals[seat] += result.scores[seat]
    claimed: dict[str, Any] = {}
    if result.taker is not None and result.complete:
        claimed = {
            "trick_winners": [t.winner for t in result.tricks],
            "taker_points": result.taker_half_points // 2,
            "bouts": result.bouts,
            "made": result.made,
            "scores": list(result.scores),
        }
    claimed["totals"] = list(totals)
    return claimed


def simulate_game(n: int, *, seed: int = 0, preset: str = "fft") -> dict[str, Any]:
    """Game ``n`` of a simulation: the same record whenever it is asked for."""
    rules = _rules_of(preset)
    rng = game_rng(seed, n)
    players = draw_players(rng)
    started_at = start_of(rng, n, minutes_apart=MINUTES_APART)
    hands = 4 * rng.randint(1, 3)
    return play_game(
        rules, game_id_of(seed, n), players, rng, hands=hands, started_at=started_at, source=SOURCE
    )


def simulate_games(n: int, *, seed: int = 0, preset: str = "fft") -> Iterator[dict[str, Any]]:
    """``n`` simulated games, deterministic for a seed."""
    _rules_of(preset)
    for index in range(n):
        yield simulate_game(index, seed=seed, preset=preset)


def _planter() -> FaultPlanter:
    from pipeline.games.tarot.corrupt import PLANTER

    return PLANTER


HARNESS = simulation.Harness(simulate_game, game_id_of, _rules_of, _planter, "tricklog-corrupt-tarot", "fft")
#: Write ``n`` simulated games to ``path`` as JSON Lines, a share of them corrupted
#: (:meth:`pipeline.simulation.Harness.write`).
write_simulation = HARNESS.write


__all__ = [
    "SimulationResult",
    "claims_of",
    "corruptions_path_for",
    "play_game",
    "play_hand",
    "simulate_game",
    "simulate_games",
    "write_simulation",
]
