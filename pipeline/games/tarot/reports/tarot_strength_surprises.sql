-- name: tarot_strength_surprises
-- The hands that most defied their strength: the 10 weakest by points de main whose contract was made, the 10 strongest that went down, each linked to the hand viewer.
with hands as (
    select * from tarot_taker_hands()
),

ranked as (
    select
        *,
        row_number() over (order by hand_points, game_id, hand_no) as weakest,
        row_number() over (order by hand_points desc, game_id, hand_no) as strongest
    from hands
),

picked as (
    select 1 as kind_rank, 'made, weakest' as kind, * from ranked where made
    qualify row_number() over (order by weakest) <= 10
    union all
    select 2, 'down, strongest', * from ranked where not made
    qualify row_number() over (order by strongest) <= 10
),

final as (
    select
        kind,
        game_id,
        hand_no,
        taker_name,
        contract,
        hand_points,
        bouts_held,
        trumps_held,
        margin,
        'hand:' || game_id || '/' || hand_no as viewer
    from picked
    order by kind_rank, case when kind_rank = 1 then hand_points else -hand_points end, game_id, hand_no
)

select * from final
