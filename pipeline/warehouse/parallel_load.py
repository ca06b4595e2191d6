"""Preparing a load on several processes: workers parse JSON Lines, hash and
replay each game and build its rows; the loader routes them in input order
(already present, quarantine or games) exactly as it does on its own."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from pipeline.parallel import in_workers, line_chunks
from pipeline.sources import parse_line

if TYPE_CHECKING:
    from pipeline.warehouse.load import InputFile, Prepared


#: Game ids the warehouse held when the workers were started: their lines are
#: only hashed, not replayed (the loader counts them already present, or
#: quarantines them).  Workers forked from the loader inherit it.
_KNOWN: frozenset[str] = frozenset()


def prepare_in_workers(file: InputFile, run_id: int, jobs: int, known: set[str]) -> Iterator[Prepared]:
    global _KNOWN
    _KNOWN = frozenset(known)
    work = partial(_prepare_lines, file.name, run_id)
    for chunk, prepared in in_workers(line_chunks(file.path), work, jobs):
        for (_, raw), one in zip(chunk, prepared, strict=True):
            one.raw = raw
            yield one


def _prepare_lines(name: str, run_id: int, chunk: list[tuple[int, bytes]]) -> list[Prepared]:
    """In a worker: each line parsed, hashed and replayed, its rows built (raw text left
    out: the loader still holds it)."""
    from pipeline.warehouse.load import prepare, replay_for_load

    out = []
    for number, line in chunk:
        one = prepare(parse_line(name, number, line), b"")
        if one.is_game and one.game_id not in _KNOWN:
            assert one.digest is not None
            one.replayed = replay_for_load(one.item, number, one.digest, run_id)
        one.item.record = None  # rows built or not needed: no need to send it back
        out.append(one)
    return out
