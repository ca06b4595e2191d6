-- name: audit_violations_by_file
-- Violations and quarantined lines per input file, beside the games it gave.
with games_in_scope as (
    select game_id, file from scoped_games()
),

found as (
    select * from scoped_violations()
),

per_file_games as (
    select file, count(*) as games from games_in_scope group by file
),

per_file_violations as (
    select
        file,
        count(*) as violations,
        count(distinct game_id) filter (where loaded) as games_with_violations
    from found group by file
),

per_file_quarantine as (
    select file, count(*) as quarantined
    from quarantine
    where not report_filtered()
    group by file
),

final as (
    select
        file,
        coalesce(g.games, 0) as games,
        coalesce(v.games_with_violations, 0) as games_with_violations,
        coalesce(v.violations, 0) as violations,
        coalesce(q.quarantined, 0) as quarantined_lines
    from per_file_games as g
    full join per_file_violations as v using (file)
    full join per_file_quarantine as q using (file)
)

select * from final order by violations desc, file
