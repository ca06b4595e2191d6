"""Write ``data/openspiel/sample.jsonl``: random OpenSpiel euchre hands, seeded.

Each line is ``{"game": ..., "history": [...], "returns": [...]}``; half the
hands use OpenSpiel's defaults, half allow lone defenders without stick the
dealer.  Needs the test extra ``open-spiel``::

    python bench/make_openspiel_sample.py [--hands 36] [--seed 2024] [-o data/openspiel/sample.jsonl]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

GAMES = ("euchre()", "euchre(allow_lone_defender=True,stick_the_dealer=False)")


def random_hand(game: Any, rng: random.Random) -> Any:
    """Play one OpenSpiel euchre deal to the end with uniformly random choices."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def sample_lines(hands: int, seed: int) -> list[str]:
    """The JSON Lines of ``hands`` random deals, alternating the two game strings."""
    import pyspiel  # the test extra, needed only here

    rng = random.Random(seed)
    games = [pyspiel.load_game(g) for g in GAMES]
    lines = []
    for i in range(hands):
        game = games[i % len(games)]
        state = random_hand(game, rng)
        line = {"game": str(game), "history": state.history(), "returns": [int(r) for r in state.returns()]}
        lines.append(json.dumps(line, separators=(",", ":")))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=36)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("-o", "--output", default="data/openspiel/sample.jsonl")
    args = parser.parse_args()
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(sample_lines(args.hands, args.seed)) + "\n")


if __name__ == "__main__":
    main()
