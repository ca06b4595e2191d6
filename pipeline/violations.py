"""Violations: what the replay finds wrong, as data.

A violation is a frozen record with a stable ``code`` from the record spec, the
game and hand it belongs to, a JSON path to the offending element and one
sentence a person can act on.  The replay yields them and goes on; nothing here
raises.

>>> v = Violation("renege", "seat 1 played QS on a heart lead while holding 9H",
...               game_id="g1", hand=3, path="hands[3].tricks[2][1]")
>>> v.code, v.hand
('renege', 3)
>>> v.to_json()["path"]
'hands[3].tricks[2][1]'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Any

#: The codes the core itself reports, whatever the game: a line that is not a
#: record (or too long to read), a record no game can read, a repeated game.  Each game adds its own
#: (``Game.codes``; all of them: ``pipeline.games.all_codes``).  A finer ``rule``
#: may be attached to a violation, but a code never changes meaning.
CORE_CODES: dict[str, str] = {
    "malformed_json": "the line is not a JSON object",
    "schema": "a field is missing or of the wrong type or range, or no installed game reads the format",
    "duplicate_game": "the game_id was already seen, or the game is a copy of another (the same hands, in order)",
    "duplicate_hand": "the hand is a copy of a hand of another game (the same recorded play)",
    "unsupported": "the record uses a rule or encoding tricklog does not implement",
    "line_too_long": "the line is longer than --max-line-bytes (16 MiB by default), so it was not read whole",
    "document_too_long": (
        "the input, read as one document (an EGN game, a TarotClub deal, a serialized OpenSpiel state), "
        "is longer than --max-line-bytes (16 MiB by default), so it was not read whole"
    ),
}


@dataclass(frozen=True, slots=True)
class Violation:
    """One problem found in one record."""

    code: str
    message: str
    game_id: str | None = None
    hand: int | None = None
    path: str = ""
    file: str | None = None
    line: int | None = None
    rule: str | None = None
    #: The trick (0-based) and the seat at fault, where they apply: reports
    #: attribute a violation by these, never by parsing ``path`` or ``message``.
    trick: int | None = None
    seat: int | None = None

    def at(self, *, file: str | None, line: int | None) -> Violation:
        """The same violation, located in an input file."""
        return replace(self, file=file, line=line)

    def to_json(self) -> dict[str, Any]:
        """The object written by ``validate --violations`` (one per line)."""
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "file": self.file,
            "line": self.line,
            "hand": self.hand,
            "trick": self.trick,
            "seat": self.seat,
            "path": self.path,
            "code": self.code,
            "message": self.message,
        }
        if self.rule is not None:
            out["rule"] = self.rule
        return out


class TricklogError(Exception):
    """A user-facing error: bad usage, unreadable input, a refused query.

    The CLI prints ``str(error)`` on one line and exits with status 2.
    """


def failure(error: OSError) -> str:
    """What went wrong, in the system's words for its error number, which Arrow's
    and Rust's errors give only inside their text.

    >>> failure(OSError("Error writing bytes to file. Detail: [errno 28] No space left on device"))
    'No space left on device'
    >>> failure(OSError("File too large (os error 27)")), failure(OSError("odd"))
    ('File too large', 'odd')
    """
    found = re.search(r"\[errno (\d+)\]|\(os error (\d+)\)", str(error))
    code = error.errno or (int(found.group(1) or found.group(2)) if found else None)
    return os.strerror(code) if code else str(error)
