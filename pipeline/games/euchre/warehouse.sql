-- name: euchre
-- Euchre's tables in the warehouse, in the schema `euchre` (the core tables --
-- games, violations, quarantine, ingest_runs -- are in schemas/warehouse.sql).
--
-- Written by the Euchre plugin's row builder (pipeline/games/euchre/tables.py),
-- in the same transaction as the game's `games` row.  Documented column by
-- column in docs/warehouse.md.  Seats are 0-3 clockwise; team 0 = seats 0 and
-- 2, team 1 = seats 1 and 3.  Cards are rank+suit text ('JD', 'TH', 'JK'), '??'
-- where the log does not know the card.  Every statement is idempotent.

create schema if not exists euchre;

-- One row per Euchre game: the team scores and the outcome.
create table if not exists euchre.games (
    game_id     varchar  not null primary key,
    team0_score integer  not null,
    team1_score integer  not null,
    winner_team tinyint  check (winner_team in (0, 1)),   -- null when no team reached the target
    target      integer  not null,                        -- points to win, under the game's rules
    from_start  boolean                                   -- the record starts its game: at 0-0, not a stretch cut from a longer one
);

alter table euchre.games add column if not exists from_start boolean;

create table if not exists euchre.hands (
    game_id        varchar  not null,
    hand_no        integer  not null check (hand_no >= 0),   -- index in the record's `hands` (0-based)
    dealer         tinyint  not null check (dealer between 0 and 3),
    upcard         varchar,
    trump          varchar  check (trump in ('C', 'D', 'H', 'S')),  -- null when no trump was made
    maker_seat     tinyint  check (maker_seat between 0 and 3),
    maker_team     tinyint  check (maker_team in (0, 1)),
    alone          boolean  not null,                         -- the maker went alone
    defender_alone tinyint  check (defender_alone between 0 and 3),  -- seat of a lone defender
    round          tinyint  check (round in (1, 2)),          -- 1 ordered up, 2 named in round two
    discard        varchar,                                   -- the dealer's discard, when ordered up
    maker_tricks   tinyint  not null check (maker_tricks between 0 and 5),
    team0_points   tinyint  not null check (team0_points >= 0),
    team1_points   tinyint  not null check (team1_points >= 0),
    team0_score    integer  not null,                         -- running score after this hand
    team1_score    integer  not null,
    thrown_in      varchar  check (thrown_in in ('all_passed', 'farmers_hand')),
    complete       boolean  not null,                         -- five tricks played, or thrown in
    valid          boolean  not null,                         -- no violation names this hand
    deal_known     boolean  not null,                         -- the deal was recorded in full
    fingerprint    varchar                                    -- the hand's recorded play, hashed: copies share it (null: no card played)
);

-- Warehouses made before fingerprints: the column is added, null for their hands.
alter table euchre.hands add column if not exists fingerprint varchar;

create table if not exists euchre.bids (
    game_id  varchar not null,
    hand_no  integer not null,
    bid_no   tinyint not null check (bid_no >= 0),            -- order spoken (well-formed bids only)
    seat     tinyint not null check (seat between 0 and 3),
    round    tinyint not null check (round in (1, 2)),        -- 1 before the fourth pass, else 2
    call     varchar not null check (call in ('pass', 'order', 'C', 'D', 'H', 'S')),
    alone    boolean not null
);

create table if not exists euchre.tricks (
    game_id     varchar not null,
    hand_no     integer not null,
    trick_no    tinyint not null check (trick_no between 0 and 4),
    leader      tinyint check (leader between 0 and 3),
    winner      tinyint check (winner between 0 and 3),       -- null when the trick was not finished
    winner_team tinyint check (winner_team in (0, 1)),
    cards       tinyint not null check (cards between 0 and 4)  -- cards played in it
);

create table if not exists euchre.plays (
    game_id  varchar not null,
    hand_no  integer not null,
    trick_no tinyint not null check (trick_no between 0 and 4),
    play_no  tinyint not null check (play_no between 0 and 3),  -- order within the trick
    seat     tinyint not null check (seat between 0 and 3),
    card     varchar not null
);

-- Views: the same facts, arranged the way analysts ask for them.

-- One row per seat of every game: who sat where, their team and whether it won.
create or replace view euchre.players as
select
    g.game_id,
    s.seat::tinyint as seat,
    g.players[s.seat + 1] as player,
    (s.seat % 2)::tinyint as team,
    case when e.winner_team is null then null else e.winner_team = s.seat % 2 end as won
from main.games as g
join euchre.games as e using (game_id)
cross join (select unnest(range(4)) as seat) as s;

-- One row per team of every game: its players, final score and outcome.
create or replace view euchre.results as
select
    g.game_id,
    t.team::tinyint as team,
    [g.players[t.team + 1], g.players[t.team + 3]] as players,
    case t.team when 0 then e.team0_score else e.team1_score end as score,
    case t.team when 0 then e.team1_score else e.team0_score end as opponents_score,
    g.complete,
    case when e.winner_team is null then null else e.winner_team = t.team end as won
from main.games as g
join euchre.games as e using (game_id)
cross join (select unnest(range(2)) as team) as t;
