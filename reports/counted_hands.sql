-- name: counted_hands
-- Macro: the hands every game's statistics count -- complete, valid, played -- each distinct hand once; and hand_copies(), every recorded hand with its first copy.
--
-- Usage: select * from counted_hands(); select * from hand_copies() where copy_no > 1.
-- A hand's fingerprint is its recorded play (each game's own, stored with its
-- hands): the same hand in another file, an annotated copy, a re-render or a
-- fragment of the game has the same one.  Every copy stays loaded with its
-- provenance; the statistics keep the first copy in load order (load_rank,
-- then hand_no) among the hands in scope that count.  Hands with no fingerprint
-- (no card played, or loaded before fingerprints) are never matched.
create or replace temp macro scoped_hands() as table
select h.*, g.load_rank, g.file, g.line
from all_hands() as h
join scoped_games() as g using (game_id);

create or replace temp macro hand_copies() as table
with printed as (
    select * from scoped_hands() where fingerprint is not null
),

final as (
    select
        p.*,
        row_number() over w as copy_no,
        count(*) over (partition by game, fingerprint) as copies,
        first_value(game_id) over w as first_game_id,
        first_value(hand_no) over w as first_hand_no,
        first_value(file) over w as first_file
    from printed as p
    window w as (partition by game, fingerprint order by load_rank, hand_no)
)

select * from final;

create or replace temp macro counted_hands() as table
with eligible as (
    select * from scoped_hands() where complete and valid and thrown_in is null
),

final as (
    select *
    from eligible
    qualify row_number() over (
        partition by game, coalesce(fingerprint, game_id || '#' || hand_no::varchar)
        order by load_rank, hand_no
    ) = 1
)

select * from final;
