-- name: dataset
-- The data set: input files read, games, hands loaded and counted (each distinct hand once), copies, and the dates the games were played.
with games_in_scope as (
    select * from scoped_games()
),

hands_in_scope as (
    select h.* from all_hands() as h semi join games_in_scope as g using (game_id)
),

counted as (
    -- the hands every game's statistics count: played to the end, no violation names them, each distinct hand once
    select * from counted_hands()
),

copies as (
    select * from hand_copies()
),

files_read as (
    -- every file a load read (files whose every line was quarantined included); filtered: the games' files
    select distinct f.path as file
    from ingest_runs as r, unnest(r.files) as u(f)
    where not report_filtered()
    union
    select distinct file from games_in_scope
),

final as (
    select
        (select count(*) from files_read) as files,
        (select count(distinct file) from quarantine where not report_filtered()) as files_with_quarantined_lines,
        (select count(*) from quarantine where not report_filtered()) as lines_quarantined,
        (select count(*) from games_in_scope) as games_loaded,
        (select count(*) from games_in_scope where complete) as games_finished,
        (select count(*) from counted_games()) as games_counted,
        (select count(*) from game_copies()) as games_copies,
        (select count(*) from hands_in_scope) as hands_loaded,
        (select count(*) from hands_in_scope where thrown_in is not null) as hands_thrown_in,
        (select count(*) from hands_in_scope where not complete) as hands_abandoned,
        (select count(*) from hands_in_scope where not valid) as hands_with_violations,
        (select count(*) from copies where copy_no > 1) as hands_copies,
        (select count(*) from counted) as hands_counted,
        (select min(try_cast(started_at as timestamptz))::date from games_in_scope) as first_game,
        (select max(try_cast(started_at as timestamptz))::date from games_in_scope) as last_game
)

select * from final
