"""The violation codes of ``tarot/1``: the contract with users' tools.

The first fourteen mean what they mean in ``euchre/1``; the last ones are
Tarot's own.  A finer ``rule`` may be attached to a violation (``petit_sec``,
``excuse_shown``, ...) but a code never changes meaning.

>>> len(CODES), "must_overtrump" in CODES
(21, True)
"""

from __future__ import annotations

CODES: dict[str, str] = {
    "malformed_json": "the line is not a JSON object",
    "schema": "a field is missing or of the wrong type or range",
    "bad_card": "a token is not a card of the 78-card Tarot deck",
    "deck": "a card is dealt twice or not at all, or a hand, the chien or a trick has the wrong count",
    "duplicate_game": "the game_id was already seen",
    "dealer_rotation": "the deal did not pass to the next seat",
    "bid_turn": "a call out of turn, a seat calling twice, or a call missing",
    "bid_illegal": "a call not higher than an earlier one, an unknown call, or a throw-in the deal does not allow",
    "lead": "the wrong seat led a trick",
    "play_turn": "a seat played out of turn, or twice to one trick",
    "not_held": "a seat played a card it did not hold (or played it twice)",
    "trick_winner": "a claimed trick winner differs from the replay",
    "points": "claimed taker points, bouts or result differ from the replay (or hold a half point)",
    "score": "a claimed hand score or running total differs from the replay",
    "renege": "a seat did not follow the led suit while able to",
    "must_trump": "a seat void in the led suit did not trump while holding a trump",
    "must_overtrump": "a seat played a trump lower than one in the trick while holding a higher one",
    "ecart": "a King, a bout or an avoidable trump discarded, a discarded trump not shown, or a wrong écart",
    "poignee": "a poignée of the wrong size, with trumps not held, or shown after the first card",
    "chelem": "a seat announced a chelem and did not lead the first trick",
    "unsupported": "the record uses a rule or encoding tricklog does not implement",
}
