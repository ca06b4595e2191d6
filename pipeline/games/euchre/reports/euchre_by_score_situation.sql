-- name: euchre_by_score_situation
-- Euchre rate and the dealer's edge by the score at the start of the hand: the makers one point from the target (9 of 10), the score at 8-9 or 9-8, the makers (or the dealer's team) behind, level or ahead.
--
-- The score at the start of a hand is the team's score after it minus the
-- hand's points; "one point from the target" is the game's target minus 1.
-- A hand can be in several situations (makers at 9 and ahead, say).
with counted as (
    select
        c.*,
        e.target,
        if(c.maker_team = 0, c.team0_score - c.team0_points, c.team1_score - c.team1_points) as maker_start,
        if(c.maker_team = 0, c.team1_score - c.team1_points, c.team0_score - c.team0_points) as defender_start,
        if(c.dealer_team = 0, c.team0_score - c.team0_points, c.team1_score - c.team1_points) as dealer_start,
        if(c.dealer_team = 0, c.team1_score - c.team1_points, c.team0_score - c.team0_points) as other_start
    from euchre_counted_hands() as c
    join euchre.games as e using (game_id)
),

situations as (
    select * from (values
        (1, 'makers at 9 (one point from the target)'),
        (2, 'score 8-9 or 9-8'),
        (3, 'makers behind'),
        (4, 'makers level'),
        (5, 'makers ahead'),
        (6, 'dealer''s team behind'),
        (7, 'dealer''s team level'),
        (8, 'dealer''s team ahead')
    ) as s (situation_no, situation)
),

tagged as (
    select s.situation_no, c.euchred, c.dealer_team_points - c.other_team_points as edge
    from counted as c
    join situations as s on case s.situation_no
        when 1 then c.maker_start = c.target - 1
        when 2 then least(c.maker_start, c.defender_start) = c.target - 2
            and greatest(c.maker_start, c.defender_start) = c.target - 1
        when 3 then c.maker_start < c.defender_start
        when 4 then c.maker_start = c.defender_start
        when 5 then c.maker_start > c.defender_start
        when 6 then c.dealer_start < c.other_start
        when 7 then c.dealer_start = c.other_start
        when 8 then c.dealer_start > c.other_start
    end
),

final as (
    select
        s.situation_no,
        s.situation,
        count(t.situation_no) filter (where t.euchred) as euchred_k,
        count(t.situation_no) as euchred_n,
        avg(t.edge) as edge_mean,
        stddev_samp(t.edge) as edge_sd,
        count(t.edge) as edge_count
    from situations as s
    left join tagged as t using (situation_no)
    group by all
)

select * from final order by situation_no
