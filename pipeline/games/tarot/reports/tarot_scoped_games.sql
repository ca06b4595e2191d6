-- name: tarot_scoped_games
-- Macro: the Tarot games in scope (scoped_games(), game = 'tarot').
--
-- Usage: select * from tarot_scoped_games().  Scoped by the same session
-- variables as scoped_games().
create or replace temp macro tarot_scoped_games() as table
select g.*
from scoped_games() as g
where g.game = 'tarot'
