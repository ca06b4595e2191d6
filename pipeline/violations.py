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

from dataclasses import dataclass, replace
from typing import Any

#: The codes of the record specs, the contract with users' tools.  A finer
#: ``rule`` may be attached to a violation, but the code never changes meaning.
CODES: dict[str, str] = {
    "malformed_json": "the line is not a JSON object",
    "schema": "a field is missing or of the wrong type or range",
    "bad_card": "a token is not a card of this deck",
    "deck": "a card is dealt twice, or the counts are wrong",
    "duplicate_game": "the game_id was already seen",
    "dealer_rotation": "the deal did not pass clockwise",
    "bid_turn": "a call out of turn, or after bidding had ended",
    "bid_illegal": "a call the rules forbid",
    "discard": "discard missing, extra, or a card the dealer did not hold",
    "lead": "the wrong seat led a trick",
    "play_turn": "a seat played out of turn",
    "not_held": "a seat played a card it did not hold (or played twice)",
    "renege": "a seat failed to follow the led suit while able to",
    "sitting_out": "the partner of a lone player played",
    "trick_winner": "a claimed trick winner differs from the replay",
    "points": "claimed hand points differ from the replay",
    "score": "a claimed running or final score differs from the replay",
    "game_over": "hands recorded after a team reached the target",
    "unsupported": "the record uses a rule or encoding tricklog does not implement",
}


#: Codes of reading an input rather than of a record (no replay reports them).
READ_CODES: dict[str, str] = {
    "line_too_long": "the line is longer than --max-line-bytes (16 MiB by default), so it was not read whole",
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
