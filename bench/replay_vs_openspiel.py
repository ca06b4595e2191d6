"""Replay speed: tricklog's Euchre engine against OpenSpiel's C++ engine, in one run.

Both replay the same hands with a legality check of every action:

- OpenSpiel: ``new_initial_state`` then, for each action of the history, a
  check that it is in ``legal_actions()`` and ``apply_action``;
- tricklog: ``orjson.loads`` of the euchre/1 line and ``replay_game`` (every
  rule check, violations collected).

Run on its own (never in the test suite); it needs the test extra open-spiel::

    python bench/replay_vs_openspiel.py --hands 20000

It prints hands per second of CPU time for each and their ratio (and how much
of tricklog's time is JSON parsing); the machines
are shared and noisy, so compare ratios measured in one run, not figures
across runs.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import orjson
from make_openspiel_sample import random_hand  # beside this script

from pipeline.games.euchre.importers.openspiel import history_to_record
from pipeline.games.euchre.replay import replay_game


def random_histories(n: int, seed: int) -> list[list[int]]:
    import pyspiel

    game = pyspiel.load_game("euchre")
    rng = random.Random(seed)
    return [random_hand(game, rng).history() for _ in range(n)]


def openspiel_replay(histories: list[list[int]]) -> None:
    import pyspiel

    game = pyspiel.load_game("euchre")
    for history in histories:
        state = game.new_initial_state()
        for action in history:
            legal = (
                [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            )
            if action not in legal:
                raise AssertionError("illegal action in a generated history")
            state.apply_action(action)


def tricklog_replay(lines: list[bytes]) -> None:
    for line in lines:
        if replay_game(orjson.loads(line)).violations:
            raise AssertionError("a legal hand was flagged")


def parse_only(lines: list[bytes]) -> None:
    for line in lines:
        orjson.loads(line)


def cpu_seconds(run: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    histories = random_histories(args.hands, args.seed)
    lines = []
    for i, history in enumerate(histories):
        record, problems = history_to_record("euchre", history, game_id=f"bench-{i}")
        assert record is not None and not problems
        lines.append(orjson.dumps(record))

    spiel = cpu_seconds(lambda: openspiel_replay(histories), args.repeat)
    ours = cpu_seconds(lambda: tricklog_replay(lines), args.repeat)
    parse = cpu_seconds(lambda: parse_only(lines), args.repeat)
    print(f"hands: {args.hands:,} (OpenSpiel random play, default rules)")
    print(f"OpenSpiel C++ (via pyspiel): {args.hands / spiel:10,.0f} hands/s")
    print(f"tricklog (parse + replay)  : {args.hands / ours:10,.0f} hands/s")
    print(f"orjson parse alone         : {args.hands / parse:10,.0f} hands/s")
    print(f"ratio tricklog / OpenSpiel : {spiel / ours:10.2f}")
    print(f"share of tricklog's time spent parsing: {parse / ours:.0%}")


if __name__ == "__main__":
    main()
