-- The double-dummy par of Euchre hands, written by `tricklog analyze`
-- (pipeline/games/euchre/analysis.py, the solver in par.py), and the figures
-- of decision quality built on it.  Documented in docs/studies.md.  Every
-- statement is idempotent.

create schema if not exists euchre;

-- One row per hand analysed: every complete, valid hand with a known deal and a maker.
create table if not exists euchre.par_hands (
    game_id            varchar  not null,
    hand_no            integer  not null,
    solved             boolean  not null,     -- false: the hand could not be analysed (see note)
    note               varchar,               -- why not
    par_maker_tricks   tinyint,               -- makers' tricks at par, the hand as played (alone or not, the actual discard)
    par_partner        tinyint,               -- ... with the maker's partner in
    par_alone          tinyint,               -- ... with the maker alone (null where the rules forbid it)
    par_points         tinyint,               -- makers' points minus the defenders', at par as played
    par_points_partner tinyint,               -- the same with the partner in
    par_points_alone   tinyint,               -- the same alone
    par_line_seats     tinyint[],             -- one line of perfect play: who plays ...
    par_line           varchar[],             -- ... which card, in order
    nodes              integer  not null,     -- positions the solver searched (its work)
    version            integer  not null,     -- the analysis that wrote it (a newer one analyses again)
    primary key (game_id, hand_no)
);

-- One row per card played in an analysed hand.
create table if not exists euchre.par_plays (
    game_id    varchar not null,
    hand_no    integer not null,
    trick_no   tinyint not null,
    play_no    tinyint not null,
    seat       tinyint not null,
    card       varchar not null,
    par_before tinyint not null,   -- makers' tricks at par before this card (tricks taken included)
    par_after  tinyint not null,   -- ... and after it
    loss       tinyint not null check (loss >= 0),  -- tricks this card gave to the other team
    best       varchar             -- where it lost some: a card that kept the par
);

-- Each maker's choice between going alone and keeping the partner in, judged
-- by the points either is worth at par (makers' minus defenders').
create or replace view euchre.par_loner_calls as
select
    p.game_id, p.hand_no, h.maker_seat,
    g.players[h.maker_seat + 1] as maker,
    h.alone,
    p.par_points_partner, p.par_points_alone,
    p.par_points_alone::integer - p.par_points_partner as alone_gain,   -- points going alone adds at par
    case
        when h.alone and p.par_points_alone > p.par_points_partner then 'right loner'
        when h.alone and p.par_points_alone < p.par_points_partner then 'bad loner'
        when h.alone then 'loner, no difference'
        when p.par_points_alone > p.par_points_partner then 'missed loner'
        else 'right call'
    end as decision
from euchre.par_hands as p
join euchre.hands as h using (game_id, hand_no)
join main.games as g using (game_id)
where p.solved and p.par_points_alone is not null;

-- Play accuracy per player: the tricks each card gave away against perfect play.
create or replace view euchre.par_accuracy as
select
    g.players[pp.seat + 1] as player,
    count(distinct (pp.game_id, pp.hand_no)) as hands,
    count(*) as cards,
    avg(pp.loss) as mean_loss,                     -- tricks given away per card
    sum(pp.loss) as tricks_lost,
    count(*) filter (where pp.loss > 0) as mistakes,
    count(*) filter (where pp.loss > 0) / count(distinct (pp.game_id, pp.hand_no)) as mistakes_per_hand
from euchre.par_plays as pp
join main.games as g using (game_id)
group by all;

-- Luck per player: what the cards dealt were worth to the player's team at
-- par (tricks and points, whoever made trump), and what the team made of them.
-- Points are tinyint in the tables: widened before any difference (options reach 100 a hand).
create or replace view euchre.par_luck as
with seats as (
    select p.game_id, p.hand_no, s.seat::tinyint as seat,
           s.seat % 2 = h.maker_team as making,
           case when s.seat % 2 = h.maker_team then p.par_maker_tricks else 5 - p.par_maker_tricks end as par_tricks,
           case when s.seat % 2 = h.maker_team then h.maker_tricks else 5 - h.maker_tricks end as tricks,
           case when s.seat % 2 = h.maker_team then p.par_points::integer else -p.par_points::integer end as par_points,
           case when s.seat % 2 = 0 then h.team0_points::integer - h.team1_points
                else h.team1_points::integer - h.team0_points end as points
    from euchre.par_hands as p
    join euchre.hands as h using (game_id, hand_no)
    cross join (select unnest(range(4)) as seat) as s
    where p.solved
)
select
    g.players[s.seat + 1] as player,
    count(*) as hands,
    avg(s.par_tricks) as mean_par_tricks,          -- the team's tricks at par: the luck of the deal and the bidding
    avg(s.par_points) as mean_par_points,
    avg(s.tricks - s.par_tricks) as mean_tricks_over_par,   -- what the table's play changed
    avg(s.points - s.par_points) as mean_points_over_par
from seats as s
join main.games as g using (game_id)
group by all;

-- Partnerships at par: each pair of partners (names in alphabetical order),
-- what the deals were worth to them at par, the points their table's play
-- added over par (the strength of the pair once the luck of the deal is
-- taken out), and the tricks their own cards gave away.
create or replace view euchre.par_partnerships as
with teams as (
    select p.game_id, p.hand_no, t.team,
           list_sort([g.players[t.team + 1], g.players[t.team + 3]]) as pair,
           case when t.team = h.maker_team then p.par_points::integer else -p.par_points::integer end as par_points,
           case when t.team = 0 then h.team0_points::integer - h.team1_points
                else h.team1_points::integer - h.team0_points end as points
    from euchre.par_hands as p
    join euchre.hands as h using (game_id, hand_no)
    join main.games as g using (game_id)
    cross join (select unnest([0, 1]) as team) as t
    where p.solved
),
losses as (
    select game_id, hand_no, seat % 2 as team, sum(loss) as lost, count(*) as cards
    from euchre.par_plays
    group by all
)
select
    t.pair[1] as player_a,
    t.pair[2] as player_b,
    count(*) as hands,
    avg(t.par_points) as mean_par_points,
    avg(t.points - t.par_points) as mean_points_over_par,
    sum(l.lost) / sum(l.cards) as loss_per_card
from teams as t
join losses as l using (game_id, hand_no, team)
group by all;
