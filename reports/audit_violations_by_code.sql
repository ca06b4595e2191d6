-- name: audit_violations_by_code
-- Violations found, by the spec's stable code: in loaded games and on quarantined lines.
with found as (
    select * from scoped_violations()
),

final as (
    select
        code,
        count(*) as violations,
        count(*) filter (where loaded) as in_loaded_games,
        count(*) filter (where not loaded) as on_quarantined_lines,
        count(distinct game_id) filter (where loaded) as games,
        count(distinct (game_id, hand)) filter (where loaded and hand is not null) as hands
    from found
    group by code
)

select * from final order by violations desc, code
