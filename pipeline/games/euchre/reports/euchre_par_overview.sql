-- name: euchre_par_overview
-- Hands analysed at double-dummy par (tricklog analyze), each distinct hand once: the makers' tricks at par and as played, hands played without losing a trick to par, cards that gave tricks away.
with analysed as (
    select p.*, h.maker_tricks
    from euchre_par_counted() as p
    join euchre.hands as h using (game_id, hand_no)
),

losses as (
    select q.game_id, q.hand_no, sum(q.loss) as lost, count(*) filter (where q.loss > 0) as mistakes
    from euchre.par_plays as q
    semi join analysed as a using (game_id, hand_no)
    group by all
),

final as (
    select
        count(distinct a.game_id) as games,
        count(*) as hands,
        avg(a.par_maker_tricks) as par_tricks_mean,
        stddev_samp(a.par_maker_tricks) as par_tricks_sd,
        count(*) as par_tricks_count,
        avg(a.maker_tricks) as played_tricks_mean,
        stddev_samp(a.maker_tricks) as played_tricks_sd,
        count(*) as played_tricks_count,
        count(*) filter (where a.par_maker_tricks >= 3) as made_at_par_k,
        count(*) as made_at_par_n,
        count(*) filter (where a.maker_tricks >= 3) as made_k,
        count(*) as made_n,
        count(*) filter (where l.mistakes = 0) as perfect_k,
        count(*) as perfect_n,
        avg(l.mistakes) as mistakes_mean,
        stddev_samp(l.mistakes) as mistakes_sd,
        count(*) as mistakes_count
    from analysed as a
    join losses as l using (game_id, hand_no)
)

select * from final
