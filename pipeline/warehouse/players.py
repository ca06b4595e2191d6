"""Storing a players file in the warehouse (``load --players``) and giving a read-only
session the identity table the report macros map names through.

``player_names`` keeps the stored aliases and placeholders; a read-only session
gets the temporary table ``player_identity`` (the stored rows, then a report's
own ``--players`` file on top), which ``scoped_games()`` reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.players import PlayerMap

if TYPE_CHECKING:
    import duckdb


def store_players(db: str | Path, players: PlayerMap) -> int:
    """Write a players file's rows into ``player_names`` (a name given again is replaced)."""
    from pipeline.warehouse.ddl import connect

    con = connect(db, read_only=False)
    try:
        con.begin()
        _insert_or_replace(con, "player_names", players)
        con.commit()
    finally:
        con.close()
    return len(players.rows())


def install_identity(con: duckdb.DuckDBPyConnection) -> None:
    """The session's ``player_identity`` temp table, from the stored ``player_names``."""
    con.execute(
        "create or replace temp table player_identity "
        "(name varchar primary key, canonical varchar, placeholder boolean not null)"
    )
    stored = con.execute(
        "select count(*) from duckdb_tables() where table_name = 'player_names' and not temporary"
    ).fetchall()[0][0]
    if stored:
        con.execute("insert into player_identity select name, canonical, placeholder from player_names")


def add_identity(con: duckdb.DuckDBPyConnection, players: PlayerMap) -> None:
    """A report's own players file, over the stored one (this session only)."""
    _insert_or_replace(con, "player_identity", players)


def _insert_or_replace(con: duckdb.DuckDBPyConnection, table: str, players: PlayerMap) -> None:
    """A players file's rows into ``table`` in one statement, through Arrow (a
    statement a row took 20 s for 10,000 names); of a name given twice, the last."""
    import pyarrow as pa

    from pipeline.warehouse.ddl import registered

    last = {name: (canonical, placeholder) for name, canonical, placeholder in players.rows()}
    rows = pa.table(
        {
            "name": pa.array(list(last), pa.string()),
            "canonical": pa.array([c for c, _ in last.values()], pa.string()),
            "placeholder": pa.array([p for _, p in last.values()], pa.bool_()),
        }
    )
    with registered(con, "_players_rows", rows):
        con.execute(f"insert or replace into {table} select name, canonical, placeholder from _players_rows")
