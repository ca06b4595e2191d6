-- name: scoped_games
-- Macro: the loaded games a report covers, with players under their canonical names, kept by source and by player (unset or empty keeps all).
--
-- Usage: select * from scoped_games().  The filters are session variables the
-- report runner sets from bound values (set variable report_players = ['ana']):
-- report_sources keeps games of those sources, report_players games where one
-- of those names sat (canonical or as written).  report_filtered() tells whether a filter is set (then
-- quarantined lines, which belong to no game, are out of scope).
--
-- players: each seat's canonical name (player_identity: the warehouse's
-- player_names and the report's --players file; a name is read tidied,
-- tidy_name(): composed, without blanks or invisible characters at its ends),
-- null for a placeholder (the built-in North, East, South, West, Player0-3,
-- p0-p3, seat 0-3, the empty name, and those the files name, aliases of them
-- too); raw_players: as recorded.  load_rank: the
-- order the games were loaded in (run, the run's file order, line), which
-- decides the first of several copies of a hand.
create or replace temp macro report_filtered() as
    len(coalesce(getvariable('report_sources')::varchar[], [])) > 0
    or len(coalesce(getvariable('report_players')::varchar[], [])) > 0;

create or replace temp macro scoped_games() as table
with loaded as (
    select * from games
),

seats as (
    select game_id, unnest(players) as recorded, generate_subscripts(players, 1) as seat from loaded
),

tidied as (
    select game_id, seat, tidy_name(recorded) as name from seats
),

canonical as (
    select
        s.game_id,
        list(
            case when builtin_placeholder(s.name) or coalesce(i.placeholder, false) then null
                 else coalesce(i.canonical, s.name) end
            order by s.seat
        ) as players
    from tidied as s
    left join player_identity as i on i.name = s.name
    group by s.game_id
),

ranked as (
    select
        l.game_id,
        row_number() over (
            order by l.run_id, list_position(list_transform(r.files, lambda f: f.path), l.file), l.line, l.game_id
        ) as load_rank
    from loaded as l
    left join ingest_runs as r using (run_id)
),

filters as (
    select
        coalesce(getvariable('report_sources')::varchar[], []) as source_filter,
        coalesce(getvariable('report_players')::varchar[], []) as player_filter
),

final as (
    select
        loaded.* exclude (players),
        coalesce(c.players, []::varchar[]) as players,
        loaded.players as raw_players,
        ranked.load_rank
    from loaded
    left join canonical as c using (game_id)
    join ranked using (game_id)
    cross join filters as f
    where (len(f.source_filter) = 0 or list_contains(f.source_filter, loaded.source))
      and (len(f.player_filter) = 0
           or len(list_intersect(f.player_filter, list_concat(loaded.players, c.players))) > 0)
)

select * from final
