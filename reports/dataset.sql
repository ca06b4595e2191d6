-- name: dataset
-- The data set: input files, games, hands loaded and counted, and the dates the games were played.
with games_in_scope as (
    select * from scoped_games()
),

hands_in_scope as (
    select h.* from all_hands() as h semi join games_in_scope as g using (game_id)
),

counted as (
    -- the hands every game's statistics count: played to the end, no violation names them
    select * from hands_in_scope where complete and valid and thrown_in is null
),

final as (
    select
        (select count(distinct file) from games_in_scope) as files,
        (select count(*) from games_in_scope) as games_loaded,
        (select count(*) from games_in_scope where complete) as games_finished,
        (select count(distinct game_id) from counted) as games_counted,
        (select count(*) from hands_in_scope) as hands_loaded,
        (select count(*) from hands_in_scope where thrown_in is not null) as hands_thrown_in,
        (select count(*) from hands_in_scope where not complete) as hands_abandoned,
        (select count(*) from hands_in_scope where not valid) as hands_with_violations,
        (select count(*) from counted) as hands_counted,
        (select min(try_cast(started_at as timestamptz))::date from games_in_scope) as first_game,
        (select max(try_cast(started_at as timestamptz))::date from games_in_scope) as last_game
)

select * from final
