-- name: audit_quarantine
-- Input lines kept out of the warehouse (not a game, or a repeated game_id), by file and code, with the first line's message as the example; none when filtered.
with quarantined as (
    select * from quarantine where not report_filtered()
),

final as (
    select file, code, count(*) as lines, min(line) as first_line, arg_min(message, line) as example
    from quarantined
    group by file, code
)

select * from final order by lines desc, file, code
