-- name: dataset_files
-- Every input file read (by any load; filtered: the files of the games in scope), with the games it gave, the lines quarantined and the copies it holds.
with files_read as (
    select f.path as file, min(r.run_id) as first_run, count(*) as loads
    from ingest_runs as r, unnest(r.files) as u(f)
    where not report_filtered()
    group by f.path
    union all
    select distinct g.file, g.run_id, 1
    from scoped_games() as g
    where report_filtered()
),

per_file_games as (
    select file, count(*) as games from scoped_games() group by file
),

per_file_quarantine as (
    select file, count(*) as lines_quarantined from quarantine where not report_filtered() group by file
),

per_file_copies as (
    select file, count(*) as hand_copies from hand_copies() where copy_no > 1 group by file
),

final as (
    select
        f.file,
        coalesce(g.games, 0) as games,
        coalesce(q.lines_quarantined, 0) as lines_quarantined,
        coalesce(c.hand_copies, 0) as hand_copies
    from (select file, min(first_run) as first_run from files_read group by file) as f
    left join per_file_games as g using (file)
    left join per_file_quarantine as q using (file)
    left join per_file_copies as c using (file)
)

select * from final order by file
