-- name: audit_violations_by_player
-- Violations charged to the seat at fault: the player of a play, the caller of a bid, the dealer of a discard.
--
-- The seat is read from the violation's JSON path (hands[h].tricks[t][p],
-- hands[h].bids[b], hands[h].discard), else from a message that opens with the
-- seat that acted ('hand 3, trick 1: seat 2 led; ...'); other violations are no player's.
with found as (
    select * from scoped_violations() where loaded
),

located as (
    select
        v.game_id,
        v.hand,
        v.code,
        v.players,
        try_cast(regexp_extract(v.path, '\.tricks\[(\d+)\]\[(\d+)\]', 1) as integer) as trick_no,
        try_cast(regexp_extract(v.path, '\.tricks\[(\d+)\]\[(\d+)\]', 2) as integer) as play_no,
        try_cast(regexp_extract(v.path, '\.bids\[(\d+)\]', 1) as integer) as bid_no,
        v.path like 'hands[%].discard%' as at_discard,
        try_cast(regexp_extract(v.message, '^(hand \d+(, trick \d+)?: )?seat ([0-3])\b', 3) as integer)
            as seat_in_message
    from found as v
),

seated as (
    select
        l.*,
        coalesce(p.seat, b.seat, if(l.at_discard, h.dealer, null), l.seat_in_message) as seat
    from located as l
    left join plays as p
        on p.game_id = l.game_id and p.hand_no = l.hand and p.trick_no = l.trick_no and p.play_no = l.play_no
    left join bids as b
        on b.game_id = l.game_id and b.hand_no = l.hand and b.bid_no = l.bid_no
    left join hands as h
        on h.game_id = l.game_id and h.hand_no = l.hand
),

final as (
    select
        players[seat + 1] as player,
        count(*) as violations,
        count(distinct game_id) as games,
        string_agg(distinct code, ', ' order by code) as codes
    from seated
    where seat is not null
    group by player
)

select * from final order by violations desc, player
