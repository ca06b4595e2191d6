-- name: euchre_win_probability
-- How often a team went on to win the game from each score at the start of a hand (its own score, then the opponents'), over the counted hands of complete games.
--
-- Each hand counts from both teams' sides, except at level scores, where it
-- counts once, from the dealer's team's side (both sides would give exactly
-- one half).  Scores only rise, so a game passes each cell at most once.
with counted as (
    select c.*, g.winner_team
    from euchre_counted_hands() as c
    join euchre_scoped_games() as g using (game_id)
    where g.complete and g.winner_team is not null
),

sides as (
    select
        if(t.team = 0, c.team0_score - c.team0_points, c.team1_score - c.team1_points) as my_score,
        if(t.team = 0, c.team1_score - c.team1_points, c.team0_score - c.team0_points) as opp_score,
        c.winner_team = t.team as won,
        c.dealer_team = t.team as dealing
    from counted as c
    cross join (select unnest([0, 1]) as team) as t
),

final as (
    select my_score, opp_score, count(*) filter (where won) as won_k, count(*) as won_n
    from sides
    where my_score <> opp_score or dealing
    group by all
)

select * from final order by my_score, opp_score
