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

A name is read tidied (:func:`tidy_name`): in Unicode's composed form (NFC),
without the blanks and invisible characters around it, so ``"Zoë"`` typed
either way, or ``"Ana "``, is one name.  An alias of a placeholder is a
placeholder too.

>>> is_builtin_placeholder("North"), is_builtin_placeholder("player 2"), is_builtin_placeholder("Ana")
(True, True, False)
>>> m = PlayerMap({"Brownsbacke®07": "Brownsbacker07", "Robot": "Guest"}, frozenset({"Guest"}))
>>> m.canonical("Brownsbacke®07"), m.canonical("Guest"), m.canonical("p0"), m.canonical("Ana")
('Brownsbacker07', None, None, 'Ana')
>>> m.canonical("Robot"), m.canonical("North\t"), m.canonical("Zoe\u0308\u200b") == "Zo\u00eb"
(None, None, True)
"""

from __future__ import annotations

import csv
import io
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.violations import TricklogError, failure

#: The names seats get when a log names no player, in lower case: a name is one
#: when its tidied lower case matches (in Python and in DuckDB alike).
BUILTIN_PLACEHOLDER = r"(north|east|south|west|player ?[0-3]|p[0-3]|seat ?[0-3]|)"

#: What a name is read without at either end: the characters Python calls
#: blanks (``str.isspace``) and the invisible ones (zero width space, joiner
#: and non-joiner, word joiner, byte order mark).
NAME_EDGES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200E)))
    + "\u2028\u2029\u202f\u205f\u2060\u3000\ufeff"
)


def tidy_name(name: str) -> str:
    """A name as read: composed (NFC), without blanks or invisible characters at its ends."""
    return unicodedata.normalize("NFC", name).strip(NAME_EDGES)


def is_builtin_placeholder(name: str | None) -> bool:
    return name is None or re.fullmatch(BUILTIN_PLACEHOLDER, tidy_name(name).lower()) is not None


def tidy_name_sql() -> str:
    """:func:`tidy_name` as a DuckDB expression of ``name``."""
    edges = "".join(f"\\x{{{ord(c):x}}}" for c in NAME_EDGES)
    return f"regexp_replace(nfc_normalize(name), '^[{edges}]+|[{edges}]+$', '', 'g')"


@dataclass(frozen=True, slots=True)
class PlayerMap:
    """Alias -> canonical name, and the names that are placeholders."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    placeholders: frozenset[str] = frozenset()

    def canonical(self, name: str | None) -> str | None:
        """The person behind a name; None for a placeholder."""
        if name is None:
            return None
        identity = resolved(self.rows())
        canonical, placeholder = identity.get(tidy_name(name), (tidy_name(name), False))
        return None if placeholder or is_builtin_placeholder(canonical) else canonical

    def rows(self) -> list[tuple[str, str | None, bool]]:
        """(name, canonical, placeholder) rows, as the warehouse keeps them."""
        rows: list[tuple[str, str | None, bool]] = [(a, c, False) for a, c in sorted(self.aliases.items())]
        rows += [(p, None, True) for p in sorted(self.placeholders)]
        return rows


class AliasCycle(ValueError):
    """Aliases that lead back to themselves: no name among them is the final one."""


Identity = dict[str, tuple[str | None, bool]]


def resolved(rows: Iterable[tuple[str, str | None, bool]], *, strict: bool = True) -> Identity:
    """Tidied name -> (final canonical name, placeholder), of (name, canonical,
    placeholder) rows in the order they were given (of a name given twice, the
    last): each alias followed to the name at the end of its chain, an alias of a
    placeholder (in the rows or built in) a placeholder.  A chain that comes back
    to itself raises :class:`AliasCycle` (``strict``), else is left as given.

    >>> resolved([("Ana", "Anna", False), ("Anna", "Anastasia", False), ("Bot", None, True), ("Robot", "Bot", False)])
    {'Ana': ('Anastasia', False), 'Anna': ('Anastasia', False), 'Bot': (None, True), 'Robot': (None, True)}
    >>> resolved([("Ana", "Anna", False), ("Anna", "Ana ", False)])
    Traceback (most recent call last):
    ...
    pipeline.players.AliasCycle: 'Ana' and 'Anna' are aliases of each other
    """
    given: Identity = {}
    for name, canonical, placeholder in rows:
        given[tidy_name(name)] = (None, True) if placeholder else (tidy_name(canonical or ""), False)
    out: Identity = {}
    for name, (canonical, placeholder) in given.items():
        chain = [name]
        while not placeholder and canonical is not None and canonical in given and canonical != chain[-1]:
            if canonical in chain:
                if strict:
                    raise AliasCycle(
                        f"{chain[0]!r} and {chain[1]!r} are aliases of each other"
                        if len(chain) == 2
                        else f"the aliases {' -> '.join(map(repr, [*chain, canonical]))} go round"
                    )
                canonical, placeholder = given[name]
                break
            chain.append(canonical)
            canonical, placeholder = given[canonical]
        if canonical is None or is_builtin_placeholder(canonical):
            canonical, placeholder = None, True
        out[name] = (canonical, placeholder)
    return out


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
    tidied = {tidy_name(a): tidy_name(c) for a, c in aliases.items()}
    chained = sorted(
        a
        for a, c in aliases.items()
        if tidied[tidy_name(a)] in tidied and tidied[tidied[tidy_name(a)]] != tidied[tidy_name(a)]
    )
    if chained:
        raise PlayersFileError(
            f"{path}: {chained[0]!r} maps to a name that is itself an alias; map it to the final name"
        )
    return PlayerMap(aliases, placeholders)
