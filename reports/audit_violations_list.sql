-- name: audit_violations_list
-- The first violations of the games in scope, one row each (at most 200), with a link to the hand in the viewer (viewer.html, beside this page).
with found as (
    select * from scoped_violations() where loaded
),

final as (
    select
        game_id,
        hand,
        trick,
        seat,
        player,
        code,
        message,
        case when hand is not null then 'hand:' || game_id || '/' || hand end as viewer
    from found
    order by game_id, hand nulls first, trick nulls first, seat nulls first, code
    limit 200
)

select * from final
