"""The peer of ``bench/throughput.py``: OpenSpiel's C++ euchre engine replaying a
JSON Lines file of histories with a legality check of every action, as one process.

    python bench/openspiel_peer.py peer.jsonl

Each line is ``{"game": "euchre(...)", "history": [...]}`` (one hand); prints the
number of hands replayed.  Needs the test extra open-spiel.
"""

from __future__ import annotations

import sys

import orjson
import pyspiel


def main(path: str) -> None:
    games: dict[str, object] = {}
    hands = 0
    with open(path, "rb") as stream:
        for line in stream:
            record = orjson.loads(line)
            name = record["game"]
            game = games.get(name) or games.setdefault(name, pyspiel.load_game(name))
            state = game.new_initial_state()  # type: ignore[attr-defined]
            for action in record["history"]:
                if state.is_chance_node():
                    legal = [a for a, _ in state.chance_outcomes()]
                else:
                    legal = state.legal_actions()
                if action not in legal:
                    raise SystemExit(f"illegal action {action} in hand {hands}")
                state.apply_action(action)
            hands += 1
    print(hands)


if __name__ == "__main__":
    main(sys.argv[1])
