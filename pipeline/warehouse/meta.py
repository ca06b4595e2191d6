"""Is this DuckDB file a tricklog warehouse, of the schema this tricklog knows?

A warehouse carries ``tricklog_meta(key, value)`` with its ``schema_version``.
Before anything is read or written, :func:`check_warehouse` looks at the
file and refuses, in one line, a database that is not a warehouse (its own
``players`` table, a ``games(x int)``), or one of another schema version.  An
empty file is a new warehouse.  A file whose tables are exactly this
version's, made before the version was stored, is recognised by its structure
and gets the version on its next load.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from pipeline.warehouse.ddl import WarehouseError, ddl_text

if TYPE_CHECKING:
    import duckdb

#: Bump when the tables change in a way an older warehouse cannot be read or loaded as.
#: 1: Euchre's tables in ``main`` (before games were plugins); 2: each game in its schema.
SCHEMA_VERSION = "2"
META_TABLE = "tricklog_meta"
META_DDL = f"create table if not exists {META_TABLE} (key varchar primary key, value varchar not null)"

Structure = dict[str, tuple[tuple[str, str], ...]]


class NotAWarehouse(WarehouseError):
    """The database is not a tricklog warehouse, or not of this schema version."""


def structure(con: duckdb.DuckDBPyConnection) -> Structure:
    """Every table and view of the ``main`` schema with its (column, type) list."""
    rows = con.execute(
        "select table_name, column_name, data_type from information_schema.columns "
        "where table_schema = 'main' and table_catalog = current_database() "
        "order by table_name, ordinal_position"
    ).fetchall()
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        out.setdefault(str(table), []).append((str(column), str(kind)))
    return {t: tuple(c) for t, c in out.items()}


@functools.cache
def expected_structure() -> Structure:
    """The tables and views this version creates (from ``warehouse.sql``, in memory)."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute(ddl_text())
        return structure(con)
    finally:
        con.close()


def check_warehouse(con: duckdb.DuckDBPyConnection, db: str) -> bool:
    """Refuse a database that is not a warehouse of this schema version; True when
    it is empty (a new warehouse, to be created by a load)."""
    found = structure(con)
    if not found:
        return True
    if META_TABLE in found:
        rows = con.execute(f"select value from {META_TABLE} where key = 'schema_version'").fetchall()
        version = str(rows[0][0]) if rows else None
        if version != SCHEMA_VERSION:
            raise NotAWarehouse(
                f"{db}: a tricklog warehouse of schema version {version}, and this tricklog "
                f"reads version {SCHEMA_VERSION}; load the inputs into a new database"
            )
        return False
    if _before_plugins(found):
        raise NotAWarehouse(
            f"{db}: a tricklog warehouse of schema version 1 (Euchre's tables in main, before games "
            f"were plugins), and this tricklog reads version {SCHEMA_VERSION}; load the inputs into a new database"
        )
    expected = expected_structure()
    if found == expected:
        return False  # made before the version was stored: the same tables exactly
    foreign = {t: c for t, c in found.items() if expected.get(t) != c}
    if foreign:
        raise NotAWarehouse(
            f"{db}: not a tricklog warehouse (tables that are not tricklog's: {_names(foreign)}); "
            "give a new or empty database file"
        )
    missing = {t: c for t, c in expected.items() if t not in found}
    raise NotAWarehouse(
        f"{db}: an incomplete tricklog warehouse (missing: {_names(missing)}); "
        "give a new or empty database file"
    )


def _before_plugins(found: Structure) -> bool:
    """The layout of the first release: ``games`` with team scores, ``hands`` beside it in ``main``."""
    columns = {name for name, _ in found.get("games", ())}
    return "team0_score" in columns and "hands" in found


def mark_warehouse(con: duckdb.DuckDBPyConnection) -> None:
    """Record the schema version (a writer, after the tables are created)."""
    con.execute(META_DDL)
    con.execute(
        f"insert into {META_TABLE} values ('schema_version', ?) on conflict do nothing", [SCHEMA_VERSION]
    )


def _names(found: Structure, limit: int = 5) -> str:
    names = sorted(found)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more
