-- name: euchre_alone
-- Lone makers: attempts, made (>= 3 tricks), marched (5 tricks), and net points per attempt (makers minus defenders).
with counted as (
    select * from euchre_counted_hands()
),

lone as (
    select *, maker_points - defender_points as net_points from counted where alone
),

final as (
    select
        count(*) as attempts,
        count(*) filter (where not euchred) as success_k,
        count(*) as success_n,
        count(*) filter (where march) as march_k,
        count(*) as march_n,
        avg(net_points) as net_points_mean,
        stddev_samp(net_points) as net_points_sd,
        count(*) as net_points_count
    from lone
)

select * from final
