-- name: euchre_scoped_games
-- Macro: the Euchre games in scope (scoped_games()), with their team scores and outcome.
--
-- Usage: select * from euchre_scoped_games().  Scoped by the same session
-- variables as scoped_games(); adds euchre.games' columns (team0_score,
-- team1_score, winner_team, target, from_start).
create or replace temp macro euchre_scoped_games() as table
select g.*, e.team0_score, e.team1_score, e.winner_team, e.target, e.from_start
from scoped_games() as g
join euchre.games as e using (game_id)
where g.game = 'euchre'
