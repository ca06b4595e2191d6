-- name: euchre_stuck_dealer
-- Calls by the dealer in round two under stick-the-dealer (forced after seven passes) against every other call.
with counted as (
    select
        *,
        round = 2 and maker_seat = dealer and coalesce((rules ->> 'stick_the_dealer')::boolean, false)
            as stuck
    from counted_hands()
),

final as (
    select
        if(stuck, 'stuck dealer', 'every other call') as call,
        count(*) filter (where euchred) as euchred_k,
        count(*) as euchred_n,
        avg(maker_tricks) as mean_maker_tricks
    from counted
    group by stuck
)

select * from final order by call desc
