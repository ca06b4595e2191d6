"""The Tarot studies of ``tricklog report``: contracts by the strength of the
taker's hand as dealt, the hands that defied their strength, players' records;
each figure of ``summary.json`` against a plain recomputation over
``replay_game`` (the strength from the record's deal, not from the warehouse's
plays), and the viewer reached from the report's links, in a real browser.

The games: simulated ones with planted faults, and a copy of one under another
id, which must count once.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Browser
from test_tarot_warehouse import approx, kept_games, load_and_report, simulated
from test_viewer import NO_BROWSER, audit_links, check_keyboard, embedded, fault_link

from pipeline.games.tarot.cards import EXCUSE, PETIT, T21, cards_in, is_trump, rank_of, suit_of
from pipeline.games.tarot.state import TarotHand
from pipeline.report.inference import small
from pipeline.report.stats import from_moments, rate

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")


@pytest.fixture(scope="module")
def studied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("tarot-studies")
    games = simulated(folder, 150, 8, 0.08)
    first = json.loads(games.read_bytes().splitlines()[0])
    copy = {**first, "game_id": first["game_id"] + "-copy"}
    with games.open("ab") as f:
        f.write(json.dumps(copy).encode() + b"\n")
    return games, folder / "report", load_and_report(folder, str(games))


# --------------------------------------------------------------------------
# The plain recomputation


#: The counted hands, each with its game's players and id.
Counted = list[tuple[TarotHand, list[str], str]]


def counted_hands(games: Path) -> Counted:
    """The counted hands with their game's players: played to the end, no violation
    naming them, a contract played, each distinct deal and play once."""
    out, seen = [], set()
    for record, replay in kept_games(games):
        named = {v.hand for v in replay.violations}
        for h in replay.hands:
            key = (h.dealer, tuple(h.deal), tuple((t.leader, tuple(t.plays)) for t in h.tricks))
            if h.index in named or not h.complete or h.thrown_in is not None or h.taker is None:
                continue
            if key not in seen:
                seen.add(key)
                out.append((h, record["players"], record["game_id"]))
    return out


def chavey(dealt: int) -> int:
    """Noël Chavey's points de main, written from his table on its own."""
    cards = list(cards_in(dealt))
    trumps = [rank_of(c) for c in cards if is_trump(c)]
    t = len(trumps) + (EXCUSE in cards)
    points = 10 * (T21 in cards) + 8 * (EXCUSE in cards)
    if PETIT in cards:
        points += 9 if t >= 7 else 7 if t == 6 else 5 if t == 5 else 0
    points += 2 * t if t > 4 else 0
    majors = {n for n in trumps if n >= 16}
    points += 2 * len(majors)
    runs = [{n, n + 1, n + 2} for n in range(16, 20) if {n, n + 1, n + 2} <= majors]
    points += len(set().union(*runs)) if runs else 0
    for suit in range(4):
        ranks = [rank_of(c) for c in cards if suit_of(c) == suit]
        king, queen = 14 in ranks, 13 in ranks
        points += 10 if king and queen else 6 if king else 3 if queen else 0
        points += 2 * ranks.count(12) + ranks.count(11)
        points += 9 if len(ranks) >= 7 else 7 if len(ranks) == 6 else 5 if len(ranks) == 5 else 0
    return points


def strength(h: TarotHand) -> dict[str, tuple[str, int]]:
    """The taker's hand as dealt: measure -> (band, value)."""
    assert h.taker is not None
    dealt = h.deal[h.taker]
    cards = list(cards_in(dealt))
    bouts = sum(c in (PETIT, T21, EXCUSE) for c in cards)
    trumps = sum(is_trump(c) for c in cards)
    points = chavey(dealt)
    trump_bands = ((4, "0-4"), (6, "5-6"), (8, "7-8"), (10, "9-10"), (99, "11+"))
    point_bands = ((39, "under 40"), (55, "40-55"), (70, "56-70"), (80, "71-80"), (10**6, "81+"))
    return {
        "bouts_held": (str(bouts), bouts),
        "trumps_held": (next(b for top, b in trump_bands if trumps <= top), trumps),
        "points_de_main": (next(b for top, b in point_bands if points <= top), points),
    }


def taken(hands: list[TarotHand]) -> dict[str, Any]:
    scores = [float(h.taker_score) for h in hands if h.taker_score is not None]
    return {
        "n": len(hands),
        "success": rate(sum(bool(h.made) for h in hands), len(hands)).to_json(),
        "mean_taker_score": statistics.fmean(scores) if scores else None,
        "mean_taker_score_ci95": mean_ci(scores),
        "small": small(len(hands)),
    }


def mean_ci(values: list[float]) -> list[float | None]:
    mean = statistics.fmean(values) if values else None
    sd = statistics.stdev(values) if len(values) > 1 else None
    return from_moments(len(values), mean, sd).ci95


def grouped(hands: Counted, key: Callable[[TarotHand, list[str]], Iterator[str]]) -> dict[str, Counted]:
    out: dict[str, Counted] = {}
    for h, players, game_id in hands:
        for k in key(h, players):
            out.setdefault(k, []).append((h, players, game_id))
    return out


# --------------------------------------------------------------------------
# The figures


def test_contracts_by_strength_match_a_plain_recomputation(
    studied: tuple[Path, Path, dict[str, Any]],
) -> None:
    games, _, summary = studied
    hands = counted_hands(games)
    assert summary["tarot"]["hands"] == len(hands)
    expected: dict[str, dict[str, dict[str, Any]]] = {}
    for measure in ("bouts_held", "trumps_held", "points_de_main"):
        by_band = grouped(hands, lambda h, _, m=measure: iter([strength(h)[m][0]]))  # type: ignore[misc]
        expected[measure] = {
            band: {
                c: taken([h for h, *_ in mine if h.contract == c])
                for c in CONTRACTS
                if any(h.contract == c for h, *_ in mine)
            }
            for band, mine in by_band.items()
        }
    assert summary["tarot"]["by_strength"] == approx(expected)
    assert list(summary["tarot"]["by_strength"]["points_de_main"]) == [
        b for b in ("under 40", "40-55", "56-70", "71-80", "81+") if b in expected["points_de_main"]
    ]


def test_the_hands_that_defied_their_strength(studied: tuple[Path, Path, dict[str, Any]]) -> None:
    games, report, summary = studied
    hands = {(game_id, h.index): h for h, _, game_id in counted_hands(games)}
    points = {k: strength(h)["points_de_main"][1] for k, h in hands.items()}
    made = {k for k, h in hands.items() if h.made}
    weakest = sorted(made, key=lambda k: (points[k], k))[:10]
    strongest = sorted(set(points) - made, key=lambda k: (-points[k], k))[:10]
    cited = [
        (s["kind"], s["game_id"], s["hand"], s["hand_points"]) for s in summary["tarot"]["strength_surprises"]
    ]
    assert cited == [("made, weakest", *k, points[k]) for k in weakest] + [
        ("down, strongest", *k, points[k]) for k in strongest
    ]
    # each cited hand is a link of the page, into the viewer, which holds it with its strength
    links = audit_links(report)
    shown = {h["id"]: h for h in embedded(report / "viewer.html")}
    for s in summary["tarot"]["strength_surprises"]:
        assert s["viewer"] in links
        hand = shown[s["viewer"].split("#", 1)[1]]
        assert f"{s['hand_points']} points de main" in " ".join(hand["facts"])
        assert len(hand["tricks"]) == 18 and [g["label"] for g in hand["extra"]][:1] == ["Chien"]


def test_players_records_match_a_plain_recomputation(studied: tuple[Path, Path, dict[str, Any]]) -> None:
    games, _, summary = studied
    hands = counted_hands(games)
    by_player = grouped(hands, lambda h, players: iter(players))
    records = summary["tarot"]["per_player"]
    assert set(records) == set(by_player)
    for name, mine in by_player.items():
        as_taker = [h for h, players, _ in mine if players[h.taker] == name]  # type: ignore[index]
        in_defence = [(h, players.index(name)) for h, players, _ in mine if players[h.taker] != name]  # type: ignore[index]
        defence_scores = [float(h.scores[seat]) for h, seat in in_defence]
        all_scores = [float(h.scores[players.index(name)]) for h, players, _ in mine]
        assert records[name] == approx(
            {
                "hands": len(mine),
                "small": small(len(mine)),
                "taker": {
                    **taken(as_taker),
                    "contracts": {c: sum(h.contract == c for h in as_taker) for c in CONTRACTS},
                },
                "defence": {
                    "n": len(in_defence),
                    "won": rate(sum(not h.made for h, *_ in in_defence), len(in_defence)).to_json(),
                    "mean_score": statistics.fmean(defence_scores) if defence_scores else None,
                    "mean_score_ci95": mean_ci(defence_scores),
                },
                "mean_score": statistics.fmean(all_scores),
                "mean_score_ci95": mean_ci(all_scores),
            }
        ), name


def test_the_page_and_the_csvs_hold_the_studies(studied: tuple[Path, Path, dict[str, Any]]) -> None:
    _, report, _ = studied
    page = (report / "report.html").read_text(encoding="utf-8")
    assert "do takers bid what their hand is worth?" in page and "points de main" in page
    for name in ("tarot_contract_by_strength", "tarot_strength_surprises", "tarot_per_player"):
        header = (report / f"{name}.csv").read_text(encoding="utf-8").splitlines()[0]
        assert "viewer" in header or "_rate" in header


@NO_BROWSER
def test_a_browser_steps_through_a_tarot_violations_hand(
    studied: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    _, report, _ = studied
    url, hand = fault_link(report)
    assert hand["game"] == "tarot" and len(hand["tricks"]) == 18
    assert {g["label"] for g in hand["extra"]} <= {"Chien", "Écart"} and hand["bids"]
    with Browser(tmp_path / "profile") as browser:
        check_keyboard(browser, url, hand, embedded(report / "viewer.html"))
        browser.open(url)
        shown = browser.eval("document.getElementById('viewer').textContent")
        assert "Chien" in shown and "The bidding" in shown
