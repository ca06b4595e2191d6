"""The games tricklog knows, found as plugins; the core knows no game by name.

A game is a package that exposes one :class:`Game`: its record format
(``"euchre/1"``), its violation codes, its ``replay``, the other formats it can
import, and optionally its warehouse tables, its report and its simulator.
Games are found through the ``tricklog.games`` entry-point group, the way
pytest and Dask find plugins::

    [project.entry-points."tricklog.games"]
    euchre = "pipeline.games.euchre.plugin:GAME"

:func:`register` is the one registration call those entry points go through
(also usable from a notebook for a game that is not installed).

>>> [g.name for g in installed()][:1]
['euchre']
>>> game_for_record({"format": "euchre/1"}).name
'euchre'
>>> replay = replay_record({"format": "chess/1", "game_id": "g"})
>>> [v.code for v in replay.violations], replay.game_id
(['schema'], 'g')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol

from pipeline.record import record_game_id
from pipeline.violations import Violation

if TYPE_CHECKING:
    from pipeline.sources import Reader, SourceItem
    from pipeline.warehouse.tables import ClearedLines, ClearedRows, GameTables

ENTRY_POINT_GROUP = "tricklog.games"


class HandOutcome(Protocol):
    """What every game's replay says of each hand, at least."""

    @property
    def deal_known(self) -> bool:
        """The deal was recorded in full; else holdings were inferred from the play."""
        ...


class Replay(Protocol):
    """What every game's replay returns."""

    @property
    def game_id(self) -> str | None: ...

    @property
    def violations(self) -> list[Violation]: ...

    @property
    def hands(self) -> Sequence[HandOutcome]: ...

    @property
    def unknown_fields(self) -> list[str]:
        """Top-level fields the record spec does not name (kept, and warned about)."""
        ...


@dataclass(frozen=True, slots=True)
class Importer:
    """Another format a game reads: its ``--from`` name, how to recognise it, how to read it.

    ``sniff`` sees an input's name and first bytes; ``read`` turns the input
    into items whose records are in the game's own format, reading a file as it
    stood at the size a load gives it (:class:`~pipeline.sources.Reader`), and a
    document no longer than ``--max-line-bytes`` (:func:`~pipeline.sources.read_document`).
    """

    name: str
    read: Callable[[], Reader]
    sniff: Callable[[bytes], bool] = lambda head: False
    #: Endings that are this format's alone: a folder's files with them are read as it.
    suffixes: tuple[str, ...] = ()
    #: Endings its files have that other formats share (``.json``): a folder's files
    #: with them are read only when ``--from`` names it.
    shared_suffixes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Simulator:
    """A game's bots: ``write(path, games, seed=, preset=, corrupt_rate=)`` writes a
    JSON Lines file (and, when corrupting, the map of planted faults beside it)."""

    write: Callable[..., Any]
    presets: tuple[str, ...]
    default_preset: str
    #: The preset ``tricklog demo`` plays.
    demo_preset: str


@dataclass(frozen=True, slots=True, repr=False)
class Game:
    """Everything the core needs of one game.  Heavy parts are reached through
    callables, so that finding the installed games imports none of them."""

    name: str
    #: The ``format`` value of its records, e.g. ``"euchre/1"``.
    record_format: str
    #: Violation code -> one-line meaning, the game's part of the record spec.
    codes: Mapping[str, str]
    replay: Callable[[dict[str, Any]], Replay]
    importers: Sequence[Importer] = ()
    #: The warehouse tables of the game (a DuckDB schema named after it).
    tables: Callable[[], GameTables] | None = None
    #: The game's part of ``tricklog report``.
    report: Callable[[], Any] | None = None
    simulator: Callable[[], Simulator] | None = None
    #: A replay -> one fingerprint per hand (its recorded play; None for a hand
    #: with no card played): copies of a hand, in any file or game, share it.
    fingerprints: Callable[[Any], Sequence[str | None]] | None = None
    #: The fast path: a batch of the game's records -> for each, when the game is
    #: *cleared* (the reference ``replay`` would find no violation; every hand's
    #: deal known), a small replay saying so (:func:`cleared`, with its hands'
    #: ``fingerprints`` when the game gives them), else None (the reference
    #: replay decides).  Optional.
    fast_check: Callable[[Sequence[dict[str, Any]]], list[ClearedReplay | None]] | None = field(
        default=None, compare=False
    )
    #: The same, giving for each cleared game the replay ``replay`` gives (what the
    #: game's warehouse rows are built from).  Optional.
    fast_replays: Callable[[Sequence[dict[str, Any]]], list[Replay | None]] | None = field(
        default=None, compare=False
    )
    #: The load's fast path: a batch of the game's records -> the warehouse rows of
    #: the games it clears, built as Arrow columns
    #: (:class:`pipeline.warehouse.tables.ClearedRows`; None: none cleared).  Optional.
    fast_rows: Callable[[Sequence[dict[str, Any]]], ClearedRows | None] | None = field(
        default=None, compare=False
    )
    #: The load's fast path straight from the bytes: a batch of raw JSON Lines ->
    #: the rows of the games of this game's format it clears, with a record of
    #: each one's core fields and its content hash (``ClearedLines``).  Optional.
    fast_line_rows: Callable[[Sequence[bytes]], ClearedLines | None] | None = field(
        default=None, compare=False
    )
    #: The fast path straight from the bytes: a batch of raw JSON Lines -> for
    #: each, a :class:`ClearedReplay` (with its hands' fingerprints) when the line
    #: is a game of this game's format that it clears, else None (the line is
    #: parsed and replayed as usual).  Optional; never claims another format.
    fast_lines: Callable[[Sequence[bytes]], list[ClearedReplay | None]] | None = field(
        default=None, compare=False
    )
    #: Modules a worker of a load imports before its first batch (the fast path's
    #: compiled kernels and what they need), imported once in the server the
    #: workers are forked from rather than by each.  A module missing is skipped.
    worker_modules: tuple[str, ...] = field(default=(), compare=False)
    #: The modules of the fast path's numba kernels: until they are compiled
    #: (:mod:`pipeline.kernels`, from the ``simulator``'s games), runs go
    #: without the fast path rather than wait for them.
    kernel_modules: tuple[str, ...] = field(default=(), compare=False)
    #: The game's studies for ``tricklog analyze`` (a ``pipeline.analyze.Analysis``).
    analyze: Callable[[], Any] | None = field(default=None, compare=False)
    #: The game's hand viewer data for the report (a ``pipeline.report.viewer.Viewer``).
    viewer: Callable[[], Any] | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"Game({self.name!r}, {self.record_format!r})"


_REGISTRY: dict[str, Game] = {}
_DISCOVERED = False
#: The registry as the hot path reads it (sorted games, games by record format),
#: rebuilt on each registration.
_SORTED: list[Game] = []
_BY_FORMAT: dict[object, Game] = {}


#: Names no game may take, since a game's name is its warehouse schema: the
#: catalog a warehouse file is opened as (``pipeline.warehouse.ddl.CATALOG``)
#: and DuckDB's own catalogs and schemas.
RESERVED_NAMES = frozenset(
    {"tricklog", "main", "memory", "temp", "system", "information_schema", "pg_catalog"}
)


def register(game: Game) -> Game:
    """Make a game known (what each ``tricklog.games`` entry point stands for).

    A game registered twice under one name is the later one; two games may not
    claim the same record format or importer name, and no game a name of
    :data:`RESERVED_NAMES`.
    """
    if game.name.lower() in RESERVED_NAMES:
        raise ValueError(f"a game may not be called {game.name!r}: the warehouse uses that name")
    for other in _REGISTRY.values():
        if other.name == game.name:
            continue
        if other.record_format == game.record_format:
            raise ValueError(f"games {other.name!r} and {game.name!r} both claim {game.record_format!r}")
        clash = {i.name for i in other.importers} & {i.name for i in game.importers}
        if clash:
            raise ValueError(f"games {other.name!r} and {game.name!r} both import {sorted(clash)}")
    _REGISTRY[game.name] = game
    _SORTED[:] = sorted(_REGISTRY.values(), key=lambda g: g.name)
    _BY_FORMAT.clear()
    _BY_FORMAT.update((g.record_format, g) for g in _SORTED)
    return game


def installed() -> list[Game]:
    """Every game found through the entry points (and :func:`register`), by name."""
    global _DISCOVERED
    if not _DISCOVERED:
        _DISCOVERED = True
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            game = entry.load()
            if not isinstance(game, Game):
                raise TypeError(f"entry point {entry.name!r} of {ENTRY_POINT_GROUP} is not a Game")
            if game.name not in _REGISTRY:
                register(game)
    return list(_SORTED)


def game_for_record(record: Mapping[str, Any]) -> Game | None:
    """The game whose record format the record names (None: no installed game claims it)."""
    if not _DISCOVERED:
        installed()
    fmt = record.get("format")
    return _BY_FORMAT.get(fmt) if isinstance(fmt, str) else None


def tables_of(game: Game) -> GameTables:
    """The game's warehouse tables, built once a process: a load asks for them for
    every game, and a game's ``tables`` may read its DDL from a file each time.

    >>> tables_of(installed()[0]) is tables_of(installed()[0])
    True
    """
    assert game.tables is not None, f"the game {game.name!r} has no warehouse tables"
    return _built(game.tables)


@cache
def _built(tables: Callable[[], GameTables]) -> GameTables:
    return tables()


def record_formats() -> list[str]:
    return [g.record_format for g in installed()]


def importers() -> Iterator[tuple[Game, Importer]]:
    for game in installed():
        for importer in game.importers:
            yield game, importer


def all_codes() -> dict[str, str]:
    """Every violation code of every installed game (the core's own included)."""
    from pipeline.violations import CORE_CODES

    codes = dict(CORE_CODES)
    for game in installed():
        for code, doc in game.codes.items():
            codes.setdefault(code, doc)
    return codes


@dataclass(slots=True)
class UnclaimedRecord:
    """The replay of a record no installed game claims: one ``schema`` violation."""

    game_id: str | None
    violations: list[Violation]
    hands: list[HandOutcome] = field(default_factory=list)
    unknown_fields: list[str] = field(default_factory=list)


def replay_record(record: dict[str, Any]) -> Replay:
    """Replay a record with the game its ``format`` names; a format no game claims
    is a ``schema`` violation naming the formats that are installed."""
    game = game_for_record(record)
    if game is not None:
        return game.replay(record)
    return UnclaimedRecord(record_game_id(record), [unclaimed(record)])


def unclaimed(record: Mapping[str, Any]) -> Violation:
    """The ``schema`` violation of a record no installed game claims, naming the
    formats that are installed."""
    fmt = record.get("format")
    said = "format is missing" if fmt is None else f"format {fmt!r} is not a game tricklog knows"
    message = f"{said}; the installed games read {', '.join(map(repr, record_formats()))}"
    return Violation("schema", message, record_game_id(record), None, "format")


@dataclass(frozen=True, slots=True)
class HandSummary:
    """A hand as a cleared game's replay gives it: all that is known is that it was clean."""

    deal_known: bool


KNOWN_DEAL = HandSummary(True)


@dataclass(slots=True)
class ClearedReplay:
    """The replay of a game the fast path cleared: no violation, every deal known."""

    game_id: str | None
    hands: Sequence[HandOutcome]
    violations: list[Violation] = field(default_factory=list)
    unknown_fields: list[str] = field(default_factory=list)
    #: The hands' fingerprints (``Game.fingerprints`` of the whole replay), when known.
    fingerprints: Sequence[str | None] | None = None


def clear_lines(lines: Sequence[bytes]) -> list[ClearedReplay | None]:
    """For each raw JSON line, the replay of the game a game's ``fast_lines``
    clears from its bytes, else None (to parse and replay as usual)."""
    out: list[ClearedReplay | None] = [None] * len(lines)
    for game in installed():
        if game.fast_lines is None:
            continue
        todo = [i for i, done in enumerate(out) if done is None]
        for i, replay in zip(todo, game.fast_lines([lines[i] for i in todo]), strict=True):
            out[i] = replay
    return out


def cleared(game_id: str, hands: int, fingerprints: Sequence[str | None] | None = None) -> ClearedReplay:
    """What a game's ``fast_check`` says of a game it cleared, of ``hands`` hands
    (and, when given, their fingerprints)."""
    return ClearedReplay(game_id, [KNOWN_DEAL] * hands, fingerprints=fingerprints)


def replay_items(
    items: Sequence[SourceItem], fast_path: bool = True, *, full: bool = False
) -> list[tuple[Replay, list[Violation]]]:
    """:func:`replay_item` of each item, the games a game's ``fast_check`` clears
    in bulk (unless ``fast_path`` is off) and the rest by their game's reference
    ``replay``; the same results either way.  ``full``: a cleared game's replay
    is the whole replay (``fast_replays``), not only the word that it is clean."""
    if not fast_path:
        return [replay_item(item) for item in items]
    out: list[tuple[Replay, list[Violation]] | None] = [None] * len(items)
    for game, indices in fast_batches(items, "fast_replays" if full else "fast_check"):
        check = game.fast_replays if full else game.fast_check
        assert check is not None
        records = [items[i].record for i in indices]
        for i, replay in zip(indices, check(records), strict=True):  # type: ignore[arg-type]
            if replay is not None:
                out[i] = (replay, [])
    return [done if done is not None else replay_item(item) for done, item in zip(out, items, strict=True)]


def fast_batches(items: Sequence[SourceItem], hook: str) -> list[tuple[Game, list[int]]]:
    """The items a game's fast path may take (read without a violation, of a game
    that has the fast ``hook``), grouped by game: each game with their indices."""
    fast: dict[str, tuple[Game, list[int]]] = {}
    for i, item in enumerate(items):
        assert item.record is not None
        if item.violations:
            continue
        game = game_for_record(item.record)
        if game is not None and getattr(game, hook) is not None:
            fast.setdefault(game.name, (game, []))[1].append(i)
    return list(fast.values())


def replay_item(item: SourceItem) -> tuple[Replay, list[Violation]]:
    """Replay an item's game with the engine of its format; every violation found
    reading and replaying it, placed in its input (file, line, and source deal for an import)."""
    assert item.record is not None
    replay = replay_record(item.record)
    deals = _source_deals(item.record)
    violations = [v.at(file=item.file, line=item.line) for v in item.violations]
    violations += [_locate(v, item, deals) for v in replay.violations]
    return replay, violations


def _source_deals(record: dict[str, Any]) -> list[Any] | None:
    """For an imported game, the source's own number of each hand (``origin.deals``)."""
    origin = record.get("origin")
    deals = origin.get("deals") if isinstance(origin, dict) else None
    return deals if isinstance(deals, list) else None


def _locate(violation: Violation, item: SourceItem, deals: list[Any] | None) -> Violation:
    """A replay violation placed in its input file, and in its source deal for an imported game."""
    located = violation.at(file=item.file, line=item.line)
    hand = violation.hand
    if deals is None or hand is None or not 0 <= hand < len(deals):
        return located
    return replace(located, message=f"deal {deals[hand]} of the source: {violation.message}")
