-- name: euchre_stuck_dealer
-- Calls by the dealer in round two under stick-the-dealer (forced after seven passes) against every other call.
with counted as (
    select
        *,
        round = 2 and maker_seat = dealer and coalesce((rules ->> 'stick_the_dealer')::boolean, false)
            as stuck
    from euchre_counted_hands()
),

kinds as (
    select * from (values (true, 'stuck dealer'), (false, 'every other call')) as t(stuck, call)
),

final as (
    select
        k.call,
        count(c.game_id) filter (where c.euchred) as euchred_k,
        count(c.game_id) as euchred_n,
        avg(c.maker_tricks) as mean_maker_tricks
    from kinds as k
    left join counted as c using (stuck)
    group by k.stuck, k.call
)

select * from final order by call desc
