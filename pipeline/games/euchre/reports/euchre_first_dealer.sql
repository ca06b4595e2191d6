-- name: euchre_first_dealer
-- Complete games from 0-0 (counted games: each distinct game once) won by the team of the first dealer, the dealer of the game's first hand.
--
-- Only games the record starts (from_start: no initial score other than 0-0,
-- not a stretch cut from a longer game) whose first hand, hand 0, was replayed:
-- in a game joined part way the first dealer in the file is not the game's.
with counted as (
    select game_id from counted_games() where game = 'euchre'
),

finished as (
    select g.game_id, g.winner_team, h.dealer % 2 as first_dealer_team
    from euchre_scoped_games() as g
    semi join counted as c using (game_id)
    join euchre.hands as h on h.game_id = g.game_id and h.hand_no = 0
    where g.complete
      and coalesce(g.from_start, true)
      and h.team0_score - h.team0_points = 0
      and h.team1_score - h.team1_points = 0
),

final as (
    select
        count(*) filter (where winner_team = first_dealer_team) as won_k,
        count(*) as won_n
    from finished
)

select * from final
