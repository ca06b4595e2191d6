-- name: euchre_par_counted
-- Macro: the hands analysed at double-dummy par (solved, in scope), each distinct hand once, with its par_hands columns.
--
-- Usage: select * from euchre_par_counted().  Copies of a hand (the same
-- fingerprint: the same recorded play) are all analysed; the study counts one
-- of them as the other studies do (counted_hands()): by preference (the copy in
-- the game that records the most hands, then names the most players, then the
-- first in load order).  Hands with no fingerprint are never matched.
create or replace temp macro euchre_par_counted() as table
with analysed as (
    select p.*, h.fingerprint, h.preference
    from euchre.par_hands as p
    join scoped_hands() as h using (game_id, hand_no)
    where p.solved and h.game = 'euchre'
),

final as (
    select * exclude (fingerprint, preference)
    from analysed
    qualify row_number() over (
        partition by hand_key(fingerprint, game_id, hand_no) order by preference
    ) = 1
)

select * from final
