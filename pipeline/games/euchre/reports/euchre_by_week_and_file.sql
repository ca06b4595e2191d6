-- name: euchre_by_week_and_file
-- Volume and results by ISO week (of the record's started_at, in UTC; "no date" without one) and by input file: games and counted hands, euchre rate, lone attempts, the dealer's edge.
-- A game's week is read once a game, not once a hand.
with weeks as (
    select
        game_id,
        coalesce(strftime(try_cast(started_at as timestamptz) at time zone 'UTC', '%G-W%V'), 'no date') as week
    from euchre_scoped_games()
),

counted as (
    select c.*, w.week
    from euchre_counted_hands() as c
    join weeks as w using (game_id)
),

final as (
    select
        if(grouping(week) = 0, 'week', 'file') as cut,
        if(grouping(week) = 0, week, file) as period,
        count(distinct game_id) filter (where distinct_game) as games,
        count(*) as hands,
        count(*) filter (where euchred) as euchred_k,
        count(*) as euchred_n,
        count(*) filter (where alone) as lone_attempts,
        avg(dealer_team_points - other_team_points) as edge_mean,
        stddev_samp(dealer_team_points - other_team_points) as edge_sd,
        count(*) as edge_count
    from counted
    group by grouping sets ((week), (file))
)

select * from final order by cut desc, period
