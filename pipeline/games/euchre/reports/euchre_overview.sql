-- name: euchre_overview
-- Games and hands counted, how often the makers were euchred (took fewer than 3 tricks), and the games counted that were joined part way or are unfinished.
with counted as (
    select * from euchre_counted_hands()
),

games_counted as (
    select g.* from euchre_scoped_games() as g semi join counted_games() as c using (game_id)
),

final as (
    select
        (select count(*) from games_counted) as games,
        (select count(*) from games_counted where complete) as complete_games,
        (select count(*) from games_counted where not from_start) as games_part_way,
        (select count(*) from games_counted where not complete) as games_unfinished,
        count(*) as hands,
        count(*) filter (where euchred) as euchred_k,
        count(*) as euchred_n
    from counted
)

select * from final
