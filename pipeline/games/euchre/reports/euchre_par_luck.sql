-- name: euchre_par_luck
-- Luck and play per player (by seat name): the team's tricks and points at par (what the deal and the bidding gave it) and the points the table's play added over par.
with seated as (
    select
        g.players[s.seat + 1] as player,
        case when s.seat % 2 = h.maker_team then p.par_maker_tricks else 5 - p.par_maker_tricks end as par_tricks,
        case when s.seat % 2 = h.maker_team then p.par_points::integer else -p.par_points::integer end as par_points,
        case when s.seat % 2 = 0 then h.team0_points::integer - h.team1_points
             else h.team1_points::integer - h.team0_points end as points
    from euchre_par_counted() as p
    join euchre.hands as h using (game_id, hand_no)
    join scoped_games() as g using (game_id)
    cross join (select unnest([0, 1, 2, 3]) as seat) as s
),

final as (
    select
        player,
        count(*) as hands,
        avg(par_tricks) as par_tricks_mean,
        stddev_samp(par_tricks) as par_tricks_sd,
        count(*) as par_tricks_count,
        avg(par_points) as par_points_mean,
        stddev_samp(par_points) as par_points_sd,
        count(*) as par_points_count,
        avg(points - par_points) as over_par_mean,
        stddev_samp(points - par_points) as over_par_sd,
        count(*) as over_par_count
    from seated
    group by player
)

select * from final order by par_points_mean desc, player
