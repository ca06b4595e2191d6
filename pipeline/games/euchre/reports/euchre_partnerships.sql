-- name: euchre_partnerships
-- Partnerships (the two names in alphabetical order): counted hands played together and won (their team scored), complete games together and won.
-- The hands are tallied by game first (euchre_hands_by_game()) and the pairs
-- named once a game.
with hands_by_game as (
    select * from euchre_hands_by_game()
),

teams as (
    select unnest([0, 1]) as team
),

sides as (
    select
        list_sort([g.players[t.team + 1], g.players[t.team + 3]]) as pair,
        h.game_id,
        h.hands,
        if(t.team = 0, h.team0_won, h.team1_won) as hands_won,
        h.distinct_game,
        g.complete and g.winner_team is not null as decided,
        g.winner_team = t.team as won
    from hands_by_game as h
    join euchre_scoped_games() as g using (game_id)
    cross join teams as t
),

per_pair as (
    select
        pair,
        count(distinct game_id) filter (where distinct_game) as games,
        sum(hands)::bigint as hands,
        sum(hands_won)::bigint as hands_won_k,
        sum(hands)::bigint as hands_won_n,
        count(*) filter (where distinct_game and decided and won) as games_won_k,
        count(*) filter (where distinct_game and decided) as games_won_n
    from sides
    group by pair
),

final as (
    select
        pair[1] as player_a,
        pair[2] as player_b,
        games,
        hands,
        hands_won_k,
        hands_won_n,
        games_won_k,
        games_won_n
    from per_pair
    where pair[1] is not null and pair[2] is not null and pair[1] <> pair[2]
)

select * from final order by hands desc, player_a, player_b
