-- name: tarot_contract_by_strength
-- Each contract by the strength of the taker's hand as dealt (bouts held, trumps held, Chavey's points de main): how often made, and the taker's mean score.
with hands as (
    select * from tarot_taker_hands()
),

cuts as (
    select 1 as measure_rank, 'bouts held' as measure, bouts_held::varchar as band, bouts_held as band_rank,
           contract, made, taker_score
    from hands
    union all
    select 2, 'trumps held', trumps_band, trumps_held, contract, made, taker_score
    from hands
    union all
    select 3, 'points de main', points_band, hand_points, contract, made, taker_score
    from hands
),

contracts as (
    select * from (values (1, 'prise'), (2, 'garde'), (3, 'garde_sans'), (4, 'garde_contre')) as c (rank, contract)
),

final as (
    select
        x.measure,
        x.band,
        x.contract,
        count(*) as hands,
        count(*) filter (where x.made) as made_k,
        count(*) as made_n,
        avg(x.taker_score) as taker_score_mean,
        stddev_samp(x.taker_score) as taker_score_sd,
        count(x.taker_score) as taker_score_count
    from cuts as x
    join contracts as c using (contract)
    group by x.measure_rank, x.measure, x.band, c.rank, x.contract
    order by x.measure_rank, min(x.band_rank), c.rank
)

select * from final
