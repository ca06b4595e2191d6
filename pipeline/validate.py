"""Validating inputs: read every game, replay it, collect what is wrong.

This is the library behind ``tricklog validate`` (and the first half of
``tricklog load``).  Reading is streaming: a chunk of games in memory at a
time, and only 128-bit keys of the games and distinct hands seen so far are
kept, to catch a repeated ``game_id`` and copies of games and hands
(``pipeline.copies``: a few MB in memory, the rest on disk).

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "bad.jsonl").write_text('{"format": "euchre/1"\\n[1, 2]\\n')
29
>>> summary = validate([str(folder / "bad.jsonl")])
>>> summary.games, summary.violations, dict(summary.by_code)
(0, 2, {'malformed_json': 2})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pipeline.games import Replay, importers, installed, replay_item
from pipeline.sources import (
    BOM,
    Reader,
    SourceItem,
    bounded_chunks,
    check_input,
    expand_inputs,
    head_bytes,
    read_jsonl,
)
from pipeline.violations import TricklogError, Violation

if TYPE_CHECKING:
    from pipeline.copies import Found

#: ``--from`` for a JSON Lines file of records (any installed game's format).
JSONL = "jsonl"
#: Games checked for repeats and copies together: their keys are looked up in
#: a few numpy calls, so the work per game stays a few Python operations.
REPEATS_CHUNK = 2000


@dataclass(slots=True)
class CheckedGame:
    """One input item after replay: the game (if it was one) and all its violations."""

    item: SourceItem
    replay: Replay | None
    violations: list[Violation]
    #: The game's id was seen earlier in this run.
    duplicate: bool = False

    @property
    def record(self) -> dict[str, Any] | None:
        return self.item.record


@dataclass(slots=True)
class ValidationSummary:
    files: int = 0
    games: int = 0
    hands: int = 0
    games_with_violations: int = 0
    violations: int = 0
    by_code: Counter[str] = field(default_factory=Counter)
    #: Hands whose deal was not recorded in full: checked by inference from the play.
    hands_without_full_deal: int = 0
    #: Top-level fields the spec does not name, with the number of games carrying each.
    unknown_fields: Counter[str] = field(default_factory=Counter)

    def count(self, game: CheckedGame) -> None:
        replay = game.replay
        if replay is not None:
            self.games += 1
            self.hands += len(replay.hands)
            self.hands_without_full_deal += sum(not h.deal_known for h in replay.hands)
            self.unknown_fields.update(replay.unknown_fields)
        if game.violations:
            self.games_with_violations += game.replay is not None
            self.violations += len(game.violations)
            self.by_code.update(v.code for v in game.violations)

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "games": self.games,
            "hands": self.hands,
            "games_with_violations": self.games_with_violations,
            "violations": self.violations,
            "by_code": dict(sorted(self.by_code.items())),
            "hands_without_full_deal": self.hands_without_full_deal,
            "unknown_fields": dict(sorted(self.unknown_fields.items())),
        }


def input_formats() -> list[str]:
    """What ``--from`` accepts: ``auto``, ``jsonl`` (also spelled with a game's name, for
    its own record format) and every installed game's importers."""
    return ["auto", JSONL, *(g.name for g in installed()), *(i.name for _, i in importers())]


def check_format(fmt: str) -> None:
    """Refuse an unknown input format before anything is read or written."""
    known = input_formats()
    if fmt not in known:
        raise TricklogError(f"--from must be one of {', '.join(known)}, not {fmt!r}")


def reader_for(path: str, fmt: str = "auto") -> Reader:
    """The reader of an input: by ``fmt``, or for ``auto`` by sniffing its name and first bytes."""
    check_format(fmt)
    if fmt == "auto":
        fmt = sniff_format(path, head_bytes(path))
    importer = next((i for _, i in importers() if i.name == fmt), None)
    return read_jsonl if importer is None else importer.read()


def sniff_format(path: str, head: bytes) -> str:
    """An input's format from its name and first bytes: an importer that claims it, else JSON Lines."""
    lower = path.lower()
    known = [i for _, i in importers()]
    found = [i for i in known if i.suffixes and lower.endswith(i.suffixes)]
    head = head.removeprefix(BOM)
    found = found or [i for i in known if i.sniff(head)]
    return found[0].name if found else JSONL


def read_inputs(paths: Sequence[str], fmt: str = "auto") -> Iterator[SourceItem]:
    """Every item of every input (a folder: its input files), in order.  Fails
    early on a missing file."""
    files = _existing_inputs(paths, fmt)
    for path in files:
        yield from reader_for(path, fmt)(path)


def _existing_inputs(paths: Sequence[str], fmt: str) -> list[str]:
    """The input files (folders expanded), each checked to open before any is read."""
    check_format(fmt)
    files = expand_inputs(paths, fmt)
    for path in files:
        check_input(path)
    return files


def check_games(items: Iterable[SourceItem]) -> Iterator[CheckedGame]:
    """Replay each item's game; report repeated ids (the repeat is still replayed)."""
    return _with_repeats(_replay_each(items))


def check_inputs(paths: Sequence[str], fmt: str = "auto", jobs: int = 1) -> Iterator[CheckedGame]:
    """Every game of every input, checked in input order.  With ``jobs`` > 1, JSON
    Lines inputs are parsed and replayed by that many worker processes; a game's
    ``replay`` is then a digest and its ``record`` is not kept.  With one job too,
    JSON Lines are replayed a chunk at a time into digests, so that a game's
    fast path (``Game.fast_check``) clears clean games in bulk."""
    return _with_repeats(_replay_files(_existing_inputs(paths, fmt), fmt, jobs))


Replayed = tuple[SourceItem, Replay | None, list[Violation]]


def _replay_files(files: list[str], fmt: str, jobs: int) -> Iterator[Replayed]:
    for path in files:
        reader = reader_for(path, fmt)
        if reader is read_jsonl:
            from pipeline.parallel import replay_jsonl

            yield from replay_jsonl(path, jobs)
        else:
            yield from _replay_each(reader(path))


def _replay_each(items: Iterable[SourceItem]) -> Iterator[Replayed]:
    for item in items:
        if item.record is None:
            yield item, None, [v.at(file=item.file, line=item.line) for v in item.violations]
        else:
            yield item, *replay_item(item)


def _with_repeats(replayed: Iterable[Replayed], chunk: int = REPEATS_CHUNK) -> Iterator[CheckedGame]:
    """Each replayed item as a checked game; a game id seen before is a ``duplicate_game``,
    and so is a copy of another game's hands; a hand seen in another game a ``duplicate_hand``.
    Items are checked ``chunk`` at a time."""
    from pipeline.copies import CopyTracker, fingerprints_of

    copies = CopyTracker()
    for batch in bounded_chunks(replayed, chunk, _raw_bytes):
        games = [
            (replay.game_id, item.file, item.line, fingerprints_of(item.record, replay))
            for item, replay, _ in batch
            if replay is not None
        ]
        yield from _checked(batch, copies.check(games))


def _raw_bytes(replayed: Replayed) -> int:
    """The bytes an item holds of its input: the line, when it is no game."""
    raw = replayed[0].raw
    return 0 if raw is None else len(raw)


def _checked(batch: list[Replayed], found: dict[int, Found]) -> Iterator[CheckedGame]:
    """The items of a chunk as checked games, with what the tracker found of the
    games among them (by their index among the games)."""
    games = 0
    for item, replay, violations in batch:
        if replay is None:
            yield CheckedGame(item, None, violations)
            continue
        hit = found.get(games)
        games += 1
        if hit is None:
            yield CheckedGame(item, replay, violations)
        elif hit.duplicate:
            violations[:0] = hit.violations
            yield CheckedGame(item, replay, violations, True)
        else:
            violations.extend(hit.violations)
            yield CheckedGame(item, replay, violations)


def validate(
    paths: Sequence[str],
    fmt: str = "auto",
    on_game: Callable[[CheckedGame], None] | None = None,
    jobs: int = 1,
) -> ValidationSummary:
    """Validate inputs (JSON Lines on ``jobs`` processes); ``on_game`` sees each
    checked game as it goes, in input order (for output, progress)."""
    summary = ValidationSummary(files=len(expand_inputs(paths, fmt)))
    for game in check_inputs(paths, fmt, jobs):
        summary.count(game)
        if on_game is not None:
            on_game(game)
    return summary
