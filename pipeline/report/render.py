"""Writing a report folder: summary.json, report.html, report.md, CSVs and PNGs.

The page reads top to bottom: the data set and the audit (every game's), then
each installed game's sections (Euchre: three studies, each a chart and tables
with counts and 95% intervals, then per-player figures).
It is one self-contained file: charts are embedded as base64 PNG data URIs,
the CSS is inline and nothing is fetched from the network.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

import orjson

from pipeline.atomic import fill_folder
from pipeline.players import PlayerMap
from pipeline.report.findings import GLOSSARY, findings
from pipeline.report.game import GameReport, Section
from pipeline.report.inference import MIN_N, adjust, small
from pipeline.report.markdown_text import md_text
from pipeline.report.run import Table, report_session, run_reports
from pipeline.report.summary import build_summary
from pipeline.report.viewer import write_hand_viewer

if TYPE_CHECKING:
    import duckdb

#: Columns kept in CSV files but not shown on the page, by suffix (and by name: ``Table.hidden``).
HIDDEN_SUFFIXES = ("_sd", "_count")


#: The core's sections, before every game's.
SECTIONS = (
    Section(
        "dataset",
        "The data set",
        tables=[
            ("dataset", "What was loaded and what is counted"),
            ("dataset_files", "Every file read: games, lines quarantined, copies"),
        ],
    ),
    Section(
        "audit",
        "Audit: what is wrong in the logs",
        tables=[
            ("audit_violations_by_code", "Violations by code"),
            ("audit_violations_by_file", "Violations and quarantined lines by file"),
            ("audit_violations_by_player", "Violations by player (the seat at fault)"),
            ("audit_violations_list", "Violations, each linked to its hand in the viewer"),
            ("audit_quarantine", "Quarantined lines (not loaded)"),
            ("audit_copies", "Copies: hands recorded more than once (counted once)"),
            ("audit_aliases", "Names that may be one person (suggestions for --players)"),
        ],
    ),
)


@dataclass(slots=True)
class ReportResult:
    """What ``write_report`` wrote."""

    out: Path
    summary: dict[str, Any]
    reports: list[GameReport]
    files: list[Path] = field(default_factory=list)

    def headline(self) -> str:
        """One line per game: what was counted."""
        return "; ".join(r.headline(self.summary[r.key]) for r in shown_reports(self.reports, self.summary))

    @property
    def html(self) -> Path:
        return self.out / "report.html"


def write_report(
    db: Path,
    out: Path,
    sources: Sequence[str] = (),
    players: Sequence[str] = (),
    identity: PlayerMap | None = None,
) -> ReportResult:
    """Run every report on the warehouse ``db`` and write the report folder ``out``
    (``identity``: a players file's aliases and placeholders, over the warehouse's):
    into a folder aside first, then each file renamed into place (other files of
    ``out`` are left alone)."""
    with report_session(db, sources, players, identity) as con:
        tables, reports = run_reports(con)
        with fill_folder(out) as folder:
            written = _write_report(tables, reports, con, db, folder, sources, players)
    files = [out / p.relative_to(folder) for p in written.files]
    return ReportResult(out, written.summary, reports, files)


def _write_report(
    tables: dict[str, Table],
    reports: list[GameReport],
    con: duckdb.DuckDBPyConnection,
    db: Path,
    out: Path,
    sources: Sequence[str],
    players: Sequence[str],
) -> ReportResult:
    filters = {"sources": list(sources), "players": list(players)}
    summary = build_summary(tables, filters, reports)
    shown = shown_reports(reports, summary)
    add_tests(summary, shown)
    result = ReportResult(out, summary, reports)
    result.files.append(_write_bytes(out / "summary.json", orjson.dumps(summary, option=orjson.OPT_INDENT_2)))
    result.files.extend(write_csvs(tables, out))
    charts = {
        name: out / file_name for report in shown for name, file_name in report.charts(tables, out).items()
    }
    result.files.extend(charts.values())
    notes = findings(summary)
    for report in shown:
        for key, sentences in report.findings(summary[report.key]).items():
            notes.setdefault(key, []).extend(sentences)
    sections = [*SECTIONS, *(section for report in shown for section in report.sections)]
    glossary = [*GLOSSARY, *(term for report in shown for term in report.glossary)]
    view = PageView(tables, charts, notes, sections, _title(shown), glossary)
    result.files.append(_write_text(out / "report.md", markdown(view, db, filters)))
    result.files.append(_write_text(out / "report.html", page(view, db, filters)))
    result.files.append(write_hand_viewer(con, out))
    return result


def add_tests(summary: dict[str, Any], reports: Sequence[GameReport]) -> None:
    """Each game's comparisons, Holm-adjusted together (the page's family of findings),
    put under the game's key as ``tests``."""
    found = {r.key: r.comparisons(summary[r.key]) for r in reports if r.comparisons is not None}
    adjusted = adjust([c for comparisons in found.values() for c in comparisons])
    start = 0
    for key, comparisons in found.items():
        summary[key]["tests"] = [c.to_json() for c in adjusted[start : start + len(comparisons)]]
        start += len(comparisons)


def shown_reports(reports: Sequence[GameReport], summary: dict[str, Any]) -> list[GameReport]:
    """The games the page shows: those with counted games (all of them when none has any)."""
    shown = [r for r in reports if r.has_games(summary[r.key])]
    return shown or list(reports)


def _title(reports: Sequence[GameReport]) -> str:
    return "tricklog report: " + (", ".join(r.title for r in reports) or "no game")


@dataclass(frozen=True, slots=True)
class PageView:
    """What the page and the Markdown show: the tables, charts, sentences and sections, in order."""

    tables: dict[str, Table]
    charts: dict[str, Path]
    notes: dict[str, list[str]]
    sections: Sequence[Section]
    title: str
    glossary: Sequence[tuple[str, str]] = ()


def _write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data + b"\n")
    return path


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def write_csvs(tables: dict[str, Table], out: Path) -> list[Path]:
    """One CSV per report table, every column (intervals included)."""
    paths = []
    for name, table in tables.items():
        path = out / f"{name}.csv"
        table.frame.write_csv(path)
        paths.append(path)
    return paths


# --------------------------------------------------------------------------
# Display tables: rates and means folded into "value (95% CI)"


#: The most rows of one table the page and the Markdown show: a list of every
#: copy or violation of a large collection runs to millions.  The CSV has them all.
#: The grids of figures stay whole (the chances of winning from each score of a
#: game to 15 points are 225 rows).
PAGE_ROWS = 250


def display(table: Table, limit: int = PAGE_ROWS) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted cells of a table as the page and markdown show it (its first ``limit`` rows)."""
    columns = table.frame.columns
    shown: list[tuple[str, Any]] = []
    skip: set[str] = set()
    for col in columns:
        if col in skip or col in table.hidden or col.endswith(HIDDEN_SUFFIXES):
            continue
        if col.endswith("_k") and f"{col[:-2]}_rate" in columns:
            stem = col[:-2]
            skip.update({f"{stem}_n", f"{stem}_rate", f"{stem}_lo", f"{stem}_hi"})
            shown.append((f"{_label(stem)} k / n", ("rate_kn", stem)))
            shown.append((f"{_label(stem)} rate (95% CI)", ("rate", stem)))
        elif col.endswith("_mean") and f"{col[:-5]}_lo" in columns:
            stem = col[:-5]
            skip.update({f"{stem}_lo", f"{stem}_hi"})
            shown.append((f"{_label(stem)} mean (95% CI), n", ("mean", stem)))
        elif col.endswith("_shrunk"):
            shown.append((f"{_label(col[:-7])} shrunk", ("pct", col)))
        else:
            shown.append((_label(col), ("plain", col)))
    rows = [[_cell(row, how) for _, how in shown] for row in table.frame.head(limit).to_dicts()]
    return [h for h, _ in shown], rows


def cut_note(table: Table, limit: int = PAGE_ROWS) -> str | None:
    """What the page says under a table longer than it shows.

    >>> import polars as pl
    >>> cut_note(Table("audit_copies", "", pl.DataFrame({"hand": range(4321)})))
    'The first 250 of 4,321 rows; all of them are in audit_copies.csv.'
    """
    total = table.frame.height
    if total <= limit:
        return None
    return f"The first {limit:,} of {total:,} rows; all of them are in {table.name}.csv."


def _label(name: str) -> str:
    return name.replace("_", " ")


#: The mark of a figure on fewer than MIN_N hands, explained under each table that has one.
SMALL_MARK = " \u2020"


def _cell(row: dict[str, Any], how: tuple[str, str]) -> str:
    kind, key = how
    if kind == "rate_kn":
        n = row[f"{key}_n"]
        return f"{row[f'{key}_k']:,} / {n:,}" + (SMALL_MARK if n and small(n) else "")
    if kind == "rate":
        return fmt_rate(row[f"{key}_rate"], row[f"{key}_lo"], row[f"{key}_hi"])
    if kind == "mean":
        n = row.get(f"{key}_count")
        text = fmt_mean(row[f"{key}_mean"], row[f"{key}_lo"], row[f"{key}_hi"])
        if n is None or text == "-":
            return text
        return f"{text}, n={n:,}" + (SMALL_MARK if small(n) else "")
    if kind == "pct":
        value = row[key]
        return "-" if value is None else f"{value:.1%}"
    return fmt_value(row[key])


def is_text(cells: Sequence[str]) -> bool:
    """A column of words (left-aligned), not of figures."""
    words = [c for c in cells if c not in ("-", "")]
    return bool(words) and not all(re.match(r"^[-+]?[\d,.]+%?( |$)", c) for c in words)


def all_zero(rows: Sequence[Sequence[str]]) -> bool:
    """Every figure of the table is zero or empty (the words aside): folded on the page."""
    figures = [c for row in rows for c in row if c not in ("-", "") and re.match(r"^[-+]?[\d,.]", c)]
    return bool(rows) and all(re.fullmatch(r"[-+]?0+(\.0+)?%?( / 0)?", c) for c in figures)


def fmt_rate(value: float | None, lo: float | None, hi: float | None) -> str:
    """``41.2% (38.0-44.5)``; a dash when there are no trials.

    >>> fmt_rate(0.5, 0.2366, 0.7634)
    '50.0% (23.7-76.3)'
    """
    if value is None or lo is None or hi is None:
        return "-"
    return f"{value:.1%} ({lo * 100:.1f}-{hi * 100:.1f})"


def fmt_mean(value: float | None, lo: float | None, hi: float | None) -> str:
    """``+0.123 (+0.050 to +0.196)``.

    >>> fmt_mean(0.25, None, None)
    '+0.250'
    """
    if value is None:
        return "-"
    if lo is None or hi is None:
        return f"{value:+.3f}"
    return f"{value:+.3f} ({lo:+.3f} to {hi:+.3f})"


def fmt_value(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


# --------------------------------------------------------------------------
# HTML


def page(view: PageView, db: Path, filters: dict[str, list[str]]) -> str:
    """The whole self-contained HTML page."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        tricklog_version = version("tricklog")
    except PackageNotFoundError:
        tricklog_version = "dev"
    template = Template(files("tricklog_reports").joinpath("report_template.html").read_text("utf-8"))
    return template.substitute(
        title=html.escape(view.title),
        version=html.escape(tricklog_version),
        generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        db=html.escape(str(db)),
        filters=html.escape(_filter_text(filters)),
        toc="".join(f'<li><a href="#{s.key}">{html.escape(s.title)}</a></li>' for s in view.sections),
        key=_html_box("key", "Key findings", view.notes.get("key", [])),
        notes=_html_box("notes", "Is this a fair sample?", view.notes.get("notes", [])),
        glossary=_html_glossary(view.glossary),
        body="\n".join(
            _html_section(s, view.tables, view.charts, view.notes.get(s.key, [])) for s in view.sections
        ),
    )


def _html_box(css: str, title: str, sentences: Sequence[str]) -> str:
    if not sentences:
        return ""
    items = "".join(f"<li>{_badged(n)}</li>" for n in sentences)
    return f'<div class="box {css}"><h2>{html.escape(title)}</h2><ul>{items}</ul></div>'


def _badged(sentence: str) -> str:
    """A sentence with its ``[n=...]`` sample size drawn as a badge (red when too small)."""
    out = html.escape(sentence)
    return re.sub(
        r"\[(n=[\d,]+)(, too small to read)?\]",
        lambda m: (
            f'<span class="badge{" small" if m.group(2) else ""}">{m.group(1)}{m.group(2) or ""}</span>'
        ),
        out,
    )


def _html_glossary(terms: Sequence[tuple[str, str]]) -> str:
    if not terms:
        return ""
    items = "".join(f"<dt>{html.escape(t)}</dt><dd>{html.escape(d)}</dd>" for t, d in terms)
    return (
        f'<details class="glossary" open><summary>Terms used on this page</summary><dl>{items}</dl></details>'
    )


def _filter_text(filters: dict[str, list[str]]) -> str:
    parts = [f"{k}: {', '.join(v)}" for k, v in filters.items() if v]
    return f"Filtered to {'; '.join(parts)}." if parts else "All games in the warehouse."


def _html_section(
    section: Section, tables: dict[str, Table], charts: dict[str, Path], notes: list[str]
) -> str:
    out = [f'<section id="{section.key}">', f"<h2>{html.escape(section.title)}</h2>"]
    out.extend(f'<p class="finding">{_badged(n)}</p>' for n in notes)
    for chart, caption in section.charts:
        out.append(_html_figure(charts[chart], caption))
    for name, title in section.tables:
        out.append(_html_table(tables[name], title))
    out.append("</section>")
    return "\n".join(out)


def _html_figure(path: Path, caption: str) -> str:
    """A figure with the PNG embedded; ``data-file`` names the PNG beside the page."""
    file_name = path.name
    uri = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img src="{uri}" alt="{html.escape(caption)}" data-file="{html.escape(file_name)}">'
        f"<figcaption>{html.escape(caption)} (also <code>{html.escape(file_name)}</code>)</figcaption></figure>"
    )


#: The control characters a log's text may hold (NUL, ESC, line breaks; a tab
#: aside), each shown as its Unicode control picture: HTML has no way to write
#: them that a browser shows (``&#0;`` is read as U+FFFD, ``&#27;`` as ESC itself).
PICTURES = {c: 0x2400 + c for c in range(0x20) if c != 0x09} | {0x7F: 0x2421}


def html_cell(text: str) -> str:
    r"""Text from the logs in a page's table cell, as written and visible.

    >>> html_cell("<Ann>\x1b[31m\x00") == "&lt;Ann&gt;\u241b[31m\u2400"
    True
    """
    return html.escape(text).translate(PICTURES)


def _html_table(table: Table, title: str) -> str:
    headers, rows = display(table)
    text = [is_text([row[i] for row in rows]) for i in range(len(headers))]
    head = "".join(f"<th{_align(t)}>{html.escape(h)}</th>" for h, t in zip(headers, text, strict=True))
    if rows:
        body = "".join(
            "<tr>"
            + "".join(f"<td{_align(t)}>{html_cell(c)}</td>" for c, t in zip(row, text, strict=True))
            + "</tr>"
            for row in rows
        )
    else:
        body = f'<tr><td colspan="{len(headers)}">none</td></tr>'
    marked = any(SMALL_MARK in c for row in rows for c in row)
    foot = f'<p class="doc">\u2020 fewer than {MIN_N} hands: too small to read.</p>' if marked else ""
    cut = cut_note(table)
    if cut is not None:
        foot += f'<p class="doc cut">{html.escape(cut)}</p>'
    doc = f'<p class="doc">{html.escape(table.doc)} <code>{table.name}.sql</code>, <code>{table.name}.csv</code></p>'
    grid = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{foot}"
    if cut is None and all_zero(rows):
        return (
            f'<details class="zero"><summary><h3>{html.escape(title)}</h3> (all zero)</summary>'
            f"{doc}{grid}</details>"
        )
    return f"<h3>{html.escape(title)}</h3>{doc}{grid}"


def _align(text: bool) -> str:
    return ' class="text"' if text else ""


# --------------------------------------------------------------------------
# Markdown


def markdown(view: PageView, db: Path, filters: dict[str, list[str]]) -> str:
    """The same tables as the page, in Markdown, with the PNGs linked."""
    tables, charts, notes = view.tables, view.charts, view.notes
    out = [f"# {view.title}", "", f"From `{db}`. {_filter_text(filters)}", ""]
    for key, title in (("key", "Key findings"), ("notes", "Is this a fair sample?")):
        if notes.get(key):
            out += [f"## {title}", "", *[f"- {md_text(n)}" for n in notes[key]], ""]
    if view.glossary:
        out += ["## Terms used", "", *[f"- **{t}**: {d}" for t, d in view.glossary], ""]
    for section in view.sections:
        out += [f"## {section.title}", ""]
        out += [f"> {md_text(n)}\n" for n in notes.get(section.key, [])]
        out += [f"![{caption}]({charts[chart].name})\n" for chart, caption in section.charts]
        for name, title in section.tables:
            out += [f"### {title}", "", f"{tables[name].doc} (`{name}.sql`)", "", _md_table(tables[name]), ""]
    return "\n".join(out)


def _md_table(table: Table) -> str:
    headers, rows = display(table)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
    if not rows:
        lines.append("| none |" + " |" * (len(headers) - 1))
    if any(SMALL_MARK in c for row in rows for c in row):
        lines += ["", f"\u2020 fewer than {MIN_N} hands: too small to read."]
    cut = cut_note(table)
    if cut is not None:
        lines += ["", md_text(cut)]
    return "\n".join(lines)
