-- name: euchre_par_accuracy
-- Play accuracy per player (by seat name): tricks each card gave away against double-dummy par, and cards that lost any, per hand; most accurate first.
with plays as (
    select g.players[q.seat + 1] as player, q.game_id, q.hand_no, q.loss
    from euchre.par_plays as q
    join scoped_games() as g using (game_id)
    semi join euchre_par_counted() as p using (game_id, hand_no)
),

final as (
    select
        player,
        count(distinct (game_id, hand_no)) as hands,
        count(*) as cards,
        avg(loss) as loss_per_card_mean,
        stddev_samp(loss) as loss_per_card_sd,
        count(*) as loss_per_card_count,
        count(*) filter (where loss > 0) as mistakes,
        count(*) filter (where loss > 0) / count(distinct (game_id, hand_no)) as mistakes_per_hand,
        sum(loss) as tricks_lost
    from plays
    group by player
)

select * from final order by loss_per_card_mean, player
