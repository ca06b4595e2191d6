-- name: euchre_per_player
-- Per player (canonical name; placeholders such as North or p0 are no one): hands, calls made and euchred, lone hands, defence (the makers euchred when the player's team defended), net points per hand, games won.
with counted as (
    select * from euchre_counted_hands()
),

seated as (
    select
        c.*,
        s.seat,
        c.players[s.seat + 1] as player,
        s.seat % 2 as team
    from counted as c
    cross join (select unnest([0, 1, 2, 3]) as seat) as s
    where c.players[s.seat + 1] is not null
),

per_hand as (
    select
        player,
        count(*) as hands,
        count(*) filter (where maker_seat = seat) as made_n,
        count(*) filter (where maker_seat = seat and euchred) as euchred_k,
        count(*) filter (where maker_seat = seat and alone) as alone_n,
        count(*) filter (where maker_seat = seat and alone and not euchred) as alone_k,
        count(*) filter (where maker_team <> team and euchred) as defence_euchres_k,
        count(*) filter (where maker_team <> team) as defence_euchres_n,
        avg(if(team = 0, team0_points - team1_points, team1_points - team0_points)) as net_points_mean,
        stddev_samp(if(team = 0, team0_points - team1_points, team1_points - team0_points)) as net_points_sd,
        count(*) as net_points_count
    from seated
    group by player
),

finished as (
    select g.players[s.seat + 1] as player, g.winner_team = s.seat % 2 as won
    from euchre_scoped_games() as g
    semi join counted_games() as c using (game_id)
    cross join (select unnest([0, 1, 2, 3]) as seat) as s
    where g.complete and g.players[s.seat + 1] is not null
),

per_game as (
    select player, count(*) filter (where won) as won_k, count(*) as won_n
    from finished group by player
),

final as (
    select
        h.player,
        h.hands,
        h.made_n as calls,
        h.made_n / h.hands as call_share,
        h.euchred_k,
        h.made_n as euchred_n,
        h.alone_k,
        h.alone_n,
        h.defence_euchres_k,
        h.defence_euchres_n,
        h.net_points_mean,
        h.net_points_sd,
        h.net_points_count,
        coalesce(g.won_k, 0) as won_k,
        coalesce(g.won_n, 0) as won_n
    from per_hand as h
    left join per_game as g using (player)
)

select * from final order by hands desc, player
