-- name: euchre_counted_hands
-- Macro: the hands the statistics count (complete, valid, played) with the columns every study needs.
--
-- Usage: select * from euchre_counted_hands()  (scoped like euchre_scoped_games());
-- select * from euchre_hands_by_game(), the counted hands of each game and how many each team won.
-- A hand counts when five tricks were played (complete and not thrown in) and no
-- violation names it (valid: the loader sets it from the violations table's hand).  Abandoned, thrown-in and faulty hands are left out.
-- Each distinct hand counts once: the core's counted_hands() keeps the first
-- copy of a hand recorded several times (same fingerprint): from the fullest
-- record of its game, then in load order.
create or replace temp macro euchre_counted_hands() as table
with games_in_scope as (
    select game_id, file, source, preset, rules, players
    from euchre_scoped_games()
),

distinct_hands as (
    select game_id, hand_no from counted_hands() where game = 'euchre'
),

played as (
    select h.*
    from euchre.hands as h
    semi join distinct_hands as d on d.game_id = h.game_id and d.hand_no = h.hand_no
    where h.complete
      and h.valid
      and h.thrown_in is null
      and h.maker_seat is not null
),

final as (
    select
        p.*,
        g.file,
        g.source,
        g.preset,
        g.rules,
        g.players,
        p.dealer % 2 as dealer_team,
        ['dealer', 'left', 'partner', 'right'][(p.maker_seat - p.dealer + 4) % 4 + 1] as maker_position,
        p.game_id in (select game_id from counted_games()) as distinct_game,
        p.maker_tricks < 3 as euchred,
        p.maker_tricks = 5 as march,
        if(p.maker_team = 0, p.team0_points, p.team1_points) as maker_points,
        if(p.maker_team = 0, p.team1_points, p.team0_points) as defender_points,
        if(p.dealer % 2 = 0, p.team0_points, p.team1_points) as dealer_team_points,
        if(p.dealer % 2 = 0, p.team1_points, p.team0_points) as other_team_points
    from played as p
    join games_in_scope as g using (game_id)
)

select * from final;

-- A game's players are the same in each of its hands: reports about people
-- tally the hands by game first, then name the pairs or seats once a game.
create or replace temp macro euchre_hands_by_game() as table
select
    game_id,
    count(*) as hands,
    bool_or(distinct_game) as distinct_game,
    count(*) filter (where team0_points > team1_points) as team0_won,
    count(*) filter (where team1_points > team0_points) as team1_won
from euchre_counted_hands()
group by game_id;
