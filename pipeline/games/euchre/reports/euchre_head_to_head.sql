-- name: euchre_head_to_head
-- Partnership against partnership: counted hands and complete games between them, and how many pair a (the first in alphabetical order) won.
with counted as (
    select * from euchre_counted_hands()
),

meetings as (
    select
        c.game_id,
        list_sort([c.players[1], c.players[3]]) as pair0,
        list_sort([c.players[2], c.players[4]]) as pair1,
        c.team0_points > c.team1_points as team0_scored
    from counted as c
    where len(list_distinct(c.players)) = 4 and len(c.players) = 4
),

oriented as (
    select
        m.game_id,
        array_to_string(least(m.pair0, m.pair1), ' & ') as pair_a,
        array_to_string(greatest(m.pair0, m.pair1), ' & ') as pair_b,
        if(m.pair0 < m.pair1, 0, 1) as team_a,
        m.team0_scored = (m.pair0 < m.pair1) as a_scored
    from meetings as m
),

games as (
    select distinct o.game_id, o.pair_a, o.pair_b, g.winner_team = o.team_a as a_won
    from oriented as o
    join euchre_scoped_games() as g using (game_id)
    where g.complete and g.winner_team is not null
),

per_hand as (
    select pair_a, pair_b, count(*) as hands, count(*) filter (where a_scored) as a_hands_k, count(*) as a_hands_n
    from oriented
    group by all
),

per_game as (
    select pair_a, pair_b, count(*) filter (where a_won) as a_games_k, count(*) as a_games_n
    from games
    group by all
),

final as (
    select
        h.pair_a,
        h.pair_b,
        h.hands,
        h.a_hands_k,
        h.a_hands_n,
        coalesce(g.a_games_k, 0) as a_games_k,
        coalesce(g.a_games_n, 0) as a_games_n
    from per_hand as h
    left join per_game as g using (pair_a, pair_b)
)

select * from final order by hands desc, pair_a, pair_b
