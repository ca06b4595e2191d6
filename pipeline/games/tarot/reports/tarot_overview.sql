-- name: tarot_overview
-- Counted Tarot hands: games, hands, valid thrown-in hands, contracts made, petit au bout, poignées and chelems.
with counted as (
    select * from tarot_counted_hands()
),

thrown_in as (
    -- each deal once: copies of a thrown-in deal share its fingerprint (its deal)
    select count(distinct hand_key(h.fingerprint, h.game_id, h.hand_no)) as n
    from tarot.hands as h
    semi join tarot_scoped_games() as g using (game_id)
    where h.valid and h.thrown_in is not null
),

poignees as (
    select p.size, count(*) as n
    from tarot.poignees as p
    semi join counted as c using (game_id, hand_no)
    group by p.size
),

final as (
    select
        (select count(distinct game_id) filter (where distinct_game) from counted) as games,
        (select count(*) from counted) as hands,
        (select n from thrown_in) as thrown_in,
        (select count(*) filter (where made) from counted) as made_k,
        (select count(*) from counted) as made_n,
        (select count(*) filter (where petit_au_bout is not null) from counted) as petit_au_bout_hands,
        (select count(*) filter (where petit_au_bout = 'taker') from counted) as petit_au_bout_taker,
        (select count(*) filter (where petit_au_bout = 'defence') from counted) as petit_au_bout_defence,
        coalesce((select n from poignees where size = 'simple'), 0) as poignee_simple,
        coalesce((select n from poignees where size = 'double'), 0) as poignee_double,
        coalesce((select n from poignees where size = 'triple'), 0) as poignee_triple,
        (select count(*) filter (where chelem_announced) from counted) as chelem_announced,
        (select count(*) filter (where chelem_made) from counted) as chelem_made,
        (select count(*) filter (where defence_chelem) from counted) as defence_chelem
)

select * from final
