-- name: audit_copies
-- Hands recorded more than once: each later copy with its file, game and hand, and where it was first seen; counted once.
--
-- A copy has the fingerprint (the recorded play) of a hand loaded before it:
-- a file and its annotated copy, a re-render, a fragment of a game, the same
-- game under another id or format.  Whole-game copies show one row per hand.
with copies as (
    select * from hand_copies() where copy_no > 1
),

final as (
    select
        file,
        game_id,
        hand_no as hand,
        first_file as first_seen_file,
        first_game_id as first_seen_game,
        first_hand_no as first_seen_hand,
        copies as recorded
    from copies
)

select * from final order by file, game_id, hand
