"""A table longer than a page: the page and the Markdown show its first rows and
say where the rest is; the CSV keeps every row; the figures are those of the
single game.

A collection that holds each game many times lists millions of copies: the
page of a 2 GB collection of 5,000 games was 832 MB.  Real ``tricklog load`` and
``tricklog report``.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import orjson
from test_report import assert_same, fixture_records, load, report

from pipeline.report.render import PAGE_ROWS

COPIES = 80


def test_a_long_list_of_copies_is_cut_on_the_page_and_whole_in_the_csv(tmp_path: Path) -> None:
    original = next(r for r in fixture_records() if len(r["hands"]) >= 5)
    records = [original] + [{**original, "game_id": f"copy-{i:02d}"} for i in range(1, COPIES)]
    single = report(load(tmp_path / "single", [original]), tmp_path / "single" / "report")
    summary = report(load(tmp_path / "many", records), tmp_path / "out")
    for key in ("games", "complete_games", "hands", "euchre_rate", "alone", "dealer_advantage", "per_player"):
        assert_same(single["euchre"][key], summary["euchre"][key], key)

    out = tmp_path / "out"
    with open(out / "audit_copies.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    total = (COPIES - 1) * len(original["hands"])
    assert total > PAGE_ROWS
    assert len(rows) == total
    assert {r["game_id"] for r in rows} == {f"copy-{i:02d}" for i in range(1, COPIES)}

    note = f"The first {PAGE_ROWS:,} of {total:,} rows; all of them are in audit_copies.csv."
    page = (out / "report.html").read_text("utf-8")
    section = page[page.index("<code>audit_copies.sql</code>") :]
    section = section[: section.index("</table>")]
    assert section.count("<tr>") == PAGE_ROWS + 1  # the header's row and the rows shown
    assert note in page
    # the first rows in the table's own order: copy-01's hands first
    assert re.findall(r"copy-\d\d", section)[0] == "copy-01"

    markdown = (out / "report.md").read_text("utf-8")
    lines = markdown[markdown.index("(`audit_copies.sql`)") :].splitlines()
    table = [line for line in lines[2 : 2 + PAGE_ROWS + 3] if line.startswith("|")]
    assert len(table) == PAGE_ROWS + 2  # header, rule, the rows shown
    assert note.replace("_", "\\_") in markdown or note in markdown
    assert orjson.loads((out / "summary.json").read_bytes())["dataset"]["games_copies"] == COPIES - 1
