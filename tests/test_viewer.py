"""The hand viewer (viewer.html): what it holds, and a real browser opening the
audit's link to a violation's hand.

The browser test runs headless Chromium's ``--dump-dom`` (the DOM once the
page's script has run) and skips, saying why, where no Chromium is installed
(``.ci/run`` installs it where apt-get can).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from pipeline.analyze import analyze
from pipeline.games.euchre.simulate import simulate_games
from pipeline.report.render import write_report
from pipeline.report.viewer import cell_html, viewer_page
from pipeline.warehouse.api import load

FIXTURES = Path(__file__).parent / "fixtures" / "spec-examples"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse of clean simulated games and the spec's corrupt examples,
    analysed, and its report folder."""
    folder = tmp_path_factory.mktemp("viewer")
    games = folder / "games.jsonl"
    clean = b"\n".join(orjson.dumps(r) for r in simulate_games(6, seed=4, preset="pagat"))
    games.write_bytes(clean + b"\n" + (FIXTURES / "euchre-corrupt.jsonl").read_bytes())
    db = folder / "w.duckdb"
    load([str(games)], db)
    analyze(db)
    write_report(db, folder / "report")
    return folder / "report"


def embedded(page: Path) -> list[dict[str, Any]]:
    text = page.read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" id="hands">(.*?)</script>', text, re.S)
    assert data is not None
    hands: list[dict[str, Any]] = json.loads(data.group(1))
    return hands


def audit_links(report: Path) -> list[str]:
    return [
        unescape(h)
        for h in re.findall(r'class="hand-link" href="([^"]+)"', (report / "report.html").read_text())
    ]


def violations(report: Path) -> list[dict[str, Any]]:
    db = report.parent / "w.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "select game_id, hand, trick, seat, message from violations where hand is not null"
        )
        return [
            dict(zip(("game_id", "hand", "trick", "seat", "message"), r, strict=True))
            for r in rows.fetchall()
        ]


def test_every_hand_a_violation_names_is_in_the_viewer(report: Path) -> None:
    hands = {(h["game_id"], h["hand"]): h for h in embedded(report / "viewer.html")}
    for v in violations(report):
        hand = hands[(v["game_id"], v["hand"])]
        assert v["message"] in [f["message"] for f in hand["faults"]]


def test_a_hand_holds_the_deal_bidding_tricks_and_par(report: Path) -> None:
    studied = [h for h in embedded(report / "viewer.html") if not h["faults"]]
    assert studied, "the hands where the play gave most tricks away are in the viewer too"
    hand = studied[0]
    assert [len(cards) for cards in hand["hands"]] == [5, 5, 5, 5]
    assert hand["bids"] and len(hand["tricks"]) == 5
    assert hand["par"]["line"] and any(p[2] > 0 for p in hand["par"]["plays"])
    assert all(re.fullmatch(r"(10|[2-9JQKA])[♣♦♥♠]|Jkr", c) for cards in hand["hands"] for c in cards)


def test_the_audit_links_each_violation_to_its_hand(report: Path) -> None:
    links = audit_links(report)
    anchors = {h["id"] for h in embedded(report / "viewer.html")}
    assert links and all(link.split("#", 1)[1] in anchors for link in links)


def test_the_embedded_json_cannot_end_the_script() -> None:
    page = viewer_page([{"id": "g/0", "game_id": "g", "hand": 0, "title": "</script><b>x", "faults": []}])
    assert "</script><b>" not in page
    assert '"title":"\\u003c/script>\\u003cb>x"' in page


def test_a_hand_cell_is_a_link_and_other_cells_are_text() -> None:
    assert (
        cell_html("hand:g 1/x/3") == '<a class="hand-link" href="viewer.html#g%201%2Fx/3">hand 3 of g 1/x</a>'
    )
    assert cell_html("<b>") == "&lt;b&gt;"


def chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def dump_dom(url: str, profile: Path) -> str:
    browser = chromium()
    assert browser is not None
    proc = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.skipif(chromium() is None, reason="no Chromium installed (apt-get install chromium)")
def test_a_browser_opens_a_violations_link_on_the_hand_and_its_faulty_card(
    report: Path, tmp_path: Path
) -> None:
    by_anchor = {h["id"]: h for h in embedded(report / "viewer.html")}

    def faulty_play(hand: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
        """A violation of a card played in the hand, and that card."""
        for f in hand["faults"]:
            tricks = hand.get("tricks") or []
            if f["trick"] is not None and f["trick"] < len(tricks):
                for p in tricks[f["trick"]]["plays"]:
                    if p["seat"] == f["seat"]:
                        return f, p["card"]
        return None

    # the first such violation's link, as the audit table gives it
    link = next(link for link in audit_links(report) if faulty_play(by_anchor[link.split("#", 1)[1]]))
    hand = by_anchor[link.split("#", 1)[1]]
    found = faulty_play(hand)
    assert found is not None
    fault, card = found
    dom = dump_dom(
        (report / link.split("#")[0]).resolve().as_uri() + "#" + link.split("#", 1)[1], tmp_path / "profile"
    )
    title = re.search(r'<h1 id="hand-title">([^<]*)</h1>', dom)
    assert title is not None and unescape(title.group(1)) == hand["title"]
    faulty = re.findall(r'<span class="card [a-z]+ fault[^"]*" data-card="([^"]+)" title="([^"]*)"', dom)
    assert (card, True) in [(unescape(c), fault["message"] in unescape(t)) for c, t in faulty]
    messages = [unescape(m) for m in re.findall(r"<p class=\"fault-message[^\"]*\"[^>]*>([^<]*)</p>", dom)]
    assert any(fault["message"] in m for m in messages)


def test_tarot_hands_show_the_chien_and_the_ecart(tmp_path: Path) -> None:
    from pipeline.games.tarot.simulate import simulate_games as tarot_games

    games = tmp_path / "tarot.jsonl"
    records = list(tarot_games(4, seed=3))
    records[0]["hands"][0]["ecart"][0] = records[0]["hands"][0]["ecart"][1]  # a card discarded twice
    games.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    db = tmp_path / "t.duckdb"
    load([str(games)], db)
    write_report(db, tmp_path / "report")
    hands = [h for h in embedded(tmp_path / "report" / "viewer.html") if h["game"] == "tarot"]
    assert hands and all(h["faults"] for h in hands)
    played = [h for h in hands if h.get("tricks")]
    assert played
    for hand in played:
        assert any(g["label"] == "Écart" for g in hand["extra"])
        assert {g["label"] for g in hand["extra"]} <= {"Chien", "Écart"}
        assert sum(len(t["plays"]) for t in hand["tricks"]) == sum(len(c) for c in hand["hands"])
