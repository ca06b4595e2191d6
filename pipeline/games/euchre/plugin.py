"""Euchre as a tricklog game plugin: what the core finds through the
``tricklog.games`` entry point ``euchre = "pipeline.games.euchre.plugin:GAME"``.

Everything heavy (the importers, the warehouse models, the report, the bots)
is reached through a function, so that finding the installed games stays cheap.

>>> GAME.record_format, [i.name for i in GAME.importers]
('euchre/1', ['egn', 'openspiel'])
>>> GAME.tables().schema if GAME.tables else None
'euchre'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.games import ClearedReplay, Game, Importer, Replay, Simulator
from pipeline.games.euchre.codes import CODES
from pipeline.games.euchre.replay import replay_game
from pipeline.sources import Reader
from pipeline.warehouse.tables import ClearedLines, ClearedRows, GameTables


def _egn_reader() -> Reader:
    from pipeline.games.euchre.importers.egn import read_egn

    return read_egn


def _looks_like_egn(head: bytes) -> bool:
    from pipeline.games.euchre.importers.egn import looks_like_egn

    return looks_like_egn(head)


def _openspiel_reader() -> Reader:
    from pipeline.games.euchre.importers.openspiel import read_openspiel

    return read_openspiel


def _looks_like_openspiel(head: bytes) -> bool:
    from pipeline.games.euchre.importers.openspiel import looks_like_openspiel

    return looks_like_openspiel(head)


def _tables() -> GameTables:
    from pipeline.games.euchre.tables import warehouse_tables

    return warehouse_tables()


def _report() -> Any:
    from pipeline.games.euchre.report import REPORT

    return REPORT


def _fingerprints(replay: Any) -> list[str | None]:
    from pipeline.games.euchre.fingerprint import hand_fingerprints

    return hand_fingerprints(replay)


def _checked(records: Sequence[dict[str, Any]]) -> Any:
    """The fast path's verdicts on a batch of records (``fast.Checked``, or None)."""
    try:
        from pipeline.games.euchre.fast_scan import check_records
    except ImportError:  # numba missing or broken: the replay does it all
        return None
    return check_records(records)


def _fast_check(records: Sequence[dict[str, Any]]) -> list[ClearedReplay | None]:
    """Each cleared game with its hands' fingerprints, taken from the kernel's arrays."""
    from pipeline.games.euchre.fast_rows import cleared_replays

    checked = _checked(records)
    if checked is None:
        return [None] * len(records)
    return cleared_replays(checked, [records[i]["game_id"] for i in checked.records.tolist()], len(records))


def _fast_rows(records: Sequence[dict[str, Any]]) -> ClearedRows | None:
    from pipeline.games.euchre.fast_rows import cleared_rows

    checked = _checked(records)
    if checked is None or not len(checked.records):
        return None
    return cleared_rows(records, checked)


def _fast_replays(records: Sequence[dict[str, Any]]) -> list[Replay | None]:
    from pipeline.games.euchre.fast import fast_replays

    return list(fast_replays(records))


def _fast_line_rows(lines: Sequence[bytes]) -> ClearedLines | None:
    try:
        from pipeline.games.euchre.fast_scan import cleared_line_rows
    except ImportError:  # numba missing or broken: every line is parsed first
        return None
    return cleared_line_rows(lines)


def _fast_lines(lines: Sequence[bytes]) -> list[ClearedReplay | None]:
    try:
        from pipeline.games.euchre.fast_scan import cleared_lines
    except ImportError:  # numba missing or broken: every line is parsed and replayed
        return [None] * len(lines)
    return cleared_lines(lines)


def _simulator() -> Simulator:
    from pipeline.games.euchre.simulate import MIXED, preset_names, write_simulation

    return Simulator(write_simulation, preset_names(), "cards4net", MIXED)


def _analyze() -> Any:
    from pipeline.analyze import Analysis
    from pipeline.games.euchre.analysis import INPUTS_SQL, TODO_SQL, VERSION, analyze_hands, par_ddl

    return Analysis(
        "euchre",
        par_ddl(),
        TODO_SQL,
        INPUTS_SQL,
        analyze_hands,
        ("par_hands", "par_plays"),
        VERSION,
        _par_report,
    )


def _par_report() -> Any:
    from pipeline.games.euchre.par_report import REPORT

    return REPORT


def _viewer() -> Any:
    from pipeline.games.euchre.viewer import studied_hands, viewer_hands
    from pipeline.report.viewer import Viewer

    return Viewer(viewer_hands, studied_hands)


GAME = Game(
    name="euchre",
    record_format="euchre/1",
    codes=CODES,
    replay=replay_game,
    importers=(
        Importer("egn", _egn_reader, _looks_like_egn, (".egn", ".emn")),
        Importer("openspiel", _openspiel_reader, _looks_like_openspiel),
    ),
    tables=_tables,
    report=_report,
    simulator=_simulator,
    fingerprints=_fingerprints,
    fast_check=_fast_check,
    fast_replays=_fast_replays,
    fast_rows=_fast_rows,
    fast_lines=_fast_lines,
    fast_line_rows=_fast_line_rows,
    worker_modules=("pipeline.games.euchre.worker",),
    kernel_modules=tuple(
        f"pipeline.games.euchre.{kernel}"
        for kernel in ("fast_kernel", "fast_rows_kernel", "fast_scan_kernel")
    ),
    analyze=_analyze,
    viewer=_viewer,
)
