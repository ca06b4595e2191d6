-- name: audit_aliases
-- Names that may be one person: close spellings (edit distance 1-2) and different names in the same seat of copies of one hand. Suggestions for a --players file.
with named as (
    select distinct unnest(players) as player from scoped_games()
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

final as (
    select name, maybe, string_agg(distinct why, '; ' order by why) as why
    from (select * from close_names union all select * from copy_seats)
    group by name, maybe
)

select * from final order by name, maybe
