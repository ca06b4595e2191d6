"""Converting other formats (EGN, OpenSpiel, TarotClub) to their game's JSON Lines
(euchre/1, tarot/1).

The records written are exactly what ``validate`` and ``load`` replay for
those inputs; what an importer found in the original that the record cannot
say (a rule it has no option for, a history's extra actions) goes with it in
``origin.findings``, so the converted file validates as the original did.  An
item that could not become a record is counted and its problems returned,
never silently dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pipeline.atomic import atomic_file, refuse_overwriting
from pipeline.games import game_for_record, unclaimed
from pipeline.record import as_finding
from pipeline.sources import expand_inputs
from pipeline.validate import check_format, read_inputs
from pipeline.violations import Violation


@dataclass(slots=True)
class ConversionResult:
    records: int = 0
    #: Items that could not become a record at all (their problems are in ``problems``).
    skipped: int = 0
    problems: list[Violation] = field(default_factory=list)


def convert(paths: Sequence[str], fmt: str, output: Path) -> ConversionResult:
    """Write every game of the inputs as one line of its game's record (euchre/1,
    tarot/1) in ``output``; an item that is no game's record is left out, said."""
    check_format(fmt)
    refuse_overwriting(output, expand_inputs(paths, fmt))
    result = ConversionResult()
    with atomic_file(output) as out:  # written aside, renamed into place when whole
        for item in read_inputs(paths, fmt):
            result.problems.extend(v.at(file=item.file, line=item.line) for v in item.violations)
            if item.record is None:
                result.skipped += 1
                continue
            if game_for_record(item.record) is None:  # a line of JSON, but no game's record
                result.problems.append(unclaimed(item.record).at(file=item.file, line=item.line))
                result.skipped += 1
                continue
            out.write(orjson.dumps(with_findings(item.record, item.violations)) + b"\n")
            result.records += 1
    return result


def with_findings(record: dict[str, Any], found: list[Violation]) -> dict[str, Any]:
    """The record with what its importer found kept in ``origin.findings`` (none: as it is)."""
    if not found:
        return record
    origin = record.get("origin")
    kept = dict(origin) if isinstance(origin, dict) else {}
    return {**record, "origin": {**kept, "findings": [as_finding(v) for v in found]}}
