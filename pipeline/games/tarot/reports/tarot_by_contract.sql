-- name: tarot_by_contract
-- By contract: how often it is taken, how often it is made, and the taker's mean score for the hand (3X).
with counted as (
    select * from tarot_counted_hands()
),

contracts as (
    select * from (values (1, 'prise'), (2, 'garde'), (3, 'garde_sans'), (4, 'garde_contre')) as c (rank, contract)
),

final as (
    select
        c.contract,
        count(h.game_id) as hands,
        coalesce(count(h.game_id) / nullif((select count(*) from counted), 0), 0)::double as share,
        count(h.game_id) filter (where h.made) as made_k,
        count(h.game_id) as made_n,
        avg(h.taker_score) as taker_score_mean,
        stddev_samp(h.taker_score) as taker_score_sd,
        count(h.taker_score) as taker_score_count
    from contracts as c
    left join counted as h on h.contract = c.contract
    group by c.rank, c.contract
    order by c.rank
)

select * from final
