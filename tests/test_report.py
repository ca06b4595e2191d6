"""tricklog report: every summary.json figure against an independent computation.

The warehouse is built with the real ``tricklog load`` and the report written
by the real ``tricklog report`` (as subprocesses); the expected figures come
from ``report_oracle`` (plain Python over ``replay_game``, no SQL).
"""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from cli import run
from hypothesis import given
from hypothesis import strategies as st
from report_oracle import expected_extras, expected_summary
from typer.testing import CliRunner, Result

from pipeline.cli import app
from pipeline.report.markdown_text import CONTROLS, md_plain, md_text
from pipeline.report.stats import mean_interval, wilson

FIXTURES = Path(__file__).parent / "fixtures" / "spec-examples"
FILES = ("euchre-cards4net.jsonl", "euchre-pagat.jsonl", "euchre-french.jsonl", "euchre-corrupt.jsonl")


def tricklog(*args: str) -> Result:
    """The real ``tricklog`` command, run in-process (imports paid once per test run)."""
    return CliRunner().invoke(app, list(args))


def fixture_records() -> list[dict[str, Any]]:
    """The fixture games, given two sources and some new player names to filter on."""
    records = []
    for name in FILES:
        for i, line in enumerate((FIXTURES / name).read_bytes().splitlines()):
            record = orjson.loads(line)
            record["source"] = "club" if name.endswith("cards4net.jsonl") else "online"
            if i % 2:
                record["players"] = ["ana", "ben", "cleo", "dev"]
            records.append(record)
    return records


def load(tmp: Path, records: list[dict[str, Any]]) -> Path:
    """Load ``records`` into a fresh warehouse with ``tricklog load``."""
    tmp.mkdir(parents=True, exist_ok=True)
    games = tmp / "games.jsonl"
    games.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    db = tmp / "w.duckdb"
    loaded = tricklog("load", str(games), "--db", str(db))
    assert loaded.exit_code in (0, 1), loaded.stderr
    return db


def report(db: Path, out: Path, *options: str) -> dict[str, Any]:
    """Run ``tricklog report``; returns summary.json."""
    made = tricklog("report", "--db", str(db), "--out", str(out), *options)
    assert made.exit_code == 0, made.stderr
    assert made.stdout.strip() == str(out / "report.html")
    summary: dict[str, Any] = orjson.loads((out / "summary.json").read_bytes())
    return summary


def build(tmp: Path, records: list[dict[str, Any]], *options: str) -> dict[str, Any]:
    return report(load(tmp, records), tmp / "report", *options)


def assert_same(expected: object, got: object, where: str = "") -> None:
    """Equal, with floats to 1e-9; every expected key must be present."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), where
        for key, value in expected.items():
            assert key in got, f"{where}.{key} missing"
            assert_same(value, got[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (a, b) in enumerate(zip(expected, got, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(expected, float) or isinstance(got, float):
        assert isinstance(expected, int | float) and isinstance(got, int | float), (where, expected, got)
        assert math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-12), (where, expected, got)
    else:
        assert expected == got, (where, expected, got)


Built = tuple[Path, dict[str, Any], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The fixture games loaded and reported on: (report folder, summary, records)."""
    tmp = tmp_path_factory.mktemp("report")
    records = fixture_records()
    return tmp / "report", build(tmp, records), records


# --------------------------------------------------------------------------
# Intervals


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (1, 4, 0.0456, 0.6994)],
)
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert got[0] is not None and got[1] is not None
    assert (round(got[0], 4), round(got[1], 4)) == (lo, hi)


def test_wilson_empty_and_symmetric() -> None:
    assert wilson(0, 0) == (None, None)
    lo, hi = wilson(3, 17)
    mirror = wilson(14, 17)
    assert lo is not None and hi is not None and mirror[0] is not None and mirror[1] is not None
    assert math.isclose(lo, 1 - mirror[1]) and math.isclose(hi, 1 - mirror[0])
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_mean_interval_uses_sample_sd_and_the_normal_quantile() -> None:
    m = mean_interval([0.0, 2.0, 4.0, 6.0])
    assert m.sd == pytest.approx(math.sqrt(20 / 3))
    # scipy.stats.norm.ppf(0.975) = 1.959963984540054
    assert m.ci95[0] == pytest.approx(3 - 1.959963984540054 * math.sqrt(20 / 3) / 2)
    assert mean_interval([1.0]).ci95 == [None, None]


# --------------------------------------------------------------------------
# Figures against the independent computation


def test_contract_figures_match_plain_python(
    built: Built,
) -> None:
    _, summary, records = built
    expected = expected_summary(records)
    assert expected["hands"] > 100
    assert_same(expected, summary["euchre"], "euchre")


def test_extra_figures_match_plain_python(built: Built) -> None:
    _, summary, records = built
    extra = expected_extras(records)
    euchre = summary["euchre"]
    for preset, rate in extra["by_preset"].items():
        assert_same(rate, euchre["by_preset"][preset]["euchre_rate"], f"by_preset.{preset}")
    assert_same(extra["by_trump"], euchre["by_trump"], "by_trump")
    assert_same(extra["by_trumps_held"], euchre["by_trumps_held"], "by_trumps_held")
    assert_same(extra["stuck_dealer"], euchre["stuck_dealer"]["stuck dealer"], "stuck_dealer")
    assert_same(extra["per_player"], euchre["per_player"], "per_player")
    assert set(euchre["per_player"]) == set(extra["per_player"])


@pytest.mark.parametrize(("option", "value"), [("--source", "club"), ("--player", "ana")])
def test_filters_match_plain_python(built: Built, tmp_path: Path, option: str, value: str) -> None:
    records = built[2]
    summary = report(built[0].parent / "w.duckdb", tmp_path, option, value)
    scope = {"sources": [value]} if option == "--source" else {"players": [value]}
    expected = expected_summary(records, **scope)
    assert 0 < expected["hands"] < expected_summary(records)["hands"]
    assert_same(expected, summary["euchre"], "euchre")
    assert_same(expected_extras(records, **scope)["per_player"], summary["euchre"]["per_player"])


def test_summary_contract_shape(built: Built) -> None:
    euchre = built[1]["euchre"]
    assert set(euchre["euchre_rate_by_round"]) == {"1", "2"}
    assert set(euchre["euchre_rate_by_maker_position"]) == {"dealer", "left", "partner", "right"}
    for rate in [euchre["euchre_rate"], euchre["alone"]["success"], euchre["alone"]["march"]]:
        assert set(rate) == {"k", "n", "rate", "ci95"} and len(rate["ci95"]) == 2
    assert set(euchre["dealer_advantage"]) >= {
        "dealer_team_points_per_hand",
        "other_team_points_per_hand",
        "edge",
        "edge_ci95",
        "first_dealer_game_win",
    }


# --------------------------------------------------------------------------
# Exclusions: faulty, abandoned and thrown-in hands are not counted


def _base_game() -> dict[str, Any]:
    line = (FIXTURES / "euchre-pagat.jsonl").read_bytes().splitlines()[0]
    game: dict[str, Any] = orjson.loads(line)
    game.pop("final_score", None)
    return game


def _with_violation(game: dict[str, Any]) -> dict[str, Any]:
    """The first played hand claims wrong points: a 'points' violation on that hand only."""
    game = orjson.loads(orjson.dumps(game))
    game["game_id"] += "-violation"
    hand = next(h for h in game["hands"] if "thrown_in" not in h)
    hand.setdefault("claimed", {})["points"] = [7, 7]
    hand["claimed"].pop("score", None)
    return game


def _abandoned(game: dict[str, Any]) -> dict[str, Any]:
    """The last hand stops after three tricks."""
    game = orjson.loads(orjson.dumps(game))
    game["game_id"] += "-abandoned"
    last = game["hands"][-1]
    last["tricks"] = last["tricks"][:3]
    last.pop("claimed", None)
    return game


def _thrown_in(game: dict[str, Any]) -> dict[str, Any]:
    """A hand where all eight calls were passes (pagat: no stick the dealer) comes first."""
    game = orjson.loads(orjson.dumps(game))
    game["game_id"] += "-thrown-in"
    first = game["hands"][0]
    dealer = (first["dealer"] - 1) % 4
    bids = [{"seat": (dealer + 1 + i) % 4, "call": "pass"} for i in range(8)]
    thrown = {"dealer": dealer, "upcard": first["upcard"], "bids": bids, "thrown_in": "all_passed"}
    game["hands"].insert(0, thrown)
    for hand in game["hands"]:
        hand.get("claimed", {}).pop("score", None)
    return game


def test_faulty_abandoned_and_thrown_in_hands_are_excluded(tmp_path: Path) -> None:
    base = _base_game()
    n = expected_summary([base])["hands"]
    assert n == sum("thrown_in" not in h for h in base["hands"]) and n > 3
    variants = [_with_violation(base), _abandoned(base), _thrown_in(base)]
    for i, game in enumerate([base, *variants]):
        game["source"] = f"variant-{i}"
    db = load(tmp_path / "all", [base, *variants])
    # Each variant on its own: the violation and abandoned games each lose one hand;
    # the thrown-in game loses only its extra hand.
    for i, (game, hands) in enumerate(zip([base, *variants], [n, n - 1, n - 1, n], strict=True)):
        alone = report(db, tmp_path / f"r{i}", "--source", f"variant-{i}")
        assert alone["euchre"]["hands"] == hands, game["game_id"]
        assert_same(expected_summary([game]), alone["euchre"])
    # Together they are copies of one game: each distinct hand counts once.
    everything = report(db, tmp_path / "report")
    euchre = everything["euchre"]
    assert euchre["hands"] == n
    assert_same(expected_summary([base, *variants]), euchre)
    data = everything["dataset"]
    thrown_before = 4 * (len(base["hands"]) - n)
    assert (data["hands_thrown_in"], data["hands_abandoned"], data["hands_with_violations"]) == (
        thrown_before + 1,
        1,
        1,
    )
    assert data["hands_counted"] == euchre["hands"]
    assert everything["audit"]["violations_by_code"] == {"points": 1}
    # Only the base game has counted hands: the others are copies of it.
    assert (euchre["games"], euchre["complete_games"]) == (1, 1)
    # The abandoned game's last hand, cut after three tricks, is a play of its own: not a copy.
    assert data["games_copies"] == 2


def test_empty_scope_gives_null_rates(built: Built, tmp_path: Path) -> None:
    summary = report(built[0].parent / "w.duckdb", tmp_path, "--player", "nobody")
    euchre = summary["euchre"]
    assert (euchre["games"], euchre["hands"]) == (0, 0)
    assert euchre["euchre_rate"] == {"k": 0, "n": 0, "rate": None, "ci95": [None, None]}
    assert euchre["dealer_advantage"]["edge_ci95"] == [None, None]


# --------------------------------------------------------------------------
# The page and the files


def test_html_is_self_contained_and_charts_exist(
    built: Built,
) -> None:
    out = built[0]
    page = (out / "report.html").read_text("utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page)
    assert "http://" not in page and "https://" not in page
    images = re.findall(r'<img src="([^"]+)"[^>]*data-file="([^"]+)"', page)
    assert len(images) >= 3 and len(images) == page.count("<img")
    for uri, name in images:
        assert uri.startswith("data:image/png;base64,")
        assert base64.b64decode(uri.split(",", 1)[1]) == (out / name).read_bytes()
    for name in ("euchre_rate.png", "lone_hands.png", "dealer_points.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for section in ("The data set", "Audit", "Study 1", "Study 2", "Study 3", "Per player"):
        assert section in page


def test_markdown_and_one_csv_per_table(built: Built) -> None:
    from pipeline.report.run import REPORTS

    out = built[0]
    markdown = (out / "report.md").read_text("utf-8")
    for name in REPORTS:
        assert (out / f"{name}.csv").stat().st_size > 0
        assert f"`{name}.sql`" in markdown


def test_names_from_the_logs_are_text_in_the_page_and_the_markdown(tmp_path: Path) -> None:
    """Players named like markup are shown as written: no tag of the page, and no
    HTML, link, bold or extra cell in report.md (which a site may render)."""
    names = ["<img src=x onerror=alert(1)>", "[site](http://evil.example)", "**Ann**", "a|b"]
    records = fixture_records()
    for record in records[::2]:
        record["players"] = names
    build(tmp_path, records)
    page = (tmp_path / "report" / "report.html").read_text("utf-8")
    markdown = (tmp_path / "report" / "report.md").read_text("utf-8")
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert not re.search(r"(?<!\\)<img|(?<!\\)\]\(http", markdown)
    for shown in (
        r"\<img src=x onerror=alert(1)\>",
        r"\[site\](http://evil.example)",
        r"\*\*Ann\*\*",
        r"a\|b",
    ):
        assert shown in markdown, shown
    links = re.findall(r"\[hand \d+ of [^]]+\]\(viewer\.html#([^)]+)\)", markdown)
    assert links and all("%5C" not in link for link in links)  # the game ids' own, not escaped


@given(st.text())
def test_markdown_text_shows_any_text_and_gives_it_back(text: str) -> None:
    """Every character Markdown could read as markup is escaped (a backslash an odd
    number of backslashes before it), every control character or line break is a
    numeric reference (an unescaped ``&``), and the escaping undone is the text."""
    shown = md_text(text)
    assert md_plain(shown) == text
    assert not any(c in shown for c in "\n\r\x00\x1b\u2028")
    for active in re.finditer(r"[`*\[\]<>&|~]", shown):
        backslashes = len(shown[: active.start()]) - len(shown[: active.start()].rstrip("\\"))
        if backslashes % 2 == 0:  # not escaped: a control character's reference
            reference = re.match(r"&#(\d+);", shown[active.start() :])
            assert reference is not None and int(reference.group(1)) in CONTROLS, (text, shown)


def test_missing_warehouse_is_a_usage_error(tmp_path: Path) -> None:
    """Through the console script: exit code 2 and one line on stderr."""
    proc = run("report", "--db", str(tmp_path / "none.duckdb"), "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "no such database" in proc.stderr
