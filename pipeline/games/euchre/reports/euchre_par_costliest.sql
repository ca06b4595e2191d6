-- name: euchre_par_costliest
-- The 20 analysed hands whose play gave most tricks away against double-dummy par, each linked to the hand viewer.
with lost as (
    select q.game_id, q.hand_no, sum(q.loss) as tricks_lost, count(*) filter (where q.loss > 0) as mistakes
    from euchre.par_plays as q
    semi join euchre_par_counted() as p using (game_id, hand_no)
    group by all
    having sum(q.loss) > 0
),

final as (
    select
        l.game_id,
        l.hand_no,
        l.tricks_lost,
        l.mistakes,
        p.par_maker_tricks,
        h.maker_tricks,
        'hand:' || l.game_id || '/' || l.hand_no as viewer
    from lost as l
    join euchre.par_hands as p using (game_id, hand_no)
    join euchre.hands as h using (game_id, hand_no)
    order by l.tricks_lost desc, l.game_id, l.hand_no
    limit 20
)

select * from final
