-- name: euchre_rated_games
-- The complete games the ratings are computed from, in the order they are rated: each team's two players (canonical names, sorted) and the winning team.
--
-- A game is rated when it is complete (a team reached the target), is counted
-- as a game (counted_games(): a game recorded twice is rated once) and four different
-- people sat in it (no placeholder: a seat that is no one cannot be rated).
-- Order: the record's started_at (as an instant) where it has one, then load
-- order; games without a date come after the dated ones.
with counted as (
    select game_id from counted_games() where game = 'euchre'
),

rated as (
    select
        g.game_id,
        g.started_at,
        g.load_rank,
        list_sort([g.players[1], g.players[3]]) as team0,
        list_sort([g.players[2], g.players[4]]) as team1,
        g.winner_team
    from euchre_scoped_games() as g
    semi join counted as c using (game_id)
    where g.complete
      and g.winner_team is not null
      and len(g.players) = 4
      and len(list_distinct(g.players)) = 4
),

final as (
    select
        row_number() over (order by try_cast(started_at as timestamptz) nulls last, load_rank) as rating_order,
        game_id,
        started_at,
        team0[1] as team0_a,
        team0[2] as team0_b,
        team1[1] as team1_a,
        team1[2] as team1_b,
        winner_team
    from rated
)

select * from final order by rating_order
