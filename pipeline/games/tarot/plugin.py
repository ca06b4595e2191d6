"""French Tarot as a tricklog game plugin: what the core finds through the
``tricklog.games`` entry point ``tarot = "pipeline.games.tarot.plugin:GAME"``.

Everything heavy (the TarotClub importer, the warehouse models, the report,
the bots) is reached through a function, so that finding the installed games
stays cheap.

>>> GAME.record_format, [i.name for i in GAME.importers]
('tarot/1', ['tarotclub'])
"""

from __future__ import annotations

from typing import Any

from pipeline.games import Game, Importer, Simulator
from pipeline.games.tarot.codes import CODES
from pipeline.games.tarot.fingerprint import hand_fingerprints
from pipeline.games.tarot.replay import FORMAT, replay_game
from pipeline.sources import Reader
from pipeline.warehouse.tables import GameTables


def _tarotclub_reader() -> Reader:
    from pipeline.games.tarot.importers.tarotclub import read_tarotclub

    return read_tarotclub


def _looks_like_tarotclub(head: bytes) -> bool:
    from pipeline.games.tarot.importers.tarotclub import looks_like_tarotclub

    return looks_like_tarotclub(head)


def _tables() -> GameTables:
    from pipeline.games.tarot.tables import warehouse_tables

    return warehouse_tables()


def _report() -> Any:
    from pipeline.games.tarot.report import REPORT

    return REPORT


def _simulator() -> Simulator:
    from pipeline.games.tarot.simulate import preset_names, write_simulation

    return Simulator(write_simulation, preset_names(), "fft", "fft")


def _viewer() -> Any:
    from pipeline.games.tarot.viewer import studied_hands, viewer_hands
    from pipeline.report.viewer import Viewer

    return Viewer(viewer_hands, studied_hands)


GAME = Game(
    name="tarot",
    record_format=FORMAT,
    codes=CODES,
    replay=replay_game,
    importers=(
        Importer("tarotclub", _tarotclub_reader, _looks_like_tarotclub, shared_suffixes=(".json", ".jsonl")),
    ),
    tables=_tables,
    report=_report,
    simulator=_simulator,
    fingerprints=hand_fingerprints,
    viewer=_viewer,
)
