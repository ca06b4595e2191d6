-- name: euchre_dealer_points
-- How many points a team scores on a hand (0, 1, 2, 4), for the dealer's team and the other team.
with counted as (
    select * from euchre_counted_hands()
),

points as (
    select 'dealer team' as team, dealer_team_points as points from counted
    union all
    select 'other team' as team, other_team_points as points from counted
),

final as (
    select
        team,
        points,
        count(*) as hands,
        count(*) / sum(count(*)) over (partition by team) as share
    from points
    group by team, points
)

select * from final order by team, points
