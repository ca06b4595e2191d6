-- name: euchre_by_trump
-- Euchre rate by the trump suit made (a check of the deal: no suit should stand out).
with counted as (
    select * from euchre_counted_hands()
),

suits as (
    select * from (values ('C', 'clubs'), ('D', 'diamonds'), ('H', 'hearts'), ('S', 'spades')) as t(trump, suit)
),

final as (
    select
        s.trump,
        s.suit,
        count(c.game_id) filter (where c.euchred) as euchred_k,
        count(c.game_id) as euchred_n
    from suits as s
    left join counted as c using (trump)
    group by s.trump, s.suit
)

select * from final order by trump
