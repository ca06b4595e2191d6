-- name: audit_violations_by_player
-- Violations charged to the person at fault: the seat each violation names (who played, called, dealt or discarded), under the canonical name.
--
-- The seat is the replay's own (violations.seat); the person is the canonical
-- name in that seat (scoped_games().players: aliases merged, placeholders such
-- as North or p0 are no one); violations that name no seat, or a placeholder's,
-- are no person's.
with found as (
    select *, players[seat + 1] as person
    from scoped_violations()
    where loaded and seat is not null
),

final as (
    select
        person as player,
        count(*) as violations,
        count(distinct game_id) as games,
        string_agg(distinct code, ', ' order by code) as codes
    from found
    where person is not null
    group by person
)

select * from final order by violations desc, player
