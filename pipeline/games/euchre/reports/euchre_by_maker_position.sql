-- name: euchre_by_maker_position
-- Euchre rate by the maker's seat relative to the dealer: dealer, left (dealer+1), partner (dealer+2), right (dealer+3).
with counted as (
    select * from euchre_counted_hands()
),

positions as (
    select * from (values (0, 'dealer'), (1, 'left'), (2, 'partner'), (3, 'right')) as t(seat_after_dealer, maker_position)
),

final as (
    select
        p.maker_position,
        p.seat_after_dealer,
        count(c.game_id) filter (where c.round = 1) as ordered_up,
        count(c.game_id) filter (where c.round = 2) as called,
        count(c.game_id) filter (where c.euchred) as euchred_k,
        count(c.game_id) as euchred_n
    from positions as p
    left join counted as c using (maker_position)
    group by p.seat_after_dealer, p.maker_position
)

select * from final order by seat_after_dealer
