-- name: euchre_partnerships
-- Partnerships (the two names in alphabetical order): counted hands played together and won (their team scored), complete games together and won.
with counted as (
    select * from euchre_counted_hands()
),

teams as (
    select unnest([0, 1]) as team
),

hand_sides as (
    select
        list_sort([c.players[t.team + 1], c.players[t.team + 3]]) as pair,
        c.game_id,
        if(t.team = 0, c.team0_points - c.team1_points, c.team1_points - c.team0_points) > 0 as won
    from counted as c
    cross join teams as t
),

game_sides as (
    select
        list_sort([g.players[t.team + 1], g.players[t.team + 3]]) as pair,
        g.winner_team = t.team as won
    from euchre_scoped_games() as g
    semi join (select distinct game_id from counted) as c using (game_id)
    cross join teams as t
    where g.complete and g.winner_team is not null
),

per_hand as (
    select
        pair,
        count(distinct game_id) as games,
        count(*) as hands,
        count(*) filter (where won) as hands_won_k,
        count(*) as hands_won_n
    from hand_sides
    group by pair
),

per_game as (
    select pair, count(*) filter (where won) as games_won_k, count(*) as games_won_n
    from game_sides
    group by pair
),

final as (
    select
        h.pair[1] as player_a,
        h.pair[2] as player_b,
        h.games,
        h.hands,
        h.hands_won_k,
        h.hands_won_n,
        coalesce(g.games_won_k, 0) as games_won_k,
        coalesce(g.games_won_n, 0) as games_won_n
    from per_hand as h
    left join per_game as g using (pair)
    where h.pair[1] is not null and h.pair[2] is not null and h.pair[1] <> h.pair[2]
)

select * from final order by hands desc, player_a, player_b
