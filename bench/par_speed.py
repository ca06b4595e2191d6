"""Double-dummy par speed: hands per second, as ``tricklog analyze`` runs them.

Simulated games (mixed presets) are loaded into a fresh warehouse in a
temporary folder, then measured:

- ``solve``: the par alone of each hand (one search from the start of play);
- ``analyze_hand``: all ``analyze`` computes for a hand (par, the value after
  each card, the better card where one lost tricks, a par line, the par with
  the partner in or alone), in this process, CPU time;
- ``tricklog analyze`` with ``--jobs 1`` and ``--jobs 2``, wall time, the
  warehouse reads and writes included.

Run on its own (never in the test suite)::

    python bench/par_speed.py --games 300

The machine is shared and noisy: compare figures measured in one run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import orjson

from pipeline.games.euchre.analysis import INPUTS_SQL, TODO_SQL, VERSION, analyze_hand
from pipeline.games.euchre.simulate import simulate_games
from pipeline.warehouse.api import load

TRICKLOG = [sys.executable, "-c", "from pipeline.cli import main; main()"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--commands-only", action="store_true", help="only time tricklog analyze")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tricklog-par-bench-") as tmp:
        folder = Path(tmp)
        games = folder / "games.jsonl"
        games.write_bytes(
            b"\n".join(orjson.dumps(r) for r in simulate_games(args.games, seed=7, preset="mixed")) + b"\n"
        )
        base = folder / "base.duckdb"
        load([str(games)], base)
        con = duckdb.connect(str(base))
        from pipeline.games.euchre.analysis import par_ddl

        con.execute(par_ddl())
        con.execute(f"create temp table analysis_batch as {TODO_SQL}", {"version": VERSION})
        inputs = con.execute(INPUTS_SQL).fetchall()
        con.close()
        n = len(inputs)
        print(f"{args.games} games, {n} hands to analyse")

        from pipeline.games.euchre.analysis import _holdings, _mask  # the same start as analyze
        from pipeline.games.euchre.cards import SUITS
        from pipeline.games.euchre.par import Solver
        from pipeline.games.euchre.rules import Rules, first_leader, sitting_out

        def solve_all(compiled: bool) -> None:
            t0 = time.process_time()
            nodes = 0
            for h in inputs:
                rules = Rules.from_record(orjson.loads(h[2]))
                start = _holdings([_mask(c) for c in h[11]], h[3], h[4], h[10], h[9])
                out = sitting_out(h[6], h[7], h[8])
                solver = Solver(start, SUITS.index(h[5]), h[6], out, compiled=compiled)
                solver.par(first_leader(rules, h[3], h[6], h[7], h[8]))
                nodes += solver.nodes
            solve = time.process_time() - t0
            how = "numba" if compiled else "Python"
            print(f"solve (par only), {how}:  {n / solve:8.1f} hands/s CPU, {nodes / n:.0f} nodes a hand")

        full = 0.0
        if not args.commands_only:
            solve_all(False)

            import pipeline.games.euchre.par as par

            par.COMPILE_AFTER = 10**12  # the plain Python search
            t0 = time.process_time()
            for h in inputs:
                analyze_hand(h)
            full = time.process_time() - t0
            print(f"analyze_hand, Python:     {n / full:8.1f} hands/s CPU")
            try:
                import numba  # noqa: F401
            except ImportError:
                print("numba is not installed: no compiled search")
            else:
                par.COMPILE_AFTER = 0
                t0 = time.perf_counter()
                Solver([0, 0, 0, 0], 0, 0, compiled=True).par(0)
                print(f"compiling the search:     {time.perf_counter() - t0:8.1f} s (once per process)")
                solve_all(True)
                t0 = time.process_time()
                for h in inputs:
                    analyze_hand(h)
                fast = time.process_time() - t0
                print(f"analyze_hand, numba:      {n / fast:8.1f} hands/s CPU")
                full = fast

        # the command in a fresh process: each process solves in Python until it has
        # made par.COMPILE_AFTER solvers, then compiles the search (where numba is installed)
        for jobs in (1, 2):
            db = folder / f"jobs{jobs}.duckdb"
            shutil.copy(base, db)
            t0 = time.perf_counter()
            subprocess.run([*TRICKLOG, "analyze", "--db", str(db), "--jobs", str(jobs)], check=True)
            wall = time.perf_counter() - t0
            print(f"tricklog analyze --jobs {jobs}: {n / wall:8.1f} hands/s wall (fresh processes)")
        if full:
            per_hour = n / full * 3600
            print(f"a million hands on one core at the best analyze_hand rate: {1e6 / per_hour:.2f} hours")


if __name__ == "__main__":
    main()
