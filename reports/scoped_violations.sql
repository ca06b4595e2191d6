-- name: scoped_violations
-- Macro: the violations the audit shows: those of the games in scope, plus (with no filter set) those of quarantined lines.
--
-- Usage: select * from scoped_violations().  A violation belongs to a loaded game
-- when its game_id, file and line are the game's; the others were found on lines
-- kept out of the warehouse (malformed, unusable, a repeated game_id): loaded = false.
create or replace temp macro scoped_violations() as table
with games_in_scope as (
    select game_id, file, line, players from scoped_games()
),

of_games as (
    select v.*, true as loaded, g.players
    from violations as v
    join games_in_scope as g
        on g.game_id = v.game_id and g.file is not distinct from v.file and g.line is not distinct from v.line
),

of_quarantined_lines as (
    select v.*, false as loaded, null::varchar[] as players
    from violations as v
    where not report_filtered()
      and not exists (
          select 1 from games as g
          where g.game_id = v.game_id and g.file is not distinct from v.file and g.line is not distinct from v.line
      )
),

final as (
    select * from of_games
    union all
    select * from of_quarantined_lines
)

select * from final
