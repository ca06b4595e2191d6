"""Regenerate ``data/sample/``: simulated games of each preset, and a corrupted file.

    /tmp/venv/bin/python data/make_sample.py [OUT_DIR]

Deterministic: the same files every run.  ``tricklog validate data/sample/*.jsonl``
must report exactly the corruptions listed in ``corrupt.corruptions.json``
(every code of the spec but ``unsupported``), and nothing in the other files.
Each file has its own seed, so game ids never repeat across files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline.games.euchre.corrupt import FAULT_CODES
from pipeline.games.euchre.simulate import write_simulation

SAMPLE = Path(__file__).resolve().parent / "sample"
GAMES_PER_PRESET = 70
#: (file stem, preset, seed)
CLEAN_FILES = (("cards4net", "cards4net", 1), ("pagat", "pagat", 2), ("french", "french", 3))
CORRUPT_GAMES = 40
CORRUPT_RATE = 0.55
CORRUPT_SEED = 4
MAX_BYTES = 2_000_000


def main(out: Path = SAMPLE) -> int:
    """Write the sample into ``out``; 1 when it misses a code or grows too big."""
    out.mkdir(parents=True, exist_ok=True)
    for stem, preset, seed in CLEAN_FILES:
        result = write_simulation(out / f"{stem}.jsonl", GAMES_PER_PRESET, seed=seed, preset=preset)
        print(f"{result.path.name}: {result.games} games, {result.hands} hands")
    result = write_simulation(
        out / "corrupt.jsonl", CORRUPT_GAMES, seed=CORRUPT_SEED, preset="mixed", corrupt_rate=CORRUPT_RATE
    )
    codes = {c.code for c in result.corruptions}
    print(f"{result.path.name}: {result.games} games, {result.corrupted} corrupted, {len(codes)} codes")
    missing = set(FAULT_CODES) - codes
    if missing:
        print(f"codes missing from the corrupted sample: {sorted(missing)}", file=sys.stderr)
        return 1
    total = sum(p.stat().st_size for p in out.glob("*.json*"))
    print(f"total {total / 1e6:.2f} MB")
    if total > MAX_BYTES:
        print(f"the sample is over {MAX_BYTES / 1e6:.0f} MB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE))
