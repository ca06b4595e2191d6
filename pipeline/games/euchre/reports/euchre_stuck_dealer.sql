-- name: euchre_stuck_dealer
-- Calls by the dealer in round two under stick-the-dealer (forced after seven passes) against every other call.
-- The rules are read once a game, not once a hand.
with sticks as (
    select game_id, coalesce((rules ->> 'stick_the_dealer')::boolean, false) as stick_the_dealer
    from euchre_scoped_games()
),

calls as (
    select
        c.round = 2 and c.maker_seat = c.dealer and s.stick_the_dealer as stuck,
        c.euchred,
        c.maker_tricks
    from euchre_counted_hands() as c
    join sticks as s using (game_id)
),

per_kind as (
    select
        stuck,
        count(*) filter (where euchred) as euchred_k,
        count(*) as euchred_n,
        avg(maker_tricks) as mean_maker_tricks
    from calls
    group by stuck
),

kinds as (
    select * from (values (true, 'stuck dealer'), (false, 'every other call')) as t(stuck, call)
),

final as (
    select
        k.call,
        coalesce(p.euchred_k, 0) as euchred_k,
        coalesce(p.euchred_n, 0) as euchred_n,
        p.mean_maker_tricks
    from kinds as k
    left join per_kind as p using (stuck)
)

select * from final order by call desc
