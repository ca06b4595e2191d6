"""Storing a players file in the warehouse (``load --players``) and giving a read-only
session the identity table the report macros map names through.

``player_names`` keeps the stored aliases and placeholders; a read-only session
gets the temporary table ``player_identity`` (the stored rows, then a report's
own ``--players`` file on top; names tidied, aliases followed to their final
name), which ``scoped_games()`` reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.players import (
    BUILTIN_PLACEHOLDER,
    AliasCycle,
    Identity,
    PlayerMap,
    PlayersFileError,
    resolved,
    tidy_name_sql,
)

if TYPE_CHECKING:
    import duckdb


def store_players(db: str | Path, players: PlayerMap) -> int:
    """Write a players file's rows into ``player_names`` (a name given again is
    replaced); refused, nothing written, when with the stored rows some aliases
    would lead back to themselves."""
    from pipeline.warehouse.ddl import connect

    con = connect(db, read_only=False)
    try:
        try:
            resolved([*_stored(con), *players.rows()])
        except AliasCycle as e:
            raise PlayersFileError(
                f"{db}: with the player names stored before (load --players), {e}; "
                "map each alias to the final name"
            ) from None
        con.begin()
        _insert_or_replace(con, "player_names", players.rows())
        con.commit()
    finally:
        con.close()
    return len(players.rows())


def install_identity(con: duckdb.DuckDBPyConnection) -> None:
    """The session's ``player_identity`` temp table, from the stored ``player_names``
    (tidied, each alias followed to its final name), and the macros that read
    names as the report does: ``tidy_name(name)``, ``builtin_placeholder(name)``."""
    con.execute(f"create or replace temp macro tidy_name(name) as {tidy_name_sql()}")
    con.execute(
        "create or replace temp macro builtin_placeholder(name) as "
        f"name is null or regexp_full_match(lower(tidy_name(name)), '{BUILTIN_PLACEHOLDER}')"
    )
    con.execute(
        "create or replace temp table player_identity "
        "(name varchar primary key, canonical varchar, placeholder boolean not null)"
    )
    _install(con, resolved(_stored(con), strict=False))


def add_identity(con: duckdb.DuckDBPyConnection, players: PlayerMap) -> None:
    """A report's own players file, over the stored one (this session only); an
    alias of either may name the other's (followed to the end), but not round."""
    try:
        identity = resolved([*_stored(con), *players.rows()])
    except AliasCycle as e:
        raise PlayersFileError(
            f"the report's players file and the warehouse's player names (load --players): {e}; "
            "map each alias to the final name"
        ) from None
    con.execute("delete from player_identity")
    _install(con, identity)


def _stored(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str | None, bool]]:
    """The rows of ``player_names``, if the warehouse has the table."""
    stored = con.execute(
        "select count(*) from duckdb_tables() where table_name = 'player_names' and not temporary"
    ).fetchall()[0][0]
    if not stored:
        return []
    return [
        (str(n), c, bool(p)) for n, c, p in con.execute("select * from player_names order by name").fetchall()
    ]


def _install(con: duckdb.DuckDBPyConnection, identity: Identity) -> None:
    _insert_or_replace(con, "player_identity", [(n, c, p) for n, (c, p) in identity.items()])


def _insert_or_replace(
    con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple[str, str | None, bool]]
) -> None:
    """(name, canonical, placeholder) rows into ``table`` in one statement, through
    Arrow (a statement a row took 20 s for 10,000 names); of a name given twice, the last."""
    import pyarrow as pa

    from pipeline.warehouse.ddl import registered

    last = {name: (canonical, placeholder) for name, canonical, placeholder in rows}
    if not last:
        return
    data = pa.table(
        {
            "name": pa.array(list(last), pa.string()),
            "canonical": pa.array([c for c, _ in last.values()], pa.string()),
            "placeholder": pa.array([p for _, p in last.values()], pa.bool_()),
        }
    )
    with registered(con, "_players_rows", data):
        con.execute(f"insert or replace into {table} select name, canonical, placeholder from _players_rows")
