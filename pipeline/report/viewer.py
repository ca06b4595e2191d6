"""The hand viewer: ``viewer.html`` beside the report, one self-contained page
that replays hands card by card.

The page holds the hands as JSON and shows the one its anchor names
(``viewer.html#<game_id>/<hand>``, the game id URL-encoded): the cards each
seat was dealt, the bidding, the tricks one play at a time (left and right
arrows step through them), every violation of the hand with the faulty card
highlighted, and, where the game's analysis knows it, the par line beside the
actual play and what each card gave away.  No network: the CSS and the script
are inline, cards are text.

The core picks the hands (those some violation in scope names, then those a
game's study points to) and the violations; each game's ``viewer`` hook (a
:class:`Viewer`) gives its hands' details as JSON-ready dicts:

* ``title``, ``players`` (by seat), ``facts`` (lines of text: dealer, trump, result);
* ``hands``: the cards dealt to each seat, or None (``deal_label``: another
  heading for them, ``out``: seats that sit out); ``extra``: other card
  groups shown with them (``[{"label": "Kitty", "cards": [...]}]``);
* ``bids``: ``[{"seat": s, "text": "pass"}]``;
* ``tricks``: ``[{"leader": s, "winner": s, "plays": [{"seat": s, "card": "A♠"}]}]``;
* ``par`` (optional): ``{"summary": text, "line": [[seat, card], ...],
  "plays": [[trick, play, loss, better card or None], ...]}``.

>>> hand_anchor("g 1/x", 3)
'g%201%2Fx/3'
>>> viewer_link("g 1/x", 3)
'viewer.html#g%201%2Fx/3'
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import orjson

from pipeline.games import installed
from pipeline.report.markdown_text import md_plain, md_text

if TYPE_CHECKING:
    import duckdb

#: The page's file name, in the report folder.
VIEWER_FILE = "viewer.html"
#: At most this many hands named by violations, and this many picked by studies.
MAX_FAULT_HANDS = 2000
MAX_STUDY_HANDS = 300

HandKey = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Viewer:
    """A game's part of the hand viewer.

    ``hands(con, keys)`` gives the details of those of ``keys`` it knows (see
    the module doc) on a read-only warehouse connection; ``studied(con, n)``
    the keys of at most ``n`` hands its studies point to (the costliest
    mistakes, say), to include beside the hands with violations.
    """

    hands: Callable[[duckdb.DuckDBPyConnection, list[HandKey]], dict[HandKey, dict[str, Any]]]
    studied: Callable[[duckdb.DuckDBPyConnection, int], list[HandKey]] | None = None


def hand_anchor(game_id: str, hand: int) -> str:
    """The anchor of a hand in the viewer: the game id URL-encoded, a slash, the hand."""
    return f"{quote(game_id, safe='')}/{hand}"


def viewer_link(game_id: str, hand: int) -> str:
    return f"{VIEWER_FILE}#{hand_anchor(game_id, hand)}"


#: A report cell holding ``VIEWER_CELL + game_id + "/" + hand`` is shown as a link to that hand.
VIEWER_CELL = "hand:"


def cell_html(text: str) -> str:
    """A table cell's HTML: a link into the viewer for a ``hand:GAME/HAND`` value, else the text."""
    if text.startswith(VIEWER_CELL) and "/" in text:
        game_id, _, hand = text[len(VIEWER_CELL) :].rpartition("/")
        if hand.isdigit():
            href = html.escape(viewer_link(game_id, int(hand)))
            return (
                f'<a class="hand-link" href="{href}">hand {html.escape(hand)} of {html.escape(game_id)}</a>'
            )
    return html.escape(text)


def cell_markdown(text: str) -> str:
    r"""A table cell in Markdown: a ``hand:GAME/HAND`` value as a link into the viewer.

    >>> print(cell_markdown("hand:g_1*/2"), cell_markdown("renege"))
    [hand 2 of g_1\*](viewer.html#g_1%2A/2) renege
    """
    if text.startswith(VIEWER_CELL) and "/" in text:
        game_id, _, hand = text[len(VIEWER_CELL) :].rpartition("/")
        if hand.isdigit():
            return f"[hand {hand} of {md_text(game_id)}]({viewer_link(game_id, int(hand))})"
    return md_text(text)


_HTML_CELL = re.compile(r"<td([^>]*)>" + re.escape(VIEWER_CELL) + r"([^<]*)</td>")
_MD_CELL = re.compile(r"(?<=\| )" + re.escape(VIEWER_CELL) + r"(\S+?)(?= \|)")


def link_hands_html(page: str) -> str:
    """The report page with every ``hand:GAME/HAND`` table cell a link into the viewer.

    >>> link_hands_html('<td class="x">hand:g&amp;1/2</td>')
    '<td class="x"><a class="hand-link" href="viewer.html#g%261/2">hand 2 of g&amp;1</a></td>'
    """
    return _HTML_CELL.sub(
        lambda m: f"<td{m.group(1)}>{cell_html(VIEWER_CELL + html.unescape(m.group(2)))}</td>", page
    )


def link_hands_markdown(text: str) -> str:
    """The Markdown report with every ``hand:GAME/HAND`` table cell a link into the viewer
    (the cells' text as :func:`~pipeline.report.markdown_text.md_text` wrote it)."""
    return _MD_CELL.sub(lambda m: cell_markdown(VIEWER_CELL + md_plain(m.group(1))), text)


def _game_viewers() -> dict[str, Viewer]:
    return {g.name: g.viewer() for g in installed() if g.viewer is not None}


def fault_hands(con: duckdb.DuckDBPyConnection, limit: int) -> dict[HandKey, list[dict[str, Any]]]:
    """The hands of the games in scope that violations name, with their violations."""
    rows = con.execute(
        """
        with named as (
            select game_id, hand, trick, seat, code, message,
                   dense_rank() over (order by game_id, hand) as k
            from scoped_violations()
            where loaded and hand is not null
        )
        select game_id, hand, trick, seat, code, message from named where k <= $limit
        order by game_id, hand, trick nulls first, seat
        """,
        {"limit": limit},
    ).fetchall()
    out: dict[HandKey, list[dict[str, Any]]] = {}
    for game_id, hand, trick, seat, code, message in rows:
        out.setdefault((game_id, hand), []).append(
            {"trick": trick, "seat": seat, "code": code, "message": message}
        )
    return out


def viewer_data(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every hand the viewer shows, as the page's JSON."""
    faults = fault_hands(con, MAX_FAULT_HANDS)
    viewers = _game_viewers()
    games = dict(
        con.execute(
            "select game_id, game from games where game_id in (select unnest($ids))",
            {"ids": sorted({g for g, _ in faults})},
        ).fetchall()
    )
    keys_by_game: dict[str, list[HandKey]] = {}
    for key in faults:
        keys_by_game.setdefault(games.get(key[0], ""), []).append(key)
    for name, viewer in viewers.items():
        if viewer.studied is not None and _has_schema(con, name):
            for key in viewer.studied(con, MAX_STUDY_HANDS):
                if key not in faults:
                    keys_by_game.setdefault(name, []).append(key)
    out = []
    for name, keys in keys_by_game.items():
        shown = viewers.get(name)
        details = shown.hands(con, keys) if shown is not None and _has_schema(con, name) else {}
        for key in keys:
            hand = dict(details.get(key) or {"title": f"{name} game {key[0]}, hand {key[1]}"})
            hand.update({"id": hand_anchor(*key), "game": name, "game_id": key[0], "hand": key[1]})
            hand["faults"] = faults.get(key, [])
            out.append(hand)
    out.sort(key=lambda h: (h["game_id"], h["hand"]))
    return out


def _has_schema(con: duckdb.DuckDBPyConnection, schema: str) -> bool:
    return bool(
        con.execute("select count(*) from duckdb_schemas() where schema_name = ?", [schema]).fetchall()[0][0]
    )


def viewer_page(hands: Sequence[dict[str, Any]], title: str = "tricklog hand viewer") -> str:
    """The self-contained page, the hands embedded as JSON."""
    template = files("tricklog_reports").joinpath("viewer_template.html").read_text("utf-8")
    data = orjson.dumps(list(hands)).decode()
    # inside <script>, no "<" at all ("</script>", "<!--"): JSON allows it escaped in strings
    data = data.replace("<", "\\u003c")
    return template.replace("$title", html.escape(title)).replace("$hands", data)


def write_viewer(con: duckdb.DuckDBPyConnection, out: Path) -> Path:
    """Write ``viewer.html`` into the report folder ``out``."""
    path = out / VIEWER_FILE
    path.write_text(viewer_page(viewer_data(con)), encoding="utf-8")
    return path


def write_hand_viewer(con: duckdb.DuckDBPyConnection, out: Path) -> Path:
    """Write ``viewer.html`` into the report folder ``out``, the hands of the
    report's scope (its session: ``--source``, ``--player`` and ``--players``), and make the
    ``hand:GAME/HAND`` cells of ``report.html`` and ``report.md`` there links to it."""
    for name, link in (("report.html", link_hands_html), ("report.md", link_hands_markdown)):
        page = out / name
        if page.is_file():
            page.write_text(link(page.read_text(encoding="utf-8")), encoding="utf-8")
    return write_viewer(con, out)
