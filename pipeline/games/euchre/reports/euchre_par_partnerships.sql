-- name: euchre_par_partnerships
-- Partnerships (the two names in alphabetical order) with at least 10 analysed hands together: the points their play added over double-dummy par (strongest first), what their deals were worth at par, and tricks given away per card.
with teams as (
    select p.game_id, p.hand_no, t.team,
           list_sort([g.players[t.team + 1], g.players[t.team + 3]]) as pair,
           case when t.team = h.maker_team then p.par_points::integer else -p.par_points::integer end as par_points,
           case when t.team = 0 then h.team0_points::integer - h.team1_points
                else h.team1_points::integer - h.team0_points end as points
    from euchre_par_counted() as p
    join euchre.hands as h using (game_id, hand_no)
    join scoped_games() as g using (game_id)
    cross join (select unnest([0, 1]) as team) as t
),

losses as (
    select game_id, hand_no, seat % 2 as team, sum(loss) as lost, count(*) as cards
    from euchre.par_plays
    group by all
),

final as (
    select
        t.pair[1] as player_a,
        t.pair[2] as player_b,
        count(*) as hands,
        avg(t.points - t.par_points) as over_par_mean,
        stddev_samp(t.points - t.par_points) as over_par_sd,
        count(*) as over_par_count,
        avg(t.par_points) as par_points_mean,
        stddev_samp(t.par_points) as par_points_sd,
        count(*) as par_points_count,
        sum(l.lost) / sum(l.cards) as loss_per_card
    from teams as t
    join losses as l using (game_id, hand_no, team)
    group by all
    having count(*) >= 10
)

select * from final order by over_par_mean desc, player_a, player_b
