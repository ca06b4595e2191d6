-- name: tarot_counted_hands
-- Macro: the Tarot hands the statistics count (played to the end, valid, not thrown in), with the game's players.
--
-- Usage: select * from tarot_counted_hands().  A hand counts when its 18
-- tricks were played, no violation names it (valid) and a contract was played.
-- Each distinct deal counts once: the core's counted_hands() keeps the first
-- copy of a deal recorded several times (same fingerprint): from the fullest
-- record of its game, then in load order.
create or replace temp macro tarot_counted_hands() as table
with games_in_scope as (
    select game_id, file, source, preset, players from tarot_scoped_games()
),

distinct_hands as (
    select game_id, hand_no from counted_hands() where game = 'tarot'
),

played as (
    select h.*
    from tarot.hands as h
    semi join distinct_hands as d on d.game_id = h.game_id and d.hand_no = h.hand_no
    where h.complete
      and h.valid
      and h.thrown_in is null
      and h.taker is not null
),

final as (
    select
        p.*,
        g.file,
        g.source,
        g.preset,
        g.players,
        g.players[p.taker + 1] as taker_name,
        p.game_id in (select game_id from counted_games()) as distinct_game
    from played as p
    join games_in_scope as g using (game_id)
)

select * from final
