"""Euchre's violation codes: the euchre/1 record spec's list, the contract with users' tools.

Each code keeps its meaning forever; a finer ``rule`` may be attached to a
violation.  Examples of each message: docs/euchre-record.md.
"""

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
