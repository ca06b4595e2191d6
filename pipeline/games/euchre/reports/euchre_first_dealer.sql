-- name: euchre_first_dealer
-- Complete games (with a counted hand) won by the team of the first dealer (the dealer of hand 0).
with counted as (
    select distinct game_id from euchre_counted_hands()
),

finished as (
    select g.game_id, g.winner_team, h.dealer % 2 as first_dealer_team
    from euchre_scoped_games() as g
    semi join counted as c using (game_id)
    join euchre.hands as h on h.game_id = g.game_id and h.hand_no = 0
    where g.complete
),

final as (
    select
        count(*) filter (where winner_team = first_dealer_team) as won_k,
        count(*) as won_n
    from finished
)

select * from final
