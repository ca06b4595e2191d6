-- name: audit_violations_by_code
-- Violations found in the games in scope, by the spec's stable code.
with games_in_scope as (
    select game_id from scoped_games()
),

found as (
    select v.* from violations as v semi join games_in_scope as g using (game_id)
),

final as (
    select
        code,
        count(*) as violations,
        count(distinct game_id) as games,
        count(distinct (game_id, hand)) filter (where hand is not null) as hands
    from found
    group by code
)

select * from final order by violations desc, code
