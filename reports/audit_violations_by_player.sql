-- name: audit_violations_by_player
-- Violations charged to the player at fault: the seat each violation names (who played, called, dealt or discarded).
--
-- The seat is the replay's own (violations.seat), the player the name in that
-- seat (violations.player); violations that name no seat are no player's.
with found as (
    select * from scoped_violations() where loaded and player is not null
),

final as (
    select
        player,
        count(*) as violations,
        count(distinct game_id) as games,
        string_agg(distinct code, ', ' order by code) as codes
    from found
    group by player
)

select * from final order by violations desc, player
