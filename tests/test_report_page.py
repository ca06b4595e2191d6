"""The page people read first: key findings with sample sizes, an inline glossary,
differences called real only by a test, small samples marked; and the findings'
comparisons on crafted figures where overlapping intervals would have misled."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
from test_report import Built, built  # noqa: F401  (the module fixture)

from pipeline.games.euchre.findings import comparisons, findings
from pipeline.report.inference import adjust
from pipeline.report.stats import wilson


def _rate(k: int, n: int) -> dict[str, Any]:
    return {"k": k, "n": n, "rate": k / n if n else None, "ci95": list(wilson(k, n))}


def _summary(left: tuple[int, int], right: tuple[int, int]) -> dict[str, Any]:
    empty = _rate(0, 0)
    return {
        "games": 10,
        "hands": left[1] + right[1],
        "euchre_rate": _rate(left[0] + right[0], left[1] + right[1]),
        "euchre_rate_by_round": {"1": empty, "2": empty},
        "euchre_rate_by_maker_position": {
            "dealer": empty,
            "left": _rate(*left),
            "partner": empty,
            "right": _rate(*right),
        },
        "alone": {"attempts": 0, "success": empty, "march": empty, "net_points_per_attempt": None},
        "dealer_advantage": {
            "edge": None,
            "edge_ci95": [None, None],
            "edge_sd": None,
            "hands": 0,
            "dealer_team_points_per_hand": None,
            "other_team_points_per_hand": None,
            "first_dealer_game_win": empty,
        },
    }


def _with_tests(e: dict[str, Any]) -> dict[str, Any]:
    e["tests"] = [c.to_json() for c in adjust(comparisons(e))]
    return e


def test_overlapping_intervals_can_still_differ() -> None:
    e = _with_tests(_summary((10, 100), (22, 100)))
    left, right = e["euchre_rate_by_maker_position"]["left"], e["euchre_rate_by_maker_position"]["right"]
    assert left["ci95"][1] > right["ci95"][0]  # the intervals overlap...
    (test,) = [t for t in e["tests"] if t["readable"]]
    assert test["significant"] and test["p_holm"] < 0.05  # ...and the test says the seats differ
    text = " ".join(findings(e)["euchre"])
    assert "left seat minus the right seat: -12.0 percentage points" in text
    assert "a real difference" in text and "Holm-adjusted p = 0.0" in text


def test_small_groups_are_not_read() -> None:
    e = _with_tests(_summary((0, 1), (3, 3)))
    assert not any(t["readable"] for t in e["tests"])
    text = " ".join(findings(e)["euchre"] + findings(e)["key"])
    assert "real difference" not in text.replace("none of the 0 differences", "")
    assert "Too few hands to read for the dealer, left, partner, right seat(s)" in text


def test_the_page_reads_first_what_matters(built: Built) -> None:  # noqa: F811
    out = built[0]
    page = (out / "report.html").read_text("utf-8")
    body = page[page.index("<body>") :]
    key = body.index('class="box key"')
    assert key < body.index("<nav>") and key < body.index('<section id="dataset">')
    box = body[key : body.index("</div>", key)]
    assert 'class="badge' in box and "distinct hands counted" in box
    for term in ("maker", "euchre(d)", "march", "lone hand", "dealer&#x27;s edge", "counted hand"):
        assert f"<dt>{term}</dt>" in page
    assert "docs/reports.md" not in page
    # Every mean shows its n; text columns are left-aligned.
    assert re.search(r"\(95% CI [^)]*\), n=[\d,]+", page) or "mean (95% CI), n" in page
    assert '<td class="text">' in page
    summary = orjson.loads((out / "summary.json").read_bytes())
    tests = summary["euchre"]["tests"]
    assert tests and all({"diff", "ci95", "p", "p_holm", "test"} <= set(t) for t in tests)


def test_lone_chart_has_no_panel_of_constants(built: Built) -> None:  # noqa: F811
    from PIL import Image

    out: Path = built[0]
    with Image.open(out / "lone_hands.png") as image:
        width = image.size[0]
    assert width < 1.2 * 110 * 7.5 + 1  # one panel, not two


def test_all_zero_tables_fold_and_words_align_left() -> None:
    from pipeline.report.render import all_zero, is_text

    assert all_zero([["stuck dealer", "0 / 0", "-", "0"], ["every other call", "0", "0.000"]])
    assert not all_zero([["stuck dealer", "1 / 4", "25.0% (4.6-69.9)"]])
    assert is_text(["dealer", "left", "-"]) and not is_text(["1,013", "16.7% (15.4-18.1)", "-"])
