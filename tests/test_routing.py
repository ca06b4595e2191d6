"""Routing a spread load's lines (pipeline.warehouse.routing): the client's
column-wise :class:`Router` decides every line as the rules say, one line after
another in input order, would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.warehouse.known import KeyRuns
from pipeline.warehouse.load import LoadSummary
from pipeline.warehouse.routing import Facts, LineFact, Router, Routing, route

IDS = ["g0", "g1", "g2", "g\u00e9", "g\ud800"]  # a lone surrogate too, as records may hold
DIGESTS = ["aa" * 32, "ab" * 32, "aa" * 16 + "bb" * 16]  # the last shares its first half with the first


def routed_line_by_line(splits: list[list[LineFact]], summary: LoadSummary) -> list[Routing]:
    """The rules, line after line: the first loadable line of an id is loaded; a
    later line of that id is already present when its content hash's first half
    is the same, else quarantined as a duplicate; a line not loadable is
    quarantined.  A line to quarantine whose number and content hash's first half
    were quarantined before is already present instead."""
    loaded: dict[str, str] = {}
    quarantined: set[tuple[int, str]] = set()
    out = []

    def first_quarantine(fact: LineFact) -> bool:
        key = (fact.line, (fact.digest or "")[:32])
        if key in quarantined:
            summary.already_present += 1
            return False
        quarantined.add(key)
        summary.quarantined += 1
        return True

    for facts in splits:
        routing = Routing()
        for fact in facts:
            summary.lines += 1
            game_id, digest = fact.game_id, fact.digest
            if fact.is_game and game_id is not None and game_id in loaded:
                assert digest is not None
                routing.dropped.add(fact.line)
                if loaded[game_id][:32] == digest[:32]:
                    summary.already_present += 1
                elif first_quarantine(fact):
                    message = f"game_id {game_id!r} is already loaded with different content; this line is quarantined"
                    routing.duplicates[fact.line] = (game_id, message)
                    summary.violations += 1
                continue
            if fact.loadable:
                assert game_id is not None and digest is not None
                loaded[game_id] = digest
                summary.games_loaded += 1
                summary.violations += fact.violations
            elif first_quarantine(fact):
                summary.violations += fact.violations
            else:
                routing.dropped.add(fact.line)
        out.append(routing)
    return out


@st.composite
def a_fact(draw: st.DrawFn) -> tuple[bool, str | None, str | None, bool, int]:
    kind = draw(st.sampled_from(["no game", "no id", "game"]))
    violations = draw(st.integers(0, 3))
    if kind == "no game":  # its bytes' hash, or none
        return False, None, draw(st.sampled_from([*DIGESTS, None])), False, max(violations, 1)
    digest = draw(st.sampled_from(DIGESTS))
    if kind == "no id":
        return True, None, digest, False, violations
    return True, draw(st.sampled_from(IDS)), digest, draw(st.booleans()), violations


def numbered(
    splits: list[list[tuple[bool, str | None, str | None, bool, int]]], starts: list[int]
) -> list[list[LineFact]]:
    """Each split's lines numbered on from its start: splits of one file follow each
    other; a split starting over is another file, or the same one again."""
    out = []
    for split, start in zip(splits, starts, strict=False):
        out.append([LineFact(start + i, *fact) for i, fact in enumerate(split)])
    return out


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.lists(a_fact(), max_size=12), max_size=5),
    st.lists(st.integers(1, 6), min_size=5, max_size=5),
    st.booleans(),
)
def test_the_router_decides_every_line_as_the_rules_line_by_line_do(
    drawn: list[list[tuple[bool, str | None, str | None, bool, int]]], starts: list[int], spilled: bool
) -> None:
    splits = numbered(drawn, starts)
    expected_summary, summary = LoadSummary(1, "rules"), LoadSummary(1, "rules")
    expected = routed_line_by_line(splits, expected_summary)
    router = Router(summary)
    if spilled:  # the keys go to disk past the first two
        router.loaded = KeyRuns(2, max_rows=2)
        router.quarantined = KeyRuns(0, max_rows=2)
    got = [router.route(Facts.of(facts)) for facts in splits]
    assert got == expected
    assert summary == expected_summary
    assert summary.accounted


def test_route_gives_a_routing_per_split_in_order() -> None:
    a, b = DIGESTS[0], DIGESTS[1]
    splits = [
        [LineFact(1, True, "x", a, True, 0), LineFact(2, True, "x", a, False, 2)],
        [
            LineFact(3, True, "x", b, True, 0),
            LineFact(4, True, "y", b, False, 1),
            LineFact(5, True, "y", b, True, 0),
        ],
    ]
    summary = LoadSummary(1, "out")
    first, second = route([Facts.of(f) for f in splits], summary)
    assert first.dropped == {2} and not first.duplicates
    assert second.dropped == {3} and list(second.duplicates) == [3]
    assert second.duplicates[3][0] == "x" and "different content" in second.duplicates[3][1]
    # line 4 (y, not loadable) is quarantined on its own account; line 5 loads y
    assert (summary.games_loaded, summary.already_present, summary.quarantined) == (2, 1, 2)
    assert summary.violations == 1 + 1  # line 4's own, and line 3's duplicate


def test_facts_are_columns_of_the_lines_and_compare_by_content() -> None:
    lines = [LineFact(7, True, "g\u00e9", DIGESTS[0], True, 0), LineFact(8, False, None, None, False, 1)]
    facts = Facts.of(lines)
    assert len(facts) == 2
    assert facts.lines.tolist() == [7, 8] and facts.named.tolist() == [True, False]
    assert facts.game_ids == ["g\u00e9", None] and facts.violations.tolist() == [0, 1]
    assert facts == Facts.of(lines) and facts != Facts.of(lines[:1])
    assert facts.ids[1].tolist() == [0, 0] and facts.ids[0].tolist() != [0, 0]


def test_a_loadable_line_without_an_id_is_refused() -> None:
    with pytest.raises(ValueError, match="loadable"):
        Facts.of([LineFact(1, True, None, DIGESTS[0], True, 0)])
