-- name: scoped_games
-- Macro: the loaded games a report covers, kept by source and by player (unset or empty keeps all).
--
-- Usage: select * from scoped_games().  The filters are session variables the
-- report runner sets from bound values (set variable report_players = ['ana']):
-- report_sources keeps games of those sources, report_players games where one
-- of those names sat.  report_filtered() tells whether a filter is set (then
-- quarantined lines, which belong to no game, are out of scope).
create or replace temp macro report_filtered() as
    len(coalesce(getvariable('report_sources')::varchar[], [])) > 0
    or len(coalesce(getvariable('report_players')::varchar[], [])) > 0;

create or replace temp macro scoped_games() as table
with loaded as (
    select * from games
),

filters as (
    select
        coalesce(getvariable('report_sources')::varchar[], []) as source_filter,
        coalesce(getvariable('report_players')::varchar[], []) as player_filter
),

final as (
    select loaded.*
    from loaded
    cross join filters as f
    where (len(f.source_filter) = 0 or list_contains(f.source_filter, loaded.source))
      and (len(f.player_filter) = 0 or len(list_intersect(f.player_filter, loaded.players)) > 0)
)

select * from final
