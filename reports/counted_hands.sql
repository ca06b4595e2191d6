-- name: counted_hands
-- Macro: the hands every game's statistics count -- complete, valid, played -- each distinct hand once; hand_copies(), every recorded hand with its first copy; and counted_games(), each distinct game once.
--
-- Usage: select * from counted_hands(); select * from hand_copies() where copy_no > 1;
-- select * from counted_games(); select * from game_copies().
-- A hand's fingerprint is its recorded play (each game's own, stored with its
-- hands): the same hand in another file, an annotated copy, a re-render or a
-- fragment of the game has the same one.  Every copy stays loaded with its
-- provenance; the statistics keep, among the hands in scope that count, the
-- copy in the game that records the most hands (printed_hands: those with a
-- fingerprint), then the one naming the most players (named_seats: a copy
-- whose seats are North, East... names no one), then the first in load order
-- (load_rank, then hand_no): the fullest record of the game.  preference ranks
-- every hand in that order.  Hands with no fingerprint (no card played, or
-- loaded before fingerprints) are never matched.
create or replace temp macro scoped_hands() as table
with hands as (
    select
        h.*,
        g.load_rank,
        g.file,
        g.line,
        count(h.fingerprint) over (partition by h.game_id) as printed_hands,
        len(list_filter(g.players, lambda p: p is not null)) as named_seats,
        h.complete and h.valid and h.thrown_in is null as eligible
    from all_hands() as h
    join scoped_games() as g using (game_id)
)

select
    *,
    row_number() over (order by printed_hands desc, named_seats desc, load_rank, hand_no) as preference
from hands;

-- What a hand's copies share (the statistics count one hand a key): its fingerprint;
-- a hand without one is a copy of none.
create or replace temp macro hand_key(fingerprint, game_id, hand_no) as
coalesce(fingerprint, game_id || '#' || hand_no::varchar);

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
    select * from scoped_hands() where eligible
),

final as (
    select *
    from eligible
    qualify row_number() over (
        partition by game, hand_key(fingerprint, game_id, hand_no) order by preference
    ) = 1
)

select * from final;

-- A game is a copy when every hand of it with a fingerprint was recorded first
-- in other games, in the order counted_hands() takes copies (preference), and
-- one at least of those first copies counts: a game recorded twice (a hand of
-- the first copy that a violation names is counted from the second), a
-- fragment of a longer game.  The game that holds the first copy of a
-- fingerprint is not a copy, so every hand is first recorded in a game that
-- is not one; nor is a game whose hands' first copies all fail to count (a
-- record joining two games, the second game's hands faulted as played after
-- the first game's end, leaves the second game its own).
create or replace temp macro game_copies() as table
with printed as (
    select game, game_id, hand_no, fingerprint, eligible, preference
    from scoped_hands()
    where fingerprint is not null
),

firsts as (
    select
        game,
        game_id,
        hand_no,
        first_value(game_id) over w as first_game_id,
        first_value(eligible) over w as first_counts
    from printed
    window w as (partition by game, fingerprint order by preference)
),

final as (
    select game, game_id, arg_min(first_game_id, hand_no) as copy_of
    from firsts
    group by game, game_id
    having bool_and(first_game_id <> game_id) and bool_or(first_counts)
)

select * from final;

-- The games the statistics count as games (how many, how many complete, who
-- won): those with a counted hand, each distinct game once (no copy of another).
create or replace temp macro counted_games() as table
select distinct c.game, c.game_id
from counted_hands() as c
anti join game_copies() as g using (game_id);
