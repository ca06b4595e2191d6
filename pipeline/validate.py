"""Validating inputs: read every game, replay it, collect what is wrong.

This is the library behind ``tricklog validate`` (and the first half of
``tricklog load``).  Reading is streaming: one game in memory at a time, and
only the ids seen so far are kept, to catch a repeated ``game_id``.

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
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pipeline.games import Replay, engine_for
from pipeline.sources import (
    BOM,
    Reader,
    SourceItem,
    check_input,
    expand_inputs,
    head_bytes,
    read_jsonl,
)
from pipeline.violations import TricklogError, Violation

InputFormat = Literal["auto", "euchre", "egn", "openspiel"]
INPUT_FORMATS: tuple[str, ...] = ("auto", "euchre", "egn", "openspiel")


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


def check_format(fmt: str) -> None:
    """Refuse an unknown input format before anything is read or written."""
    if fmt not in INPUT_FORMATS:
        raise TricklogError(f"--from must be one of {', '.join(INPUT_FORMATS)}, not {fmt!r}")


def reader_for(path: str, fmt: str = "auto") -> Reader:
    """The reader of an input: by ``fmt``, or for ``auto`` by sniffing its first bytes."""
    if fmt == "auto":
        fmt = sniff_format(path, _head(path))
    if fmt == "euchre":
        return read_jsonl
    if fmt == "egn":
        from pipeline.games.euchre.importers.egn import read_egn

        return read_egn
    if fmt == "openspiel":
        from pipeline.games.euchre.importers.openspiel import read_openspiel

        return read_openspiel
    check_format(fmt)
    raise AssertionError(f"no reader for {fmt!r}")


def sniff_format(path: str, head: bytes) -> str:
    """Guess an input's format from its name and first bytes (euchre/1 when unsure)."""
    lower = path.lower()
    if lower.endswith((".egn", ".emn")):
        return "egn"
    head = head.removeprefix(BOM)
    try:
        from pipeline.games.euchre.importers.egn import looks_like_egn

        if looks_like_egn(head):
            return "egn"
    except ImportError:
        pass
    try:
        from pipeline.games.euchre.importers.openspiel import looks_like_openspiel

        if looks_like_openspiel(head):
            return "openspiel"
    except ImportError:
        pass
    return "euchre"


def _head(path: str) -> bytes:
    """The first bytes of an input, read once (a pipe's are kept for its reader)."""
    return head_bytes(path)


def read_inputs(paths: Sequence[str], fmt: str = "auto") -> Iterator[SourceItem]:
    """Every item of every input (a folder: its input files), in order.  Fails
    early on a missing file."""
    files = _existing_inputs(paths, fmt)
    for path in files:
        yield from reader_for(path, fmt)(path)


def _existing_inputs(paths: Sequence[str], fmt: str) -> list[str]:
    """The input files (folders expanded), each checked to open before any is read."""
    check_format(fmt)
    files = expand_inputs(paths)
    for path in files:
        check_input(path)
    return files


def check_games(items: Iterable[SourceItem]) -> Iterator[CheckedGame]:
    """Replay each item's game; report repeated ids (the repeat is still replayed)."""
    return _with_repeats(_replay_each(items))


def check_inputs(paths: Sequence[str], fmt: str = "auto", jobs: int = 1) -> Iterator[CheckedGame]:
    """Every game of every input, checked in input order.  With ``jobs`` > 1, JSON
    Lines inputs are parsed and replayed by that many worker processes; a game's
    ``replay`` is then a digest and its ``record`` is not kept."""
    return _with_repeats(_replay_files(_existing_inputs(paths, fmt), fmt, jobs))


Replayed = tuple[SourceItem, Replay | None, list[Violation]]


def _replay_files(files: list[str], fmt: str, jobs: int) -> Iterator[Replayed]:
    for path in files:
        reader = reader_for(path, fmt)
        if jobs > 1 and reader is read_jsonl:
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


def _with_repeats(replayed: Iterable[Replayed]) -> Iterator[CheckedGame]:
    """Each replayed item as a checked game; a game id seen before is a ``duplicate_game``."""
    seen: set[str] = set()
    for item, replay, violations in replayed:
        if replay is None:
            yield CheckedGame(item, None, violations)
            continue
        game_id = replay.game_id
        duplicate = game_id is not None and game_id in seen
        if duplicate:
            message = f"game_id {game_id!r} was already seen earlier in the input"
            violations.insert(
                0, Violation("duplicate_game", message, game_id, None, "game_id", item.file, item.line)
            )
        elif game_id is not None:
            seen.add(game_id)
        yield CheckedGame(item, replay, violations, duplicate)


def replay_item(item: SourceItem) -> tuple[Replay, list[Violation]]:
    """Replay an item's game with the engine of its format; every violation found
    reading and replaying it, placed in its input (file, line, and source deal for an import)."""
    assert item.record is not None
    replay = engine_for(item.record).replay(item.record)
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


def validate(
    paths: Sequence[str],
    fmt: str = "auto",
    on_game: Callable[[CheckedGame], None] | None = None,
    jobs: int = 1,
) -> ValidationSummary:
    """Validate inputs (JSON Lines on ``jobs`` processes); ``on_game`` sees each
    checked game as it goes, in input order (for output, progress)."""
    summary = ValidationSummary(files=len(expand_inputs(paths)))
    for game in check_inputs(paths, fmt, jobs):
        summary.count(game)
        if on_game is not None:
            on_game(game)
    return summary
