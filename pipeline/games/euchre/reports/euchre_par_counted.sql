-- name: euchre_par_counted
-- Macro: the hands analysed at double-dummy par (solved, in scope), each distinct hand once, with its par_hands columns.
--
-- Usage: select * from euchre_par_counted().  Copies of a hand (the same
-- fingerprint: the same recorded play) are all analysed; the study counts the
-- first of them in load order, as the other studies count the first copy of
-- a hand (counted_hands()).  Hands with no fingerprint are never matched.
create or replace temp macro euchre_par_counted() as table
with analysed as (
    select p.*, h.fingerprint, h.load_rank
    from euchre.par_hands as p
    join scoped_hands() as h using (game_id, hand_no)
    where p.solved and h.game = 'euchre'
),

final as (
    select * exclude (fingerprint, load_rank)
    from analysed
    qualify row_number() over (
        partition by coalesce(fingerprint, game_id || '#' || hand_no::varchar)
        order by load_rank, hand_no
    ) = 1
)

select * from final
