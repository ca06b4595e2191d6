-- name: audit_aliases
-- Names that may be one person: close spellings (edit distance 1-2), names alike but for case or invisible characters, and different names in the same seat of copies of one hand; never two names seated in one game. Suggestions for a --players file.
--
-- Names are canonical (scoped_games(): aliases merged, each read in Unicode's
-- composed form without blanks at its ends), so the same name typed two ways
-- is one name already.  Short names (under 4 characters) are suggested only
-- when alike but for case or invisible characters: at edit distance 2, "Ana"
-- and "Ava" are two people more often than one.  Two names seated in one game
-- are two people.
with named as (
    select distinct unnest(players) as player from scoped_games()
),

folded as (
    select player, lower(regexp_replace(player, '[\x{ad}\x{200b}-\x{200f}\x{2060}-\x{2064}\x{feff}]', '', 'g')) as folded
    from named
    where player is not null
),

alike as (
    select a.player as name, b.player as maybe, 'alike but for case or invisible characters' as why
    from folded as a
    join folded as b on a.player < b.player and a.folded = b.folded
),

close_names as (
    select
        a.player as name,
        b.player as maybe,
        'edit distance ' || levenshtein(a.player, b.player)::varchar as why
    from named as a
    join named as b on a.player < b.player
    where a.player is not null and b.player is not null
      and least(length(a.player), length(b.player)) >= 4
      and levenshtein(a.player, b.player) <= 2
),

copy_seats as (
    select distinct
        least(g1.players[s.seat + 1], g2.players[s.seat + 1]) as name,
        greatest(g1.players[s.seat + 1], g2.players[s.seat + 1]) as maybe,
        'same seat in copies of one hand' as why
    from hand_copies() as c
    join scoped_games() as g1 on g1.game_id = c.first_game_id
    join scoped_games() as g2 on g2.game_id = c.game_id
    cross join (select unnest(range(8)) as seat) as s
    where c.copy_no > 1
      and g1.players[s.seat + 1] is not null and g2.players[s.seat + 1] is not null
      and g1.players[s.seat + 1] <> g2.players[s.seat + 1]
),

seats as (
    select distinct game_id, unnest(players) as player from scoped_games()
),

together as (
    select distinct a.player as name, b.player as maybe
    from seats as a
    join seats as b on a.game_id = b.game_id and a.player < b.player
),

final as (
    select name, maybe, string_agg(distinct why, '; ' order by why) as why
    from (select * from alike union all select * from close_names union all select * from copy_seats)
    anti join together using (name, maybe)
    group by name, maybe
)

select * from final order by name, maybe
