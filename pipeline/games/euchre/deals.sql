
-- Each hand as dealt, one row per seat, for the hands whose record gives the
-- deal in full (euchre.hands.deal_known): the studies' input (double-dummy
-- par, the hand viewer).  Cards by their canonical names, in the record's order.
create table if not exists euchre.deals (
    game_id varchar   not null,
    hand_no integer   not null check (hand_no >= 0),
    seat    tinyint   not null check (seat between 0 and 3),
    cards   varchar[] not null                               -- the five cards dealt to the seat
);
