"""The hand viewer (viewer.html): what it holds, and a real browser opening the
audit's link to a violation's hand.

The browser test runs headless Chromium's ``--dump-dom`` (the DOM once the
page's script has run) and skips, saying why, where no Chromium is installed
(``.ci/run`` installs it where apt-get can).
"""

from __future__ import annotations

import json
import re
import subprocess
from html import unescape
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from browser import Browser, chromium

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


def faulty_play(hand: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """A violation of a card played in the hand, and that card."""
    for f in hand["faults"]:
        tricks = hand.get("tricks") or []
        if f["trick"] is not None and f["trick"] < len(tricks):
            for p in tricks[f["trick"]]["plays"]:
                if p["seat"] == f["seat"]:
                    return f, p["card"]
    return None


def fault_link(report: Path) -> tuple[str, dict[str, Any]]:
    """The first link of the audit to a hand with a faulty card played, and that hand."""
    by_anchor = {h["id"]: h for h in embedded(report / "viewer.html")}
    link = next(link for link in audit_links(report) if faulty_play(by_anchor[link.split("#", 1)[1]]))
    return (report / link.split("#")[0]).resolve().as_uri() + "#" + link.split("#", 1)[1], by_anchor[
        link.split("#", 1)[1]
    ]


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


NO_BROWSER = pytest.mark.skipif(chromium() is None, reason="no Chromium installed (apt-get install chromium)")


@NO_BROWSER
def test_a_browser_opens_a_violations_link_on_the_hand_and_its_faulty_card(
    report: Path, tmp_path: Path
) -> None:
    url, hand = fault_link(report)
    found = faulty_play(hand)
    assert found is not None
    fault, card = found
    dom = dump_dom(url, tmp_path / "profile")
    title = re.search(r'<h1 id="hand-title">([^<]*)</h1>', dom)
    assert title is not None and unescape(title.group(1)) == hand["title"]
    faulty = re.findall(r'<span class="card [a-z]+ fault[^"]*" data-card="([^"]+)" title="([^"]*)"', dom)
    assert (card, True) in [(unescape(c), fault["message"] in unescape(t)) for c, t in faulty]
    messages = [unescape(m) for m in re.findall(r"<p class=\"fault-message[^\"]*\"[^>]*>([^<]*)</p>", dom)]
    assert any(fault["message"] in m for m in messages)


#: What the page shows now: the hand, the card reached, its trick, the faulty cards in
#: sight with their titles, the violations listed, and the control with the focus.
SHOWN = """JSON.stringify({
  title: document.getElementById("hand-title").textContent,
  hash: decodeURIComponent(location.hash.slice(1)),
  step: Number(document.getElementById("step").dataset.step),
  trick: Number(document.getElementById("step").dataset.trick),
  status: document.getElementById("step").textContent,
  current_row: (document.querySelector('#tricks tr[aria-current="step"]') || {dataset: {}}).dataset.trick,
  faulty: Array.from(document.querySelectorAll(".card.fault"))
    .filter(function (c) { return c.style.visibility !== "hidden"; })
    .map(function (c) { return [c.dataset.card, c.title]; }),
  messages: Array.from(document.querySelectorAll(".fault-message")).map(function (m) { return m.textContent; }),
  focus: document.activeElement.id,
  focus_label: document.activeElement.getAttribute("aria-label"),
  focus_outline: getComputedStyle(document.activeElement).outlineStyle
})"""


def shown(browser: Browser) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(browser.eval(SHOWN))
    return state


def trick_ends(hand: dict[str, Any]) -> list[int]:
    """The play count at the end of each trick."""
    ends, total = [], 0
    for trick in hand["tricks"]:
        total += len(trick["plays"])
        ends.append(total)
    return ends


def check_keyboard(browser: Browser, url: str, hand: dict[str, Any], hands: list[dict[str, Any]]) -> None:
    """Open a violation's link, find the hand, its faulty card and message, then step
    through it with the keys and check the trick shown changes as it should."""
    found = faulty_play(hand)
    assert found is not None
    fault, card = found
    browser.open(url)
    state = shown(browser)
    assert (state["title"], state["hash"]) == (hand["title"], f"{hand['game_id']}/{hand['hand']}")
    assert state["trick"] == fault["trick"] and state["current_row"] == str(fault["trick"])
    assert any(c == card and fault["message"] in title for c, title in state["faulty"])
    assert any(fault["message"] in m for m in state["messages"])
    ends = trick_ends(hand)
    # n: to the end of the faulty card's trick, then to the end of the next one
    browser.press("n")
    assert (shown(browser)["step"], shown(browser)["trick"]) == (ends[fault["trick"]], fault["trick"])
    if fault["trick"] + 1 < len(ends):
        browser.press("n")
        after = shown(browser)
        assert (after["step"], after["trick"]) == (ends[fault["trick"] + 1], fault["trick"] + 1)
        assert f"trick {fault['trick'] + 2} of {len(ends)}" in after["status"]
    # Home, then the right arrow one card at a time, the left arrow back, p a trick back
    browser.press("Home")
    assert (shown(browser)["step"], shown(browser)["trick"]) == (0, -1)
    for step in range(1, ends[0] + 2):
        browser.press("ArrowRight")
        assert shown(browser)["step"] == step
    assert shown(browser)["trick"] == 1
    browser.press("ArrowLeft")
    assert (shown(browser)["step"], shown(browser)["trick"]) == (ends[0], 0)
    browser.press("p")
    assert (shown(browser)["step"], shown(browser)["trick"]) == (0, -1)
    browser.press("End")
    assert (shown(browser)["step"], shown(browser)["trick"]) == (ends[-1], len(ends) - 1)
    # j and k: the next hand of the index and back
    at = [h["id"] for h in hands].index(hand["id"])
    if at + 1 < len(hands):
        browser.press("j")
        assert shown(browser)["title"] == hands[at + 1]["title"]
        browser.press("k")
        assert shown(browser)["title"] == hand["title"]
    # every control is reached with Tab, named for a screen reader, its focus drawn
    labels = []
    for _ in range(len(hands) + 12):
        browser.press("Tab")
        state = shown(browser)
        if state["focus_label"]:
            labels.append(state["focus_label"])
            assert state["focus_outline"] not in ("", "none"), state
    assert {"Next trick (n)", "Previous trick (p)", "Next card (right arrow)", "Next hand (j)"} <= set(labels)
    # Enter on a focused button acts, and the focus stays on it
    while shown(browser)["focus"] != "next-trick":
        browser.press("Tab")
    before = shown(browser)["step"]
    browser.press("Enter")
    state = shown(browser)
    assert state["focus"] == "next-trick" and state["step"] == next((e for e in ends if e > before), ends[-1])


@NO_BROWSER
def test_the_viewer_is_driven_by_the_keyboard(report: Path, tmp_path: Path) -> None:
    url, hand = fault_link(report)
    with Browser(tmp_path / "profile") as browser:
        check_keyboard(browser, url, hand, embedded(report / "viewer.html"))


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
    faulty = [h for h in hands if h["faults"]]
    assert [(h["game_id"], h["hand"]) for h in faulty] == [(records[0]["game_id"], 0)]
    assert any(g["label"] == "Écart" for g in faulty[0]["extra"])
    played = [h for h in hands if h.get("tricks")]
    assert played
    for hand in played:  # the faulty hand, and those the report cites
        assert {g["label"] for g in hand["extra"]} <= {"Chien", "Écart"}
        assert sum(len(t["plays"]) for t in hand["tricks"]) == sum(len(c) for c in hand["hands"])


def test_a_report_scoped_by_an_alias_links_only_to_hands_its_viewer_holds(tmp_path: Path) -> None:
    """``--player`` names a canonical name that only the ``--players`` file gives:
    the viewer reads the report's own session, so it holds every hand the report
    links to (it held none: its session had no players file)."""
    from cli import run

    from pipeline.games.tarot.simulate import simulate_games as tarot_games

    records = list(tarot_games(12, seed=5))
    for record in records[:3]:
        hand = next(h for h in record["hands"] if len(h.get("ecart") or []) > 1)
        hand["ecart"][0] = hand["ecart"][1]  # a card discarded twice
    alias = records[0]["players"][0]
    games = tmp_path / "tarot.jsonl"
    games.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    (tmp_path / "ids.toml").write_text(f'[aliases]\n"{alias}" = "Canonical Name"\n', encoding="utf-8")
    db, out = tmp_path / "t.duckdb", tmp_path / "report"
    assert run("load", str(games), "--db", str(db)).returncode == 1  # the planted faults
    done = run(
        "report",
        "--db",
        str(db),
        "--out",
        str(out),
        "--player",
        "Canonical Name",
        "--players",
        str(tmp_path / "ids.toml"),
    )
    assert done.returncode == 0, done.stderr
    held = {h["id"] for h in embedded(out / "viewer.html")}
    linked = [link.split("#", 1)[1] for link in audit_links(out)]
    assert linked and set(linked) <= held
    in_scope = [r for r in records if alias in r["players"]]
    assert {unescape(i).split("/")[0] for i in held} <= {quote_id(r["game_id"]) for r in in_scope}


def quote_id(game_id: str) -> str:
    from urllib.parse import quote

    return quote(game_id, safe="")
