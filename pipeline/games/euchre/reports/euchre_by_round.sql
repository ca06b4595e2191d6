-- name: euchre_by_round
-- Euchre rate by bidding round: 1 = the upcard was ordered up, 2 = trump was named after it was turned down.
with counted as (
    select * from euchre_counted_hands()
),

rounds as (
    select unnest([1, 2]) as round
),

final as (
    select
        r.round,
        count(c.game_id) filter (where c.euchred) as euchred_k,
        count(c.game_id) as euchred_n,
        avg(c.maker_tricks) as mean_maker_tricks
    from rounds as r
    left join counted as c using (round)
    group by r.round
)

select * from final order by round
