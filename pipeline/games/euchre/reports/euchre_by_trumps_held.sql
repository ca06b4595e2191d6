-- name: euchre_by_trumps_held
-- Euchre rate by how many trumps the maker held after the deal and any pick-up (the cards it played).
--
-- In a counted hand every active seat plays all five cards, so the trumps the
-- maker played are the trumps it held; the left bower and the joker count as trump.
with counted as (
    select * from euchre_counted_hands()
),

left_bowers as (
    select * from (values ('C', 'JS'), ('S', 'JC'), ('D', 'JH'), ('H', 'JD')) as t(trump, left_bower)
),

maker_trumps as (
    select
        c.game_id,
        c.hand_no,
        any_value(c.euchred) as euchred,
        count(p.card) filter (
            where right(p.card, 1) = c.trump or p.card = lb.left_bower or p.card = 'JK'
        ) as trumps_held
    from counted as c
    join left_bowers as lb using (trump)
    left join euchre.plays as p
        on p.game_id = c.game_id and p.hand_no = c.hand_no and p.seat = c.maker_seat
    group by c.game_id, c.hand_no
),

final as (
    select
        trumps_held,
        count(*) filter (where euchred) as euchred_k,
        count(*) as euchred_n
    from maker_trumps
    group by trumps_held
)

select * from final order by trumps_held
