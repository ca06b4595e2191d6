"""Player identity: one person under several names, and names that are no person.

A players file (``--players FILE`` of ``load`` and ``report``) maps aliases to
a canonical name and lists names to treat as placeholders.  TOML::

    placeholders = ["Guest", "Bot 1"]

    [aliases]
    "Brownsbacke®07" = "Brownsbacker07"

or CSV with a header ``name,canonical``: each row an alias and its canonical
name; a row with an empty canonical makes the name a placeholder.

Built-in placeholders (never people, whatever the file says): ``North``,
``East``, ``South``, ``West``, ``Player0``..``Player3``, ``p0``..``p3``, the
importers' ``seat 0``..``seat 3`` and the empty name, in any case.

>>> is_builtin_placeholder("North"), is_builtin_placeholder("player 2"), is_builtin_placeholder("Ana")
(True, True, False)
>>> m = PlayerMap({"Brownsbacke®07": "Brownsbacker07"}, frozenset({"Guest"}))
>>> m.canonical("Brownsbacke®07"), m.canonical("Guest"), m.canonical("p0"), m.canonical("Ana")
('Brownsbacker07', None, None, 'Ana')
"""

from __future__ import annotations

import csv
import io
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.violations import TricklogError, failure

#: The names seats get when a log names no player (case-insensitive, surrounding blanks ignored).
BUILTIN_PLACEHOLDER = re.compile(r"(north|east|south|west|player\s?[0-3]|p[0-3]|seat\s?[0-3]|)", re.I)
#: The same, as a DuckDB regular expression applied to lower(trim(name)).
BUILTIN_PLACEHOLDER_SQL = r"(north|east|south|west|player\s?[0-3]|p[0-3]|seat\s?[0-3]|)"


def is_builtin_placeholder(name: str | None) -> bool:
    return name is None or BUILTIN_PLACEHOLDER.fullmatch(name.strip()) is not None


@dataclass(frozen=True, slots=True)
class PlayerMap:
    """Alias -> canonical name, and the names that are placeholders."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    placeholders: frozenset[str] = frozenset()

    def canonical(self, name: str | None) -> str | None:
        """The person behind a name; None for a placeholder."""
        if name is None or name in self.placeholders or is_builtin_placeholder(name):
            return None
        return self.aliases.get(name, name)

    def rows(self) -> list[tuple[str, str | None, bool]]:
        """(name, canonical, placeholder) rows, as the warehouse keeps them."""
        rows: list[tuple[str, str | None, bool]] = [(a, c, False) for a, c in sorted(self.aliases.items())]
        rows += [(p, None, True) for p in sorted(self.placeholders)]
        return rows


class PlayersFileError(TricklogError):
    """A players file cannot be read."""


def read_players(path: str | Path) -> PlayerMap:
    """Read a players file: TOML (``.toml``) or CSV (anything else)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise PlayersFileError(f"{p}: cannot read the players file: {failure(e)}") from e
    except UnicodeDecodeError as e:
        raise PlayersFileError(f"{p}: the players file is not UTF-8 text") from e
    if p.suffix.lower() == ".toml":
        return _from_toml(p, text)
    return _from_csv(p, text)


def _from_toml(path: Path, text: str) -> PlayerMap:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlayersFileError(f"{path}: not valid TOML: {e}") from e
    aliases = data.get("aliases", {})
    placeholders = data.get("placeholders", [])
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise PlayersFileError(f"{path}: [aliases] maps each alias to a canonical name (text)")
    if not isinstance(placeholders, list) or not all(isinstance(v, str) for v in placeholders):
        raise PlayersFileError(f"{path}: placeholders is a list of names")
    return _checked(path, dict(aliases), frozenset(placeholders))


def _from_csv(path: Path, text: str) -> PlayerMap:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or [h.strip().lower() for h in header[:2]] != ["name", "canonical"]:
        raise PlayersFileError(f"{path}: a players CSV starts with the header 'name,canonical'")
    aliases: dict[str, str] = {}
    placeholders: set[str] = set()
    for number, row in enumerate(reader, start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) < 2:
            raise PlayersFileError(f"{path}: line {number}: expected name,canonical")
        name, canonical = row[0], row[1].strip()
        before = aliases.get(name, "" if name in placeholders else None)
        if before is not None and before != canonical:  # TOML refuses a key given twice too
            said = f"maps it to {before!r}" if before else "makes it a placeholder"
            raise PlayersFileError(f"{path}: line {number}: {name!r} is given again; an earlier line {said}")
        if canonical:
            aliases[name] = canonical
        else:
            placeholders.add(name)
    return _checked(path, aliases, frozenset(placeholders))


def _checked(path: Path, aliases: dict[str, str], placeholders: frozenset[str]) -> PlayerMap:
    chained = sorted(a for a, c in aliases.items() if c in aliases and aliases[c] != c)
    if chained:
        raise PlayersFileError(
            f"{path}: {chained[0]!r} maps to a name that is itself an alias; map it to the final name"
        )
    return PlayerMap(aliases, placeholders)
