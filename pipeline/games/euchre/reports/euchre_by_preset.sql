-- name: euchre_by_preset
-- Euchre rate, lone attempts and the dealer's edge for each rule preset.
with counted as (
    select * from euchre_counted_hands()
),

final as (
    select
        preset,
        count(distinct game_id) filter (where distinct_game) as games,
        count(*) filter (where euchred) as euchred_k,
        count(*) as euchred_n,
        count(*) filter (where alone) as lone_attempts,
        count(*) filter (where defender_alone is not null) as lone_defences,
        avg(dealer_team_points - other_team_points) as edge_mean,
        stddev_samp(dealer_team_points - other_team_points) as edge_sd,
        count(*) as edge_count
    from counted
    group by preset
)

select * from final order by preset
