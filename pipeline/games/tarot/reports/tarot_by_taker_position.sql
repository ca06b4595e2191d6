-- name: tarot_by_taker_position
-- Contracts made by where the taker sat from the dealer (first speaks first, the dealer last).
with counted as (
    select * from tarot_counted_hands()
),

positions as (
    select * from (values (1, 'first'), (2, 'second'), (3, 'third'), (4, 'dealer')) as p (rank, taker_position)
),

final as (
    select
        p.taker_position,
        count(h.game_id) filter (where h.made) as made_k,
        count(h.game_id) as made_n
    from positions as p
    left join counted as h on h.taker_position = p.taker_position
    group by p.rank, p.taker_position
    order by p.rank
)

select * from final
