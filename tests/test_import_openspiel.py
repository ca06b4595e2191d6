"""OpenSpiel euchre import, and the replay engine checked against OpenSpiel.

Random hands are played with pyspiel (seeded), written as serialized states
and as JSON Lines, read back, converted and replayed: a legal OpenSpiel hand
must replay without a violation, with OpenSpiel's trick leaders, cards,
winners and points.  Corrupted histories must raise the right codes.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pipeline.games.euchre.importers.openspiel import (
    GO_ALONE,
    PASS,
    SERIALIZED_HEADER,
    card_token,
    game_id_for,
    history_to_record,
    looks_like_openspiel,
    read_openspiel,
)
from pipeline.games.euchre.replay import GameReplay, replay_game
from pipeline.sources import SourceItem
from pipeline.validate import read_inputs, sniff_format

DEFAULT = "euchre()"
LONE = "euchre(allow_lone_defender=True,stick_the_dealer=False)"
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "openspiel" / "sample.jsonl"
FIRST_BID = 22  # dealer + 20 dealt cards + upcard


# --------------------------------------------------------------------------
# Generating hands with pyspiel


@pytest.fixture(scope="module")
def pyspiel() -> Any:
    return pytest.importorskip("pyspiel")


def _load_sample_script() -> Any:
    """bench/make_openspiel_sample.py, whose random play the tests share."""
    path = Path(__file__).parent.parent / "bench" / "make_openspiel_sample.py"
    spec = importlib.util.spec_from_file_location("make_openspiel_sample", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


random_state = _load_sample_script().random_hand


def states(pyspiel: Any, game_string: str, count: int, seed: int) -> list[Any]:
    game = pyspiel.load_game(game_string)
    rng = random.Random(seed)
    return [random_state(game, rng) for _ in range(count)]


@pytest.fixture(scope="module")
def default_states(pyspiel: Any) -> list[Any]:
    return states(pyspiel, DEFAULT, 300, seed=11)


@pytest.fixture(scope="module")
def lone_states(pyspiel: Any) -> list[Any]:
    return states(pyspiel, LONE, 200, seed=12)


def write_jsonl(path: Path, game_states: list[Any]) -> Path:
    lines = [json.dumps({"game": str(s.get_game()), "history": s.history()}) for s in game_states]
    path.write_text("\n".join(lines) + "\n")
    return path


def codes(item: SourceItem) -> list[str]:
    """Every violation of an item: the importer's, then the replay's."""
    found = [v.code for v in item.violations]
    if item.record is not None:
        found += [v.code for v in replay_game(item.record).violations]
    return found


def convert(game: str, history: list[int]) -> tuple[dict[str, Any], list[str], GameReplay]:
    record, problems = history_to_record(game, history, game_id="t")
    assert record is not None
    replay = replay_game(record)
    return record, [v.code for v in problems] + [v.code for v in replay.violations], replay


# --------------------------------------------------------------------------
# Legal hands replay clean and agree with OpenSpiel


def assert_agrees(state: Any, record: dict[str, Any], replay: GameReplay) -> None:
    """The converted hand is OpenSpiel's: deal, tricks, leaders, winners, points."""
    hand = replay.hands[0]
    returns = state.returns()
    assert hand.points == (max(int(returns[0]), 0), max(int(returns[1]), 0))
    assert record["hands"][0]["dealer"] == state.dealer()
    if hand.thrown_in:
        assert returns == [0.0, 0.0, 0.0, 0.0]
        return
    tricks = state.tricks()
    assert hand.leaders == [t.leader() for t in tricks]
    assert hand.winners == [t.winner() for t in tricks]
    played = [[card for _, card in trick] for trick in record["hands"][0]["tricks"]]
    assert played == [[card_token(c) for c in t.cards()] for t in tricks]
    assert hand.maker == state.declarer()


def test_jsonl_hands_replay_clean_and_match_pyspiel(tmp_path: Path, default_states: list[Any]) -> None:
    path = write_jsonl(tmp_path / "hands.jsonl", default_states)
    items = list(read_openspiel(str(path)))
    assert len(items) == len(default_states)
    for number, (item, state) in enumerate(zip(items, default_states, strict=True), start=1):
        assert item.line == number and item.violations == []
        assert item.record is not None
        assert item.record["game_id"] == game_id_for(str(state.get_game()), state.history())
        assert item.record["origin"] == {"format": "openspiel", "file": str(path), "line": number}
        replay = replay_game(item.record)
        assert replay.violations == [], (number, replay.violations)
        assert_agrees(state, item.record, replay)


def test_serialized_states_replay_clean(tmp_path: Path, pyspiel: Any, default_states: list[Any]) -> None:
    for k, state in enumerate(default_states[:40]):
        path = tmp_path / f"state{k}.txt"
        path.write_text(pyspiel.serialize_game_and_state(state.get_game(), state))
        assert looks_like_openspiel(path.read_bytes()[:512])
        [item] = read_openspiel(str(path))
        assert item.violations == [] and item.record is not None
        assert item.record["game_id"] == game_id_for(str(state.get_game()), state.history())
        assert item.record["source"] == "openspiel"
        replay = replay_game(item.record)
        assert replay.violations == []
        assert_agrees(state, item.record, replay)


def test_lone_defenders_replay_clean(tmp_path: Path, lone_states: list[Any]) -> None:
    """With lone defenders allowed, every hand replays clean, including those where
    maker and defender both go alone and the first active seat left of the dealer leads."""
    path = write_jsonl(tmp_path / "lone.jsonl", lone_states)
    both_alone_maker_leads = 0
    for item, state in zip(read_openspiel(str(path)), lone_states, strict=True):
        assert item.record is not None
        replay = replay_game(item.record)
        assert item.violations == [] and replay.violations == []
        assert_agrees(state, item.record, replay)
        both_alone_maker_leads += (
            state.declarer_go_alone()
            and state.lone_defender() >= 0
            and state.tricks()[0].leader() == state.declarer()
        )
    assert both_alone_maker_leads > 0


def test_sample_file_replays(tmp_path: Path) -> None:
    """The shipped sample (made by bench/make_openspiel_sample.py) needs no pyspiel."""
    items = list(read_openspiel(str(SAMPLE)))
    assert len(items) >= 30
    for item in items:
        assert item.record is not None
        assert item.violations == []
        assert replay_game(item.record).violations == [], item.line


# --------------------------------------------------------------------------
# Corrupted histories and records


def first(game_states: list[Any], wanted: Any) -> list[int]:
    return list(next(s for s in game_states if wanted(s)).history())


def played(state: Any) -> bool:
    return bool(state.tricks()) and state.num_cards_played() > 0


def test_playing_a_kitty_card_is_not_held(default_states: list[Any]) -> None:
    history = first(default_states, played)
    kitty = sorted(set(range(24)) - set(history[1:FIRST_BID]))
    history[-1] = kitty[0]  # the last card of the hand
    _, found, _ = convert(DEFAULT, history)
    assert found[0] == "not_held"  # (a renege too when the card it held follows suit)


def test_discarding_the_upcard_is_a_discard_violation(default_states: list[Any]) -> None:
    def ordered_up(s: Any) -> bool:
        return bool(s.discard() >= 0)

    history = first(default_states, ordered_up)
    at = history.index(PASS + 1 + history[FIRST_BID - 1] % 4, FIRST_BID) + 1
    history[at] = history[FIRST_BID - 1]
    _, found, _ = convert(DEFAULT, history)
    assert found[0] == "discard"


def test_naming_the_turned_down_suit(default_states: list[Any]) -> None:
    def round_two(s: Any) -> bool:
        return bool(s.num_passes() >= 4 and s.declarer() >= 0)

    history = first(default_states, round_two)
    at = FIRST_BID + 4
    while history[at] == PASS:
        at += 1
    history[at] = PASS + 1 + history[FIRST_BID - 1] % 4
    record, problems = history_to_record(DEFAULT, history, game_id="t")
    assert record is not None and problems == []
    violation = replay_game(record).violations[0]
    assert (violation.code, violation.rule) == ("bid_illegal", "turned_down_suit")


def test_stuck_dealer_passing(default_states: list[Any]) -> None:
    history = default_states[0].history()[:FIRST_BID] + [PASS] * 8
    record, found, _ = convert(DEFAULT, history)
    assert record["hands"][0]["thrown_in"] == "all_passed"
    assert found == ["bid_illegal"]


def test_all_passed_without_stick_the_dealer_is_clean(default_states: list[Any]) -> None:
    history = default_states[0].history()[:FIRST_BID] + [PASS] * 8
    record, found, replay = convert("euchre(stick_the_dealer=false)", history)
    assert found == [] and replay.hands[0].thrown_in == "all_passed"
    assert record["rules"]["stick_the_dealer"] is False


def test_a_card_dealt_twice(default_states: list[Any]) -> None:
    history = first(default_states, played)
    history[5] = history[4]
    _, found, _ = convert(DEFAULT, history)
    assert found[0] == "deck"


def test_renege_at_the_record_level(default_states: list[Any]) -> None:
    """Swap two cards of one seat so that it discards off-suit while able to follow."""
    for state in default_states:
        record, _, replay = convert(DEFAULT, state.history())
        swap = renege_swap(record, replay)
        if swap is None:
            continue
        (t1, k1), (t2, k2) = swap
        tricks = record["hands"][0]["tricks"]
        tricks[t1][k1][1], tricks[t2][k2][1] = tricks[t2][k2][1], tricks[t1][k1][1]
        violations = replay_game(record).violations
        assert violations[0].code == "renege"
        assert violations[0].path == f"hands[0].tricks[{t1}][{k1}]"
        return
    pytest.fail("no hand offered a renege swap")


def renege_swap(record: dict[str, Any], replay: GameReplay) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """A follow in a trick and a later off-suit card of the same seat, as trick/play indexes."""
    from pipeline.games.euchre.cards import EFFECTIVE, parse_card

    hand = replay.hands[0]
    if hand.trump is None or not hand.complete:
        return None
    tricks = record["hands"][0]["tricks"]

    def suit(token: str) -> int:
        card = parse_card(token)
        assert card is not None
        return EFFECTIVE[hand.trump or 0][card]

    for t1, trick in enumerate(tricks):
        led = suit(trick[0][1])
        for k1, (seat, token) in enumerate(trick[1:], start=1):
            if suit(token) != led:
                continue
            for t2 in range(t1 + 1, len(tricks)):
                for k2, (seat2, later) in enumerate(tricks[t2]):
                    if seat2 == seat and suit(later) != led:
                        return (t1, k1), (t2, k2)
    return None


def test_an_action_that_means_nothing_in_its_phase(default_states: list[Any]) -> None:
    state = next(s for s in default_states if played(s))
    history = list(state.history())
    at = len(history) - 3
    history[at] = GO_ALONE
    record, problems = history_to_record(DEFAULT, history, game_id="t")
    assert record is not None
    assert [(v.code, v.path, v.rule) for v in problems] == [("schema", f"history[{at}]", "openspiel_action")]
    assert "29" in problems[0].message and "play phase" in problems[0].message
    plays = sum(len(trick) for trick in record["hands"][0]["tricks"])
    assert plays == at - (len(history) - state.num_cards_played())  # the plays before it are kept
    # The seat at fault is the one whose card it was, in the trick being played.
    good, _ = history_to_record(DEFAULT, list(state.history()), game_id="t")
    assert good is not None
    seated = [(t, seat) for t, trick in enumerate(good["hands"][0]["tricks"]) for seat, _ in trick]
    assert (problems[0].hand, problems[0].trick, problems[0].seat) == (0, *seated[plays])
    assert replay_game(record).violations == []  # an abandoned hand, valid so far


def test_out_of_range_id_and_extra_actions(tmp_path: Path, default_states: list[Any]) -> None:
    good = default_states[1].history()
    bad_id = [*good[:FIRST_BID], 31]
    lines = [
        {"game": DEFAULT, "history": bad_id},
        {"game": DEFAULT, "history": [*good, 5]},
        {"game": DEFAULT, "history": good[:10]},
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    items = list(read_openspiel(str(path)))
    rules = [[v.rule for v in item.violations] for item in items]
    assert rules == [["openspiel_action"], ["openspiel_extra"], ["openspiel_truncated"]]
    assert all(v.file == str(path) and v.line == item.line for item in items for v in item.violations)
    assert items[0].violations[0].path == f"history[{FIRST_BID}]"


def test_malformed_lines_and_other_games(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"game": "euchre()", "history": [0\nnot json\n{"game": "bridge()", "history": []}\n[1]\n'
    )
    items = list(read_openspiel(str(path)))
    assert [c for item in items for c in codes(item)] == [
        "malformed_json",
        "malformed_json",
        "unsupported",
        "malformed_json",
    ]
    assert items[1].raw == b"not json" and items[1].record is None
    assert items[2].record is None and items[2].raw is not None


def test_claimed_returns_are_checked(tmp_path: Path, default_states: list[Any]) -> None:
    state = next(s for s in default_states if played(s))
    wrong = [-r for r in state.returns()]
    path = tmp_path / "claims.jsonl.gz"
    with gzip.open(path, "wt") as out:
        out.write(
            json.dumps({"game": DEFAULT, "history": state.history(), "returns": state.returns()}) + "\n"
        )
        out.write(
            json.dumps({"game": DEFAULT, "history": state.history(), "returns": wrong, "game_id": "x"}) + "\n"
        )
    right, bad = read_openspiel(str(path))
    assert codes(right) == [] and codes(bad) == ["points"]
    assert right.record is not None and right.record["game_id"] == game_id_for(DEFAULT, state.history())
    assert bad.record is not None and bad.record["game_id"] == "x"


def test_looks_like_openspiel() -> None:
    assert looks_like_openspiel(b'{"game":"euchre(stick_the_dealer=False)","history":[1]}\n')
    assert looks_like_openspiel(b"[Meta]\nVersion: 1\n\n[Game]\neuchre()\n[State]\n0\n")
    assert looks_like_openspiel(b"[Meta]\nVersion: 1\n\n[Game]\nbridge()\n[State]\n0\n")  # reported, below
    assert not looks_like_openspiel(b'{"format": "euchre/1", "hands": []}\n')
    assert not looks_like_openspiel(b"")


def test_a_serialized_state_of_another_game_is_sniffed_and_reported_unsupported(tmp_path: Path) -> None:
    """The serialization header says OpenSpiel whatever the game: without --from a
    hearts state was read as JSON Lines (45 malformed_json), now it is one
    unsupported openspiel_game, as with --from openspiel."""
    path = tmp_path / "hearts.txt"
    path.write_bytes(SERIALIZED_HEADER + b"\n[Meta]\nVersion: 1\n\n[Game]\nhearts()\n[State]\n1\n4\n13\n")
    assert sniff_format(str(path), path.read_bytes()) == "openspiel"
    (item,) = read_inputs([str(path)])
    assert item.record is None
    assert [(v.code, v.rule) for v in item.violations] == [("unsupported", "openspiel_game")]


def test_load_takes_openspiel_histories_into_the_warehouse(tmp_path: Path) -> None:
    """Straight from the OpenSpiel sample to warehouse rows: one game and one hand per history."""
    import duckdb

    from pipeline.warehouse.api import load

    lines = sum(1 for line in SAMPLE.read_bytes().splitlines() if line.strip())
    summary = load([str(SAMPLE)], tmp_path / "w.duckdb")
    assert (summary.lines, summary.games_loaded, summary.quarantined, summary.violations) == (
        lines,
        lines,
        0,
        0,
    )
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as con:
        (games, sources, hands, plays) = con.execute(
            "select count(*), count(distinct source), (select count(*) from euchre.hands), (select count(*) from euchre.plays)"
            " from games"
        ).fetchall()[0]
    assert (games, sources, hands) == (lines, 1, lines)
    assert plays > 0


def test_histories_loaded_again_in_another_order_or_twice_are_already_present(tmp_path: Path) -> None:
    """Where a history was read (its file, its line) is provenance: the sample's
    lines reversed, and a history given twice, were each quarantined as a game
    'with different content'."""
    from pipeline.warehouse.api import load

    db = tmp_path / "w.duckdb"
    lines = [line for line in SAMPLE.read_bytes().splitlines() if line.strip()]
    first = load([str(SAMPLE)], db)
    assert first.games_loaded == len(lines)
    reversed_copy = tmp_path / "reversed.jsonl"
    reversed_copy.write_bytes(b"\n".join([*reversed(lines), lines[0]]) + b"\n")
    again = load([str(reversed_copy)], db)
    assert (again.lines, again.games_loaded, again.already_present, again.quarantined) == (
        len(lines) + 1,
        0,
        len(lines) + 1,
        0,
    )
