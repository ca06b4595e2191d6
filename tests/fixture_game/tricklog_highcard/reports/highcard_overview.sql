-- name: highcard_overview
-- Counted high-card hands and the tricks the first player took.
with counted as (
    select h.*
    from highcard.hands as h
    semi join scoped_games() as g using (game_id)
    where h.complete and h.valid
),

final as (
    select
        count(distinct game_id) as games,
        count(*) as hands,
        coalesce(sum(won0), 0)::bigint as first_player_tricks
    from counted
)

select * from final
