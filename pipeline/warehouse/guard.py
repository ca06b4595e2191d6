"""Keeping read-only sessions read-only: the statement check and the session lockdown.

Two walls, each enough on its own for the cases we know of:

* :func:`check_statements` parses the SQL with DuckDB's own parser and refuses
  anything but one query -- including the statement *inside* an ``EXPLAIN``
  (``EXPLAIN ANALYZE`` runs it: ``EXPLAIN ANALYZE COPY ... TO`` would write);
* :func:`lock_down` configures the session so that a case the check misses
  still cannot write or fetch: no file but the database itself (and the paths
  given as readable), no extension installed or loaded, and the configuration
  locked so a query cannot undo it.

>>> check_statements("explain analyze select 1")
>>> check_statements("EXPLAIN ANALYZE COPY (select 1) TO 'x.csv'")
Traceback (most recent call last):
...
pipeline.warehouse.guard.QueryRefused: refused: COPY statement (inside EXPLAIN); the warehouse is read-only here (only SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.warehouse.ddl import WarehouseError

if TYPE_CHECKING:
    import duckdb

#: StatementType names a read-only query may have (DESCRIBE, SHOW, SUMMARIZE parse as SELECT).
ALLOWED = frozenset({"SELECT", "EXPLAIN"})
ALLOWED_TEXT = "only SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN"


class QueryRefused(WarehouseError):
    """The statement would change something, or is not one statement."""


class QueryFailed(WarehouseError):
    """DuckDB could not parse or run the query: its message on one line, and
    whole (with the caret block) as ``detail``."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail or message


def check_statements(query: str) -> None:
    """Refuse anything but one read-only query, using DuckDB's own parser; the
    statement an ``EXPLAIN`` explains (and runs, with ``ANALYZE``) is checked too."""
    _check(query, inside=False)


def _check(query: str, *, inside: bool) -> None:
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as e:
        raise QueryFailed(one_line(str(e)), str(e).strip()) from e
    if len(statements) != 1:
        raise QueryRefused(f"give exactly one SQL statement, not {len(statements)}")
    kind = statements[0].type.name
    if kind not in ALLOWED:
        where = " (inside EXPLAIN)" if inside else ""
        raise QueryRefused(
            f"refused: {kind} statement{where}; the warehouse is read-only here ({ALLOWED_TEXT})"
        )
    if kind == "EXPLAIN":
        inner = explained(statements[0].query)
        if inner is None:
            raise QueryRefused("refused: cannot tell which statement this EXPLAIN runs; write it plainly")
        _check(inner, inside=True)


_SKIP = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.S)
_EXPLAIN = re.compile(r"explain\b", re.I)
_ANALYZE = re.compile(r"analy[sz]e\b", re.I)


def explained(text: str) -> str | None:
    """The statement after ``EXPLAIN [ANALYZE] [(options)]``; None when the text is not
    laid out that way (the caller then refuses: fail closed).

    >>> explained("/* x */ EXPLAIN (FORMAT json) ANALYZE select 1")
    'select 1'
    >>> explained("explain analyse copy t to 'f'")
    "copy t to 'f'"
    """
    pos = _skip(text, 0)
    match = _EXPLAIN.match(text, pos)
    if match is None:
        return None
    pos = _skip(text, match.end())
    for _ in range(2):  # options and ANALYZE, in either order
        if text.startswith("(", pos):
            close = text.find(")", pos)
            if close < 0 or "(" in text[pos + 1 : close]:
                return None
            pos = _skip(text, close + 1)
        elif (match := _ANALYZE.match(text, pos)) is not None:
            pos = _skip(text, match.end())
    inner = text[pos:].strip()
    return inner or None


def _skip(text: str, pos: int) -> int:
    match = _SKIP.match(text, pos)
    return match.end() if match else pos


def lock_down(con: duckdb.DuckDBPyConnection, readable: Sequence[str | Path] = ()) -> None:
    """Lock a session: no file but the database and ``readable`` (folders end with
    ``/``), no network, no extension installed or loaded, and no way back.

    ``readable`` is for a data set the session must read (Parquet, say): those
    paths stay open to DuckDB, and only those (the statement check still refuses
    ``COPY``, so they are read, not written)."""
    folders = [str(p) for p in readable if str(p).endswith("/")]
    files = [str(p) for p in readable if not str(p).endswith("/")]
    con.execute("set allowed_directories = $v::varchar[]", {"v": folders})
    con.execute("set allowed_paths = $v::varchar[]", {"v": files})
    con.execute("set enable_external_access = false")
    con.execute("set autoinstall_known_extensions = false")
    con.execute("set autoload_known_extensions = false")
    con.execute("set lock_configuration = true")


def one_line(message: str) -> str:
    """DuckDB's message on one line: its first paragraph (the caret block under
    ``LINE n:`` is left out; ``--verbose`` shows it whole).

    >>> one_line('Binder Error: no column "x"\\nDid you mean "y"?\\n\\nLINE 1: select x\\n  ^')
    'Binder Error: no column "x" Did you mean "y"?'
    """
    kept: list[str] = []
    for line in message.strip().splitlines():
        if not line.strip() or re.match(r"LINE \d+:", line):
            break
        kept.append(line.strip())
    return " ".join(kept) or "unknown error"


def check_output(out: Path, db: Path) -> None:
    """Refuse an output file that is the database or its WAL, however spelled
    (relative, ``..``, a symlink, a hard link): writing it would destroy the warehouse."""
    from pipeline.atomic import same_file

    for target in (db, Path(f"{db}.wal")):
        if same_file(out, target):
            raise WarehouseError(f"{out}: is the warehouse itself ({target}); choose another output file")
