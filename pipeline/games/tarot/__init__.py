"""Four-player French Tarot (FFT rules): the tarot/1 record, replayed against its rules.

The entry point is :func:`pipeline.games.tarot.replay.replay_game` (record ->
:class:`~pipeline.games.tarot.state.TarotReplay`, never raising); the record
format is ``"tarot/1"``.  See docs/tarot-record.md.
"""

FORMAT = "tarot/1"
