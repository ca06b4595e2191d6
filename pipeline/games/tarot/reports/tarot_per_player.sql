-- name: tarot_per_player
-- Per player: hands played, contracts taken and made, and the mean score per hand (all seats, 3X as taker, -X in defence).
with counted as (
    select * from tarot_counted_hands()
),

seated as (
    select c.players[s.seat + 1] as player, s.seat, c.taker, c.made, c.scores[s.seat + 1] as score
    from counted as c
    cross join (select unnest(range(4)) as seat) as s
),

final as (
    select
        player,
        count(*) as hands,
        count(*) filter (where seat = taker) as taken,
        count(*) filter (where seat = taker and made) as made_k,
        count(*) filter (where seat = taker) as made_n,
        avg(score) as score_mean,
        stddev_samp(score) as score_sd,
        count(score) as score_count
    from seated
    group by player
    order by hands desc, player
)

select * from final
