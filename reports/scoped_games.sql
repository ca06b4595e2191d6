-- name: scoped_games
-- Macro: the loaded games a report covers, kept by source and by player (an empty list keeps all).
--
-- Usage: select * from scoped_games([]::varchar[], ['ana']).
-- source_filter: sources to keep; player_filter: keep games where one of these names sat.
create or replace temp macro scoped_games(source_filter, player_filter) as table
with loaded as (
    select * from games
),

final as (
    select *
    from loaded
    where (len(coalesce(source_filter::varchar[], [])) = 0
           or list_contains(source_filter::varchar[], loaded.source))
      and (len(coalesce(player_filter::varchar[], [])) = 0
           or len(list_intersect(player_filter::varchar[], loaded.players)) > 0)
)

select * from final
