-- name: euchre_head_to_head
-- Partnership against partnership: counted hands and complete games between them, and how many pair a (the first in alphabetical order) won.
-- The hands are tallied by game first (euchre_hands_by_game()) and the pairs
-- named once a game.
with hands_by_game as (
    select * from euchre_hands_by_game()
),

pairings as (
    select
        game_id,
        complete and winner_team is not null as decided,
        winner_team,
        list_sort([players[1], players[3]]) as pair0,
        list_sort([players[2], players[4]]) as pair1
    from euchre_scoped_games()
    where len(list_distinct(players)) = 4 and len(players) = 4
),

oriented as (
    select
        array_to_string(least(p.pair0, p.pair1), ' & ') as pair_a,
        array_to_string(greatest(p.pair0, p.pair1), ' & ') as pair_b,
        h.hands,
        if(p.pair0 < p.pair1, h.team0_won, h.team1_won) as a_hands_won,
        h.distinct_game and p.decided as decided,
        p.winner_team = if(p.pair0 < p.pair1, 0, 1) as a_won
    from hands_by_game as h
    join pairings as p using (game_id)
),

final as (
    select
        pair_a,
        pair_b,
        sum(hands)::bigint as hands,
        sum(a_hands_won)::bigint as a_hands_k,
        sum(hands)::bigint as a_hands_n,
        count(*) filter (where decided and a_won) as a_games_k,
        count(*) filter (where decided) as a_games_n
    from oriented
    group by pair_a, pair_b
)

select * from final order by hands desc, pair_a, pair_b
