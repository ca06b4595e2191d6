-- name: tarot_by_bouts
-- Contracts made by the number of bouts the taker ended with (targets 56, 51, 41, 36).
with counted as (
    select * from tarot_counted_hands()
),

final as (
    select
        b.bouts,
        [56, 51, 41, 36][b.bouts + 1] as target,
        count(h.game_id) filter (where h.made) as made_k,
        count(h.game_id) as made_n
    from (select unnest(range(4)) as bouts) as b
    left join counted as h on h.bouts = b.bouts
    group by b.bouts
    order by b.bouts
)

select * from final
