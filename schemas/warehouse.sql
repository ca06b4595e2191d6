-- name: warehouse
-- The tricklog warehouse: every recorded game in one DuckDB file.
--
-- Loaded by `tricklog load` (pipeline/warehouse/load.py), one transaction per
-- batch of games.  Every non-empty input line ends up in exactly one of:
-- a `games` row, a `quarantine` row, or the run's `already_present` count.
-- Documented column by column in docs/warehouse.md.  Seats are 0-3 clockwise;
-- team 0 = seats 0 and 2, team 1 = seats 1 and 3.  Cards are rank+suit text
-- ('JD', 'TH', 'JK'), '??' where the log does not know the card.
-- Every statement is idempotent (if not exists): running the file twice is safe.

create table if not exists ingest_runs (
    run_id          integer     not null primary key,   -- 1, 2, 3, ... in load order
    started_at      timestamptz not null,
    ended_at        timestamptz,                        -- null while running, or if the load was killed
    status          varchar     not null check (status in ('running', 'complete', 'aborted')),
    files           struct(path varchar, sha256 varchar, bytes bigint)[] not null,
    lines           bigint      not null default 0 check (lines >= 0),        -- non-empty input lines read
    games_loaded    bigint      not null default 0 check (games_loaded >= 0),
    already_present bigint      not null default 0 check (already_present >= 0),
    quarantined     bigint      not null default 0 check (quarantined >= 0),
    violations      bigint      not null default 0 check (violations >= 0),   -- rows added to `violations`
    batches         integer     not null default 0 check (batches >= 0),      -- committed batches
    tricklog_version varchar    not null
);

create table if not exists games (
    game_id      varchar  not null primary key,
    run_id       integer  not null,                     -- the ingest run that loaded it
    file         varchar  not null,                     -- input file as given to `load`
    line         bigint,                                -- 1-based line in that file (null for non-line inputs)
    content_hash varchar  not null,                     -- sha256 of the record as canonical JSON (sorted keys)
    format       varchar  not null,                     -- 'euchre/1'
    source       varchar,                               -- the record's free-text `source`
    started_at   varchar,                               -- the record's `started_at`, as written (ISO-8601)
    preset       varchar  not null,                     -- rule preset replayed with
    rules        json     not null,                     -- every rule option replayed with (preset + overrides)
    players      varchar[] not null check (len(players) = 4),  -- names indexed by seat
    hands_played integer  not null check (hands_played >= 0),  -- hands recorded and replayed (incl. thrown in)
    team0_score  integer  not null,
    team1_score  integer  not null,
    winner_team  tinyint  check (winner_team in (0, 1)),       -- null when no team reached the target
    complete     boolean  not null,                     -- a team reached the target
    violations   integer  not null check (violations >= 0),    -- rows in `violations` for this game
    extra        json                                   -- unknown top-level fields, kept as JSON
);

create table if not exists hands (
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
    valid          boolean  not null,                         -- false when the hand has any violation
    deal_known     boolean  not null                          -- the deal was recorded in full
);

create table if not exists bids (
    game_id  varchar not null,
    hand_no  integer not null,
    bid_no   tinyint not null check (bid_no >= 0),            -- order spoken (well-formed bids only)
    seat     tinyint not null check (seat between 0 and 3),
    round    tinyint not null check (round in (1, 2)),        -- 1 before the fourth pass, else 2
    call     varchar not null check (call in ('pass', 'order', 'C', 'D', 'H', 'S')),
    alone    boolean not null
);

create table if not exists tricks (
    game_id     varchar not null,
    hand_no     integer not null,
    trick_no    tinyint not null check (trick_no between 0 and 4),
    leader      tinyint check (leader between 0 and 3),
    winner      tinyint check (winner between 0 and 3),       -- null when the trick was not finished
    winner_team tinyint check (winner_team in (0, 1)),
    cards       tinyint not null check (cards between 0 and 4)  -- cards played in it
);

create table if not exists plays (
    game_id  varchar not null,
    hand_no  integer not null,
    trick_no tinyint not null check (trick_no between 0 and 4),
    play_no  tinyint not null check (play_no between 0 and 3),  -- order within the trick
    seat     tinyint not null check (seat between 0 and 3),
    card     varchar not null
);

create table if not exists violations (
    run_id  integer not null,
    game_id varchar,                                      -- null when the line had no usable id
    file    varchar,
    line    bigint,
    hand    integer,                                      -- null for game-level violations
    path    varchar not null,                             -- JSON path, e.g. hands[3].tricks[2][1]
    code    varchar not null,                             -- the spec's stable code
    message varchar not null,
    rule    varchar                                       -- finer rule name, when there is one
);

create table if not exists quarantine (
    run_id      integer not null,
    file        varchar not null,
    file_sha256 varchar not null,
    line        bigint  not null,
    game_id     varchar,                                  -- when the line had one
    code        varchar not null,                         -- malformed_json, schema, duplicate_game, ...
    message     varchar not null,
    raw         blob    not null,                         -- the line exactly as read
    raw_text    varchar not null,                         -- the same, decoded as UTF-8 (bad bytes replaced)
    primary key (file_sha256, line)
);

-- Views: the same facts, arranged the way analysts ask for them.

-- One row per seat of every game: who sat where, their team and whether it won.
create or replace view players as
select
    g.game_id,
    s.seat::tinyint as seat,
    g.players[s.seat + 1] as player,
    (s.seat % 2)::tinyint as team,
    case when g.winner_team is null then null else g.winner_team = s.seat % 2 end as won
from games as g
cross join (select unnest(range(4)) as seat) as s;

-- One row per team of every game: its players, final score and outcome.
create or replace view results as
select
    g.game_id,
    t.team::tinyint as team,
    [g.players[t.team + 1], g.players[t.team + 3]] as players,
    case t.team when 0 then g.team0_score else g.team1_score end as score,
    case t.team when 0 then g.team1_score else g.team0_score end as opponents_score,
    g.complete,
    case when g.winner_team is null then null else g.winner_team = t.team end as won
from games as g
cross join (select unnest(range(2)) as team) as t;
