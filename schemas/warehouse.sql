-- name: warehouse
-- The tricklog warehouse: every recorded game in one DuckDB file.
--
-- Loaded by `tricklog load` (pipeline/warehouse/load.py), one transaction per
-- batch of games.  Every non-empty input line ends up in exactly one of:
-- a `games` row, a `quarantine` row, or the run's `already_present` count.
-- Documented column by column in docs/warehouse.md.  These are the tables
-- every game shares; each game adds its own in a schema named after it
-- (euchre.hands, euchre.tricks, ...), from its own DDL file.
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
    game         varchar  not null,                     -- the game: 'euchre', 'tarot', ... (its tables: schema <game>)
    format       varchar  not null,                     -- the record format, e.g. 'euchre/1'
    source       varchar,                               -- the record's free-text `source`
    started_at   varchar,                               -- the record's `started_at`, as written (ISO-8601)
    preset       varchar  not null,                     -- rule preset replayed with
    rules        json     not null,                     -- every rule option replayed with (preset + overrides)
    players      varchar[] not null,                    -- names indexed by seat
    hands_played integer  not null check (hands_played >= 0),  -- hands recorded and replayed (incl. thrown in)
    scores       bigint[] not null,                     -- final scores as the game keeps them (Euchre: per team; Tarot: per seat)
    complete     boolean  not null,                     -- the game reached its end (Euchre: a team reached the target)
    violations   integer  not null check (violations >= 0),    -- rows in `violations` for this game
    extra        json                                   -- unknown top-level fields, kept as JSON
);

create table if not exists violations (
    run_id  integer not null,
    game_id varchar,                                      -- null when the line had no usable id
    file    varchar,
    line    bigint,
    hand    integer,                                      -- null for game-level violations
    trick   integer,                                      -- the trick (0-based), where one applies
    seat    tinyint,                                      -- the seat at fault, where one is
    player  varchar,                                      -- the name sitting in that seat
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

-- Player identity, from `load --players FILE`: an alias and the canonical name
-- of the person, or a name that is no person (placeholder; canonical null).
-- The report maps names through it (and the built-in placeholders North, p0, ...).
create table if not exists player_names (
    name        varchar not null primary key,             -- a name as it appears in games.players
    canonical   varchar,                                  -- the person's canonical name; null for a placeholder
    placeholder boolean not null                          -- the name stands for a seat, not a person
);
