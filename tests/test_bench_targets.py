"""The benchmark's verdicts on the targets of issue 12 (``bench/throughput.py``'s
:func:`targets`): what it calls met is what the issue asks, no more, no less."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "throughput.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("throughput", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _measured(**peaks: list[int]) -> dict[str, Any]:
    return {name: {"peak_rss_runs": runs} for name, runs in peaks.items()}


def test_a_speed_target_is_met_at_its_bound_and_missed_below(bench: ModuleType) -> None:
    ratios = {
        "validate / peer (speed)": 3.0,
        "load / peer (speed)": 1.49,
        "dask 2 workers / dask 1 worker (speed)": 1.61,
    }
    goals = bench.targets(ratios, {}, {})
    assert {name: goal["met"] for name, goal in goals.items()} == {
        "validate / peer (speed)": True,
        "load / peer (speed)": False,
        "dask 2 workers / dask 1 worker (speed)": True,
    }
    assert goals["load / peer (speed)"]["bound"] == 1.5


def test_memory_is_within_the_spread_of_the_compared_runs(bench: ModuleType) -> None:
    measured = _measured(validate=[500, 510, 505], dask_2_workers=[800, 800, 800])
    memory = {"validate_large": {"peak_rss": 520}, "dask_2_large": {"peak_rss": 801}}
    goals = bench.targets({}, measured, memory)
    within = goals["validate peak RSS, large within compared"]
    assert within == {
        "value": round(520 / 510, 4),
        "bound": round(510 / 500, 4),
        "met": True,
        "compared_runs": 3,
    }
    # runs that did not spread leave no room: one byte over the peak is over
    assert goals["dask 2 workers peak RSS, large within compared"]["met"] is False
    assert "load peak RSS, large within compared" not in goals  # not measured, no verdict


def test_memory_over_the_spread_is_missed(bench: ModuleType) -> None:
    goals = bench.targets({}, _measured(load=[1000, 990]), {"load_large": {"peak_rss": 1020}})
    assert goals["load peak RSS, large within compared"]["met"] is False


def test_the_bench_s_examples_hold(bench: ModuleType) -> None:
    """Its docstrings' examples (the tenths of a run, how many runs the compared input gets)."""
    import doctest

    results = doctest.testmod(bench)
    assert results.attempted >= 4 and results.failed == 0


def test_the_compared_input_is_run_for_as_many_bytes_as_the_large_one(bench: ModuleType) -> None:
    import argparse

    def runs(**given: Any) -> int:
        defaults = {"memory_runs": None, "runs": 5, "input_mb": 200, "large_mb": 2000}
        return int(bench.memory_runs(argparse.Namespace(**(defaults | given))))

    assert runs() == 10
    assert runs(large_mb=2100) == 11  # a part of a run is a run
    assert runs(runs=12) == 12  # the speed rounds count, and are never cut
    assert runs(memory_runs=3) == 5 and runs(memory_runs=20) == 20
    assert runs(input_mb=0) == 5 and runs(large_mb=0) == 5
