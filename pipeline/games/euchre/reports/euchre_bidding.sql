-- name: euchre_bidding
-- Euchre rate and the makers' net points by the kind of call: in round 1 the dealer picking up, the partner or an opponent ordering the dealer up; in round 2 "next" (the other suit of the upcard's colour) or a suit of the other colour; and hands where a jack was turned up.
with counted as (
    select
        *,
        right(upcard, 1) as up_suit,
        case when right(upcard, 1) in ('C', 'S') then 'black' when right(upcard, 1) in ('D', 'H') then 'red' end
            as up_colour,
        case when trump in ('C', 'S') then 'black' when trump in ('D', 'H') then 'red' end as trump_colour
    from euchre_counted_hands()
),

calls as (
    select * from (values
        (1, 'round 1: the dealer picks up'),
        (2, 'round 1: the partner orders the dealer up'),
        (3, 'round 1: an opponent orders the dealer up'),
        (4, 'round 2: next (the other suit of the upcard''s colour)'),
        (5, 'round 2: a suit of the other colour'),
        (6, 'a jack turned up: ordered up'),
        (7, 'a jack turned up: turned down'),
        (8, 'a jack turned up: all hands')
    ) as k (call_no, call)
),

tagged as (
    select k.call_no, c.euchred, c.maker_points - c.defender_points as net
    from counted as c
    join calls as k on case k.call_no
        when 1 then c.round = 1 and c.maker_position = 'dealer'
        when 2 then c.round = 1 and c.maker_position = 'partner'
        when 3 then c.round = 1 and c.maker_position in ('left', 'right')
        when 4 then c.round = 2 and c.trump <> c.up_suit and c.trump_colour = c.up_colour
        when 5 then c.round = 2 and c.trump_colour <> c.up_colour
        when 6 then c.upcard in ('JC', 'JD', 'JH', 'JS') and c.round = 1
        when 7 then c.upcard in ('JC', 'JD', 'JH', 'JS') and c.round = 2
        when 8 then c.upcard in ('JC', 'JD', 'JH', 'JS')
    end
),

final as (
    select
        k.call_no,
        k.call,
        count(t.call_no) filter (where t.euchred) as euchred_k,
        count(t.call_no) as euchred_n,
        avg(t.net) as net_points_mean,
        stddev_samp(t.net) as net_points_sd,
        count(t.net) as net_points_count
    from calls as k
    left join tagged as t using (call_no)
    group by all
)

select * from final order by call_no
