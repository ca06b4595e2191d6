"""The fast path against the reference replay, game for game.

``fast_check`` may only clear a game the replay finds clean with every deal
known (soundness), and on the common shape it must clear every such game
(completeness: otherwise the fast path would be a no-op that passes).  The
games: simulated ones of every preset, each planted fault of ``corrupt.py``,
random rule options, inferred deals, random one-value mutations, and OpenSpiel
hands (the shipped sample and random ones).  Then ``validate`` end to end,
fast path on and off: the same summary and the same violations.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import orjson
import pytest
from warehouse_helpers import every_row

from pipeline.games.euchre import fast
from pipeline.games.euchre.cards import CARD_NAMES
from pipeline.games.euchre.corrupt import FAULTS, reclaim
from pipeline.games.euchre.replay import replay_game
from pipeline.games.euchre.rules import PRESETS, Rules
from pipeline.games.euchre.simulate import simulate_game, write_simulation
from pipeline.games.euchre.tables import game_facts, table_rows
from pipeline.validate import validate

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parent.parent
TOKENS = [CARD_NAMES[c] for c in sorted(fast.TOKENS.values())]


def reference_clean(record: dict[str, Any]) -> bool:
    replay = replay_game(record)
    return not replay.violations and all(h.deal_known for h in replay.hands)


def check_sound(records: list[dict[str, Any]]) -> tuple[list[bool], list[bool]]:
    """Both verdicts; fails on any game the fast path clears and the replay does not,
    and on any cleared game whose warehouse rows differ from the replay's."""
    cleared = fast.fast_check(records, min_games=0)
    clean = [reference_clean(r) for r in records]
    replays = fast.fast_replays(records, min_games=0)
    assert [r is not None for r in replays] == cleared
    for record, replay in zip(records, replays, strict=True):
        if replay is not None:
            reference = replay_game(record)
            assert table_rows(record, replay, frozenset()) == table_rows(record, reference, frozenset()), (
                record["game_id"]
            )
            assert game_facts(replay) == game_facts(reference)
            assert (replay.score, replay.ended_at, replay.complete) == (
                reference.score,
                reference.ended_at,
                reference.complete,
            )
    wrong = [
        r["game_id"] if isinstance(r, dict) else r
        for r, c, ok in zip(records, cleared, clean, strict=False)
        if c and not ok
    ]
    assert not wrong, f"cleared, but the replay finds a fault: {wrong[:5]}"
    return cleared, clean


@pytest.fixture(scope="module")
def simulated() -> list[dict[str, Any]]:
    return [simulate_game(n, seed=11, preset="mixed") for n in range(600)] + [
        simulate_game(n, seed=12, preset=preset) for preset in PRESETS for n in range(100)
    ]


def test_clean_games_agree_and_are_all_cleared(simulated: list[dict[str, Any]]) -> None:
    cleared, clean = check_sound(simulated)
    assert all(clean)
    assert cleared == clean


def test_every_planted_fault(simulated: list[dict[str, Any]]) -> None:
    rng = random.Random(5)
    broken = []
    for fault in FAULTS:
        planted = 0
        for record in simulated:
            candidate = copy.deepcopy(record)
            if fault.apply(candidate, rng):
                if fault.reclaim:
                    reclaim(candidate)
                broken.append(candidate)
                planted += 1
                if planted == 8:
                    break
    assert len(broken) > 8 * len(FAULTS) // 2
    cleared, clean = check_sound(broken)
    assert cleared == clean  # the common shape: a clean one (a fault undone by chance) is cleared too
    assert not all(clean)


def _random_options(rng: random.Random) -> dict[str, Any]:
    rules: dict[str, Any] = {"preset": rng.choice(list(PRESETS))}
    for f in fields(Rules):
        if f.name in ("preset", "deck") or rng.random() < 0.7:
            continue
        default = getattr(Rules(), f.name)
        if isinstance(default, bool):
            rules[f.name] = rng.random() < 0.5
        elif isinstance(default, int):
            rules[f.name] = rng.randrange(1, 6) if f.name != "target" else rng.choice([5, 7, 10, 11])
        elif f.name == "alone_lead":
            rules[f.name] = rng.choice(["left_of_dealer", "left_of_alone"])
        else:
            rules[f.name] = rng.choice(["lone_defender", "left_of_dealer"])
    return rules


def test_every_rule_option(simulated: list[dict[str, Any]]) -> None:
    rng = random.Random(7)
    games = []
    for record in simulated[:500]:
        candidate = copy.deepcopy(record)
        candidate["rules"] = _random_options(rng)
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert cleared == clean
    assert any(clean) and not all(clean)


def test_inferred_deals_and_other_shapes_go_to_the_replay(simulated: list[dict[str, Any]]) -> None:
    rng = random.Random(3)
    games = []
    for record in simulated[:300]:
        candidate = copy.deepcopy(record)
        hand = rng.choice(candidate["hands"])
        match rng.randrange(5):
            case 0:
                del hand["deal"]
            case 1:
                hand["deal"][rng.randrange(4)][rng.randrange(5)] = "??"
            case 2:
                hand["kitty"][0] = "??"
            case 3:
                candidate["rules"] = {"preset": "cards4net", "deck": 32}
            case _:
                hand["tricks"] = hand.get("tricks", [])[:3]
        games.append(candidate)
    cleared, _ = check_sound(games)
    assert not any(cleared)


def _mutate(value: Any, rng: random.Random) -> Any:
    """One random leaf of a JSON value changed: a number moved, a card swapped, a flag flipped."""
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        value[key] = _mutate(value[key], rng)
        return value
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        value[i] = _mutate(value[i], rng)
        return value
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([-1, 1, 2])
    if isinstance(value, str) and value in fast.TOKENS:
        return rng.choice(TOKENS)
    if isinstance(value, str) and value in fast.CALL_CODES:
        return rng.choice(list(fast.CALL_CODES))
    return value


def test_random_mutations(simulated: list[dict[str, Any]]) -> None:
    rng = random.Random(9)
    games = []
    for record in simulated:
        candidate = copy.deepcopy(record)
        for _ in range(rng.choice([1, 1, 2])):
            _mutate(candidate["hands"], rng)
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert sum(cleared) > 10 and not all(clean)


def _openspiel_records(lines: list[bytes]) -> list[dict[str, Any]]:
    from pipeline.games.euchre.importers.openspiel import history_to_record

    out = []
    for i, line in enumerate(lines):
        value = orjson.loads(line)
        record, _problems = history_to_record(value["game"], value["history"], game_id=f"os-{i}")
        if record is not None:
            out.append(record)
    return out


def test_openspiel_games() -> None:
    lines = (ROOT / "data/openspiel/sample.jsonl").read_bytes().splitlines()
    try:
        import sys

        sys.path.insert(0, str(ROOT / "bench"))
        from make_openspiel_sample import sample_lines

        lines += [line.encode() for line in sample_lines(1500, seed=77)]
    except ImportError:  # open-spiel is a test extra: the shipped sample still runs
        pass
    records = _openspiel_records(lines)
    cleared, clean = check_sound(records)
    assert cleared == clean
    assert sum(cleared) > len(records) // 2


def test_validate_with_and_without_the_fast_path(
    simulated: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(1)
    lines = []
    for record in simulated:
        candidate = copy.deepcopy(record)
        if rng.random() < 0.3:
            _mutate(candidate["hands"], rng)
        lines.append(orjson.dumps(candidate))
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    def run(jobs: int) -> tuple[dict[str, Any], list[Any]]:
        seen: list[Any] = []
        summary = validate(
            [str(path)], jobs=jobs, on_game=lambda g: seen.append([v.to_json() for v in g.violations])
        )
        return summary.to_json(), seen

    from pipeline import parallel

    monkeypatch.setattr(parallel, "CHUNK_LINES", 150)  # more than one: two processes do them
    monkeypatch.setattr(fast, "MIN_GAMES", 10**12)
    reference = run(1)
    monkeypatch.setattr(fast, "MIN_GAMES", 0)
    monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", 0)
    assert run(1) == reference
    assert run(2) == reference
    assert reference[0]["violations"] > 0


def test_load_with_and_without_the_fast_path(
    simulated: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers clearing games in bulk write the same rows as a load that replays every game."""
    from pipeline import parallel
    from pipeline.warehouse.api import load

    rng = random.Random(2)
    lines = []
    for record in simulated[:400]:
        candidate = copy.deepcopy(record)
        if rng.random() < 0.3:
            _mutate(candidate["hands"], rng)
        lines.append(orjson.dumps(candidate))
    lines += [lines[3], b"[1]"]
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    reference = load([str(path)], tmp_path / "one.duckdb", batch_size=150)
    monkeypatch.setattr(parallel, "FAST_PATH_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "CHUNK_LINES", 150)  # more than one: two processes do them
    fast_load = load([str(path)], tmp_path / "two.duckdb", batch_size=150, jobs=2)
    assert {**fast_load.to_json(), "db": None} == {**reference.to_json(), "db": None}
    assert every_row(tmp_path / "two.duckdb") == every_row(tmp_path / "one.duckdb")


def test_optional_fields(simulated: list[dict[str, Any]]) -> None:
    """A running score carried in, claims left out, an import's origin, a field the spec does not name."""
    rng = random.Random(4)
    games = []
    for record in simulated[:300]:
        candidate = copy.deepcopy(record)
        match rng.randrange(5):
            case 0:
                candidate["initial_score"] = [rng.randrange(10), rng.randrange(10)]
            case 1:
                for hand in candidate["hands"]:
                    hand.pop("claimed", None)
                candidate.pop("final_score", None)
            case 2:
                candidate["origin"] = {"format": "egn", "deals": list(range(len(candidate["hands"])))}
            case 3:
                candidate["rules"] = {"preset": "cards4net", "deck": 24, "target": 5}
            case _:
                candidate["table"] = "no. 4"
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert any(cleared) and not all(cleared)
    unknown = [("table" in g) for g in games]
    assert cleared == [c and not u for c, u in zip(clean, unknown, strict=True)]


def test_scores_out_of_range(simulated: list[dict[str, Any]]) -> None:
    """A running score the replay refuses (over ``MAX_SCORE`` in size, however far
    from the target) is not cleared, by the layout nor by the byte scanner."""
    from pipeline.games.euchre.record import MAX_SCORE

    games = []
    for n, record in enumerate(simulated[:40]):
        candidate = copy.deepcopy(record)
        size = MAX_SCORE + (n % 2)  # at the limit (clean) and one past it (a schema violation)
        candidate["initial_score"] = [-size, -size]
        candidate.pop("final_score", None)
        for hand in candidate["hands"]:
            hand.get("claimed", {}).pop("score", None)
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert cleared == clean == [n % 2 == 0 for n in range(len(games))]
    from pipeline.games.euchre.fast_scan import scan

    scanned = scan([orjson.dumps(g) for g in games], min_games=0)
    assert scanned is not None and scanned.lines == [n for n in range(len(games)) if n % 2 == 0]


#: A game's ``started_at`` and ``source`` as exporters write them, and as they should not.
TEXT_FIELD_VALUES: list[tuple[str, Any, bool]] = [
    ("started_at", "2024-03-05T19:02:00Z", True),
    ("started_at", "2024-03-05", True),
    ("started_at", "2024-03-05 19:02", True),
    ("started_at", "2024-03-05T19:02:03.123456789+05:30", True),
    ("started_at", "2024-03-05T19:02:03-0800", True),
    ("started_at", None, True),
    ("started_at", "not a date", False),
    ("started_at", "2023-02-29T10:00:00Z", False),
    ("started_at", "2024-03-05T24:00:00Z", False),
    ("started_at", "05/03/2024 19:02", False),
    ("started_at", "20240305T190200Z", False),
    ("started_at", "", False),
    ("started_at", 1709665320, False),
    ("started_at", ["2024-03-05"], False),
    ("source", "site export, table 4", True),
    ("source", "", True),
    ("source", None, True),
    ("source", {"site": "x"}, False),
    ("source", 7, False),
    ("source", True, False),
]


def test_started_at_and_source(simulated: list[dict[str, Any]]) -> None:
    """The game's own strings: each fast path clears a game exactly when the replay
    finds them right, the layout of parsed records as the byte scanner."""
    from pipeline.games.euchre.fast_scan import scan

    games = []
    for n, (key, value, _right) in enumerate(TEXT_FIELD_VALUES * 3):
        candidate = copy.deepcopy(simulated[n])
        candidate[key] = value
        games.append(candidate)
    expected = [right for _key, _value, right in TEXT_FIELD_VALUES * 3]
    cleared, clean = check_sound(games)
    assert cleared == clean == expected
    scanned = scan([orjson.dumps(g) for g in games], min_games=0)
    assert scanned is not None and scanned.lines == [n for n, right in enumerate(expected) if right]


#: Claims as exporters may spell them: only an int pair (or a list of seats) is one.
WRONG_CLAIMS: list[tuple[str, Any]] = [
    ("points", [1.0, 0.0]),
    ("points", [True, False]),
    ("points", "1-0"),
    ("points", [1]),
    ("score", [1, 0, 0]),
    ("score", 3),
    ("score", {"team0": 1}),
    ("trick_winners", "0,2,0,1,3"),
    ("trick_winners", 0),
]


def test_claims_of_another_type(simulated: list[dict[str, Any]]) -> None:
    """A claim that is no pair of whole numbers (no list of seats) is the replay's
    schema violation: no fast path clears its game, nor takes it for no claim."""
    games = []
    for n, (key, value) in enumerate(WRONG_CLAIMS):
        candidate = copy.deepcopy(simulated[n])
        candidate["hands"][0]["claimed"][key] = value
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert cleared == clean == [False] * len(games)


def test_claimed_winners_are_one_a_trick(simulated: list[dict[str, Any]]) -> None:
    """Claimed winners right as far as they go, but one short or one over, are the
    replay's schema violation: neither fast path clears them (the kernel compared
    as many as were claimed)."""
    from pipeline.games.euchre.fast_scan import cleared_lines

    games = []
    for n, change in enumerate((lambda w: w[:4], lambda w: [*w, w[0]], lambda w: w)):
        candidate = copy.deepcopy(simulated[n])
        played = next(h for h in candidate["hands"] if "tricks" in h)
        played["claimed"]["trick_winners"] = change(played["claimed"]["trick_winners"])
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert clean == [False, False, reference_clean(simulated[2])] and cleared[:2] == [False, False]
    lines = [orjson.dumps(g) for g in games]
    assert [found is not None for found in cleared_lines(lines)][:2] == [False, False]
    assert [v.code for v in replay_game(games[0]).violations] == ["schema"]


def test_a_rule_value_of_another_type_whatever_came_before(simulated: list[dict[str, Any]]) -> None:
    """1 == True and 10.0 == 10 in Python: rules read before must not make a
    refused spelling pass (the rules are read once a batch, before any replay)."""
    spellings = [("stick_the_dealer", True, 1), ("target", 10, 10.0), ("deck", 24, 24.0)]
    games = []
    for n, (option, right, wrong) in enumerate(spellings * 2):
        candidate = copy.deepcopy(simulated[n])
        candidate["rules"] = {"preset": "cards4net", option: right if n < len(spellings) else wrong}
        games.append(candidate)
    cleared, clean = check_sound(games)
    assert clean == [True] * len(spellings) + [False] * len(spellings)
    assert cleared == clean
    assert [v.code for v in replay_game(games[-1]).violations] == ["schema"]


def test_a_run_on_a_fresh_install_does_not_wait_for_the_kernels(tmp_path: Path) -> None:
    """With nothing compiled (an empty ``NUMBA_CACHE_DIR``), ``validate`` and ``load``
    go without the fast path, with the same results, while one process compiles the
    kernels in the background; the runs after it take them."""
    import fcntl

    path = tmp_path / "games.jsonl"
    write_simulation(path, 200, seed=8, preset="mixed", corrupt_rate=0.1)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "TRICKLOG_FAST_PATH_MIN_BYTES": "0"}
    script = (
        "import json, sys; from pipeline.validate import validate; from pipeline.warehouse.api import load; "
        "checked = validate([sys.argv[1]], jobs=1); loaded = load([sys.argv[1]], sys.argv[2], jobs=1); "
        "print(json.dumps([checked.to_json(), loaded.to_json(), 'pipeline.games.euchre.fast_kernel' in sys.modules]))"
    )

    def run(db: Path) -> tuple[dict[str, Any], dict[str, Any], bool]:
        done = subprocess.run(
            [sys.executable, "-c", script, str(path), str(db)], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        checked, loaded, kernels_loaded = json.loads(done.stdout)
        return checked, {**loaded, "db": None}, kernels_loaded

    # the background compile waits for this lock: the first run cannot see it done
    with open(cache / "tricklog-kernels.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        first = run(tmp_path / "first.duckdb")
    assert first[2] is False
    for _ in range(600):  # the background compile: about 20 CPU seconds
        if list(cache.glob("tricklog-euchre-kernels-*.compiled")):
            break
        time.sleep(1)
    else:
        pytest.fail("the kernels were not compiled in the background")
    second = run(tmp_path / "second.duckdb")
    assert second[2] is True
    assert second[:2] == first[:2]
    assert first[0] == validate([str(path)]).to_json() and first[0]["violations"] > 0
    assert every_row(tmp_path / "second.duckdb") == every_row(tmp_path / "first.duckdb")


def test_a_failed_compile_says_why_and_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compile that fails leaves the reason beside the kernels' marker; runs then
    go without the fast path and start no new compile, until that file is gone."""
    from dataclasses import replace

    from pipeline import kernels
    from pipeline.games.euchre.plugin import GAME

    def no_code(records: Any) -> Any:
        raise RuntimeError("no machine code for this processor")

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kernels, "installed", lambda: [replace(GAME, fast_check=no_code)])
    monkeypatch.setattr(kernels, "_MARKERS", {})
    monkeypatch.setattr(kernels, "_READY", False)
    monkeypatch.setattr(kernels, "_STARTED", False)
    started: list[bool] = []  # processes are not started here: each would compile for half a minute
    monkeypatch.setattr(kernels, "compile_in_background", lambda: started.append(True))
    kernels.compile_all()
    [failed] = tmp_path.glob("tricklog-euchre-kernels-*.failed")
    assert "RuntimeError: no machine code for this processor" in failed.read_text()
    assert not list(tmp_path.glob("*.compiled"))
    assert kernels.ready() is False and started == []
    failed.unlink()
    assert kernels.ready() is False and started == [True]


def test_a_simulated_line_that_is_no_json_does_not_fail_the_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up's simulated games are corrupted at random, and a corrupted game may
    be a line cut short: the hooks that take records are given the others."""
    from dataclasses import replace

    from pipeline import kernels
    from pipeline.games import Simulator
    from pipeline.games.euchre.plugin import GAME

    real = GAME.simulator()

    def write(path: Path, *args: Any, **kwargs: Any) -> None:
        real.write(path, *args, **kwargs)
        with open(path, "ab") as out:
            out.write(b'{"format": "euchre/1", "game_id\n')

    broken = Simulator(write, real.presets, real.default_preset, real.demo_preset)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kernels, "installed", lambda: [replace(GAME, simulator=lambda: broken)])
    monkeypatch.setattr(kernels, "_MARKERS", {})
    kernels.compile_all()
    assert [p.suffix for p in tmp_path.glob("tricklog-euchre-kernels-*")] == [".compiled"]


def test_the_background_compile_compiles_this_copy_of_tricklog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started from a folder holding another ``pipeline`` package (a source checkout
    beside an installed tricklog: where the README's quick start runs the demo),
    ``python -m pipeline.kernels`` imported that one and compiled its kernels,
    never the running copy's: the installed fast path stayed off for good."""
    from pipeline import kernels

    decoy = tmp_path / "pipeline"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("")
    (decoy / "kernels.py").write_text(f"open({str(tmp_path / 'decoy-compiled')!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    process = kernels.compile_in_background()  # the kernels are compiled already: it finds them so
    assert process is not None and process.wait(timeout=600) == 0
    assert not (tmp_path / "decoy-compiled").exists()
