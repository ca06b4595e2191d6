-- name: tarot_per_player
-- Per player (canonical names; placeholders are no one): hands, contracts taken by kind and made, and the mean score as taker, in defence and over all hands.
with counted as (
    select * from tarot_counted_hands()
),

seated as (
    select
        c.players[s.seat + 1] as player,
        s.seat = c.taker as taking,
        c.contract,
        c.made,
        c.scores[s.seat + 1] as score
    from counted as c
    cross join (select unnest(range(4)) as seat) as s
),

final as (
    select
        player,
        count(*) as hands,
        count(*) filter (where taking) as taken,
        count(*) filter (where taking and contract = 'prise') as prise,
        count(*) filter (where taking and contract = 'garde') as garde,
        count(*) filter (where taking and contract = 'garde_sans') as garde_sans,
        count(*) filter (where taking and contract = 'garde_contre') as garde_contre,
        count(*) filter (where taking and made) as made_k,
        count(*) filter (where taking) as made_n,
        avg(score) filter (where taking) as taker_score_mean,
        stddev_samp(score) filter (where taking) as taker_score_sd,
        count(score) filter (where taking) as taker_score_count,
        count(*) filter (where not taking) as defended,
        count(*) filter (where not taking and not made) as defence_won_k,
        count(*) filter (where not taking) as defence_won_n,
        avg(score) filter (where not taking) as defence_score_mean,
        stddev_samp(score) filter (where not taking) as defence_score_sd,
        count(score) filter (where not taking) as defence_score_count,
        avg(score) as score_mean,
        stddev_samp(score) as score_sd,
        count(score) as score_count
    from seated
    where player is not null
    group by player
    order by hands desc, player
)

select * from final
