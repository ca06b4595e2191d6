"""Preparing a load on several processes: workers parse JSON Lines, hash and
replay each game and build its rows; the loader routes them in input order
(already present, quarantine or games) exactly as it does on its own."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from pipeline.parallel import in_workers, line_chunks
from pipeline.sources import parse_line
from pipeline.warehouse.prepare import Prepared, prepare, replay_for_load

#: Game ids the warehouse held when the workers were started: their lines are
#: only hashed, not replayed (the loader counts them already present, or
#: quarantines them).  Each worker gets it once, when it starts.
_KNOWN: frozenset[str] = frozenset()


def _know(known: frozenset[str]) -> None:
    global _KNOWN
    _KNOWN = known


def prepare_in_workers(name: str, path: str, run_id: int, jobs: int, known: set[str]) -> Iterator[Prepared]:
    """Each line of the input at ``path`` (given as ``name``) prepared by ``jobs`` workers, in order.

    The workers are not forked from the loader, which holds an open DuckDB
    connection: they start from a fresh server process (``forkserver``, or
    ``spawn`` where there is none)."""
    work = partial(_prepare_lines, name, run_id)
    chunks = line_chunks(path)
    for chunk, prepared in in_workers(chunks, work, jobs, fresh=True, setup=(_know, (frozenset(known),))):
        for (_, raw), one in zip(chunk, prepared, strict=True):
            one.raw = raw
            yield one


def _prepare_lines(name: str, run_id: int, chunk: list[tuple[int, bytes]]) -> list[Prepared]:
    """In a worker: each line parsed, hashed and replayed, its rows built (raw text left
    out: the loader still holds it)."""
    out = []
    for number, line in chunk:
        one = prepare(parse_line(name, number, line), b"")
        if one.is_game and one.game_id not in _KNOWN:
            assert one.digest is not None
            one.replayed = replay_for_load(one.item, number, one.digest, run_id)
        one.item.record = None  # rows built or not needed: no need to send it back
        out.append(one)
    return out
