-- name: tarot_taker_hands
-- Macro: each counted Tarot hand with the taker's 18 cards as dealt and their strength: bouts, trumps, points de main.
--
-- Usage: select * from tarot_taker_hands().  The taker's hand as dealt is what
-- it played, plus its écart, less the chien it took up (in garde sans and garde
-- contre the chien is never in its hand and there is no écart): in a counted
-- (valid) hand these are 18 distinct cards.
--
-- bouts_held: of the Petit, the 21 and the Excuse.  trumps_held: trumps 1-21
-- (the Excuse is no trump).  hand_points: Noël Chavey's count, from "Le jeu de
-- tarot" (Hatier, 1986), as reproduced at https://le21bollenois.com/levaluation-du-jeu
-- (its three worked examples check out with this formula).  The trumps, T, are
-- counted with the Excuse, as in those examples:
--   the 21: 10; the Excuse: 8; the Petit: 0 with T < 5, 5 with T = 5, 7 with T = 6, 9 with T >= 7;
--   each trump (bouts included) 2 when T > 4;
--   each major trump (16 to 21) 2 more, and 1 more again when it is part of a run
--   of three or more (19-20-21 gives 3);
--   per suit: King and Queen (mariage) 10, a King without the Queen 6, a Queen
--   without the King 3, the Cavalier 2, the Jack 1;
--   a long suit: 5 cards 5, 6 cards 7, 7 or more 9.
-- Chavey adds a void (6) or a singleton (3) only when weighing a contract above
-- the garde; the count here leaves them out, so it is the same for every
-- contract.  His scale: under 40 pass, 40-55 prise (petite), 56-70 garde, 71-80
-- garde sans, 81 and up garde contre; the bands of points_band.
create or replace temp macro tarot_taker_hands() as table
with counted as (
    select * from tarot_counted_hands()
),

-- The cards of a valid hand are distinct, so the taker's plays and its écart
-- are added as they are (union all) and the chien taken away card by card
-- (anti join), with no pass to make the rows distinct.
taker_cards as (
    select p.game_id, p.hand_no, p.card
    from tarot.plays as p
    join counted as c on c.game_id = p.game_id and c.hand_no = p.hand_no and c.taker = p.seat
    union all
    select e.game_id, e.hand_no, e.card
    from tarot.chien as e
    semi join counted as c using (game_id, hand_no)
    where e.pile = 'ecart'
),

chien as (
    select d.game_id, d.hand_no, d.card
    from tarot.chien as d
    semi join counted as c using (game_id, hand_no)
    where d.pile = 'chien'
),

dealt as (
    select t.*
    from taker_cards as t
    anti join chien as d using (game_id, hand_no, card)
),

cards as (
    select
        game_id,
        hand_no,
        card,
        if(is_trump, substr(card, 2)::integer, null) as trump_no,
        if(is_trump or card = 'EX', null, right(card, 1)) as suit,
        if(is_trump or card = 'EX', null, left(card, length(card) - 1)) as rank
    from (select *, starts_with(card, 'T') as is_trump from dealt)
),

suits as (
    select
        game_id,
        hand_no,
        count(*) as length,
        bool_or(rank = 'K') as king,
        bool_or(rank = 'Q') as queen,
        count(*) filter (where rank = 'N') as cavaliers,
        count(*) filter (where rank = 'J') as jacks
    from cards
    where suit is not null
    group by game_id, hand_no, suit
),

suit_points as (
    select
        game_id,
        hand_no,
        sum(
            case when king and queen then 10 when king then 6 when queen then 3 else 0 end
            + 2 * cavaliers + jacks
            + case when length >= 7 then 9 when length = 6 then 7 when length = 5 then 5 else 0 end
        ) as points
    from suits
    group by game_id, hand_no
),

held as (
    select
        game_id,
        hand_no,
        count(*) as cards_held,
        count(trump_no) as trumps_held,
        count(*) filter (where card in ('T1', 'T21', 'EX')) as bouts_held,
        bool_or(card = 'EX') as excuse,
        bool_or(card = 'T1') as petit,
        bool_or(card = 'T21') as vingt_et_un,
        coalesce(list(trump_no) filter (where trump_no >= 16), []) as majors
    from cards
    group by game_id, hand_no
),

trump_points as (
    select
        game_id,
        hand_no,
        cards_held,
        trumps_held,
        bouts_held,
        10 * vingt_et_un::integer
        + 8 * excuse::integer
        + case when not petit then 0
               when trumps_held + excuse::integer >= 7 then 9
               when trumps_held + excuse::integer = 6 then 7
               when trumps_held + excuse::integer = 5 then 5
               else 0 end
        + case when trumps_held + excuse::integer > 4 then 2 * (trumps_held + excuse::integer) else 0 end
        + 2 * len(majors)
        + len(list_filter(majors, lambda t: (list_contains(majors, t - 1) and list_contains(majors, t - 2))
                                            or (list_contains(majors, t - 1) and list_contains(majors, t + 1))
                                            or (list_contains(majors, t + 1) and list_contains(majors, t + 2))))
        as points
    from held
),

final as (
    select
        c.*,
        t.cards_held,
        t.bouts_held,
        t.trumps_held,
        case when t.trumps_held <= 4 then '0-4' when t.trumps_held <= 6 then '5-6'
             when t.trumps_held <= 8 then '7-8' when t.trumps_held <= 10 then '9-10' else '11+' end as trumps_band,
        (t.points + coalesce(s.points, 0))::integer as hand_points,
        case when t.points + coalesce(s.points, 0) < 40 then 'under 40'
             when t.points + coalesce(s.points, 0) <= 55 then '40-55'
             when t.points + coalesce(s.points, 0) <= 70 then '56-70'
             when t.points + coalesce(s.points, 0) <= 80 then '71-80'
             else '81+' end as points_band
    from counted as c
    join trump_points as t using (game_id, hand_no)
    left join suit_points as s using (game_id, hand_no)
)

select * from final
