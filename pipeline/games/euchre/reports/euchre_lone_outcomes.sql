-- name: euchre_lone_outcomes
-- How lone hands ended: euchred (0-2 tricks), made (3-4), march (5), with the points they earned.
with counted as (
    select * from euchre_counted_hands()
),

lone as (
    select
        case when euchred then 'euchred' when march then 'march' else 'made' end as outcome,
        maker_points - defender_points as net_points,
        defender_alone is not null as against_lone_defender
    from counted
    where alone
),

outcomes as (
    select * from (values (0, 'euchred'), (1, 'made'), (2, 'march')) as t(outcome_order, outcome)
),

final as (
    select
        o.outcome,
        o.outcome_order,
        count(l.outcome) as hands,
        count(l.outcome) filter (where l.against_lone_defender) as against_lone_defender,
        sum(l.net_points)::bigint as net_points_total,
        avg(l.net_points) as net_points_mean,
        (sum(count(l.outcome)) over ())::bigint as all_attempts
    from outcomes as o
    left join lone as l using (outcome)
    group by o.outcome_order, o.outcome
)

select * from final order by outcome_order
