-- name: tarot
-- French Tarot's tables in the warehouse, in the schema `tarot` (the core
-- tables -- games, violations, quarantine, ingest_runs -- are in
-- schemas/warehouse.sql; a Tarot game's `games.scores` are the four seats'
-- totals).
--
-- Written by the Tarot plugin's row builder (pipeline/games/tarot/tables.py),
-- in the same transaction as the game's `games` row.  Documented column by
-- column in docs/warehouse.md.  Seats are 0-3 in playing order (the seat
-- after the dealer speaks and leads first); cards are text (`KH`, `10S`, `T21`,
-- `EX`, `??` where unknown).  Every statement is idempotent.

create schema if not exists tarot;

-- One row per hand replayed.
create table if not exists tarot.hands (
    game_id           varchar  not null,
    hand_no           integer  not null check (hand_no >= 0),
    dealer            tinyint  not null check (dealer between 0 and 3),
    contract          varchar  check (contract in ('prise', 'garde', 'garde_sans', 'garde_contre')),
    taker             tinyint  check (taker between 0 and 3),
    taker_position    varchar  check (taker_position in ('first', 'second', 'third', 'dealer')),
    bouts             tinyint  check (bouts between 0 and 3),      -- bouts the taker ended with
    taker_points      double,                                    -- card points of the taker (halves kept)
    target            tinyint  check (target in (56, 51, 41, 36)),
    margin            double,                                    -- taker_points - target
    made              boolean,                                   -- the taker reached the target
    petit_au_bout     varchar  check (petit_au_bout in ('taker', 'defence')),
    chelem_announced  boolean  not null,
    chelem_made       boolean  not null,                         -- the taker took every trick
    defence_chelem    boolean  not null,                         -- the taker took none
    contract_score    integer,                                   -- X: each defender scores -X, the taker +3X
    taker_score       integer,                                   -- 3X
    scores            integer[] not null,                        -- the hand's score by seat
    totals            integer[] not null,                        -- running totals by seat after the hand
    thrown_in         varchar  check (thrown_in in ('all_passed', 'petit_sec')),
    complete          boolean  not null,                         -- 18 tricks played, or thrown in
    valid             boolean  not null,                         -- no violation names this hand
    deal_known        boolean  not null,
    fingerprint       varchar                                    -- the recorded play (copies share it); null when none was played
);

-- One row per well-formed call, in the order spoken.
create table if not exists tarot.bids (
    game_id  varchar not null,
    hand_no  integer not null,
    bid_no   tinyint not null check (bid_no >= 0),
    seat     tinyint not null check (seat between 0 and 3),
    call     varchar not null check (call in ('pass', 'prise', 'garde', 'garde_sans', 'garde_contre'))
);

-- One row per trick played (or begun).
create table if not exists tarot.tricks (
    game_id  varchar not null,
    hand_no  integer not null,
    trick_no tinyint not null check (trick_no between 0 and 17),
    leader   tinyint check (leader between 0 and 3),
    winner   tinyint check (winner between 0 and 3),             -- null when not finished
    cards    tinyint not null check (cards between 0 and 4),
    excuse   boolean not null                                    -- the Excuse was played to it
);

-- One row per card played.
create table if not exists tarot.plays (
    game_id  varchar not null,
    hand_no  integer not null,
    trick_no tinyint not null check (trick_no between 0 and 17),
    play_no  tinyint not null check (play_no between 0 and 3),
    seat     tinyint not null check (seat between 0 and 3),
    card     varchar not null
);

-- The chien as dealt and the taker's écart, one row per card.
create table if not exists tarot.chien (
    game_id  varchar not null,
    hand_no  integer not null,
    pile     varchar not null check (pile in ('chien', 'ecart')),
    card     varchar not null
);

-- One row per poignée shown.
create table if not exists tarot.poignees (
    game_id  varchar not null,
    hand_no  integer not null,
    seat     tinyint not null check (seat between 0 and 3),
    size     varchar not null check (size in ('simple', 'double', 'triple'))
);
