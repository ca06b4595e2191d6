-- name: euchre_dealer_advantage
-- Points per counted hand for the dealer's team and the other team, and the dealer's edge (their difference).
with counted as (
    select * from euchre_counted_hands()
),

edges as (
    select dealer_team_points, other_team_points, dealer_team_points - other_team_points as edge
    from counted
),

final as (
    select
        count(*) as hands,
        avg(dealer_team_points) as dealer_team_points_per_hand,
        avg(other_team_points) as other_team_points_per_hand,
        avg(dealer_team_points) as dealer_team_mean,
        stddev_samp(dealer_team_points) as dealer_team_sd,
        count(*) as dealer_team_count,
        avg(other_team_points) as other_team_mean,
        stddev_samp(other_team_points) as other_team_sd,
        count(*) as other_team_count,
        avg(edge) as edge_mean,
        stddev_samp(edge) as edge_sd,
        count(*) as edge_count,
        count(*) filter (where edge > 0) as hands_dealer_team_scored,
        count(*) filter (where edge < 0) as hands_other_team_scored
    from edges
)

select * from final
