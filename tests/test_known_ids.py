"""The load's store of known game ids answers as a dict of every id would."""

from __future__ import annotations

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.warehouse.known import KeyRuns, KnownIds, key128

ids = st.sampled_from([f"g{i}" for i in range(40)] + ["", "é", "a" * 300])
digests = st.sampled_from(["aa" * 32, "bb" * 32, "aa" * 16 + "cc" * 16])
steps = st.lists(
    st.one_of(
        st.tuples(st.just("add"), ids, digests),
        st.tuples(st.just("forget"), ids, st.just("")),
        st.tuples(st.just("commit"), st.just(""), st.just("")),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(steps, st.lists(ids, min_size=1, max_size=40))
def test_known_ids_answer_as_a_dict_of_every_id(script: list[tuple[str, str, str]], asked: list[str]) -> None:
    known, model, uncommitted = KnownIds(), {}, {}
    for op, game_id, digest in script:
        if op == "add" and game_id not in model and game_id not in uncommitted:
            known.add(game_id, digest)
            uncommitted[game_id] = digest
        elif op == "forget":
            known.forget(game_id)
            uncommitted.pop(game_id, None)
        elif op == "commit":
            known.committed()
            model.update(uncommitted)
            uncommitted = {}
    everything = {**model, **uncommitted}
    known.ask(asked)
    assert len(known) == len(everything)
    for game_id in asked:
        assert (game_id in known) == (game_id in everything)
        if game_id in everything:
            for digest in ("aa" * 32, "bb" * 32, "aa" * 16 + "cc" * 16):
                # 128 bits of the content hash: the last two differ only past them
                same = everything[game_id][:32] == digest[:32]
                assert known.same_content(game_id, digest) == same
    worker_view = known.ids()
    for game_id in asked:
        assert (game_id in worker_view) == (game_id in everything)


def test_keys_sharing_their_high_half_are_told_apart() -> None:
    runs = KeyRuns(2)
    high = b"\x01" * 8
    pairs = [(high + bytes([i]) * 8, [i, i]) for i in (5, 1, 9, 3)]
    runs.add([k for k, _ in pairs[:2]], [p for _, p in pairs[:2]])
    runs.add([k for k, _ in pairs[2:]], [p for _, p in pairs[2:]])
    found, payloads = runs.lookup([high + bytes([i]) * 8 for i in (1, 3, 5, 9, 7)])
    assert found.tolist() == [True, True, True, True, False]
    assert payloads.tolist() == [[1, 1], [3, 3], [5, 5], [9, 9], [0, 0]]


def test_many_batches_keep_few_runs_and_find_every_id() -> None:
    known = KnownIds()
    for batch in range(200):
        for i in range(50):
            known.add(f"game-{batch}-{i}", f"{batch:02x}" * 32)
        known.committed()
    assert len(known.stored.runs) <= 10
    asked = [f"game-{b}-{i}" for b in range(0, 200, 7) for i in (0, 49)] + ["game-200-0"]
    known.ask(asked)
    assert [known.same_content(g, f"{int(g.split('-')[1]):02x}" * 32) for g in asked[:-1]] == [True] * (
        len(asked) - 1
    )
    assert "game-200-0" not in known


def test_a_warehouse_s_games_are_read_in_batches() -> None:
    con = duckdb.connect()
    con.execute("create table games (game_id varchar primary key, content_hash varchar)")
    con.execute(
        "insert into games select 'g' || i, repeat(printf('%02x', i % 256), 32) from range(250000) t(i)"
    )
    known = KnownIds.in_warehouse(con)
    assert len(known) == 250_000
    known.ask(["g0", "g249999", "g250000"])
    assert known.same_content("g249999", f"{249999 % 256:02x}" * 32)
    assert "g250000" not in known
    assert key128("g0") != key128("g00")
