-- name: euchre_par_loner_calls
-- Going alone or not, judged at par: the points going alone adds (alone minus partner in, at par) by the maker's choice and its verdict.
with calls as (
    select * from euchre.par_loner_calls
    semi join euchre_par_counted() as p using (game_id, hand_no)
),

totals as (
    select count(*) as all_calls from calls
),

final as (
    select
        decision,
        count(*) as hands,
        count(*) as share_k,
        any_value(t.all_calls) as share_n,
        avg(alone_gain) as alone_gain_mean,
        stddev_samp(alone_gain) as alone_gain_sd,
        count(*) as alone_gain_count
    from calls
    cross join totals as t
    group by decision
)

select * from final
order by case decision
    when 'right loner' then 1 when 'loner, no difference' then 2 when 'bad loner' then 3
    when 'missed loner' then 4 else 5 end
