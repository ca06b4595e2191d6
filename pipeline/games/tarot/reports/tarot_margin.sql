-- name: tarot_margin
-- The distribution of the taker's margin (card points minus target), in bins of 5 points, by contract made or not.
with counted as (
    select * from tarot_counted_hands()
),

final as (
    select
        (floor(margin / 5) * 5)::integer as margin_from,
        (floor(margin / 5) * 5)::integer + 5 as margin_to,
        count(*) filter (where made) as made,
        count(*) filter (where not made) as down
    from counted
    group by all
    order by margin_from
)

select * from final
