// Archive up to $batch of the notes archival takes now, in the caller's write transaction; the
// caller repeats it until fewer than $batch come back (each chunk commits on its own and stays
// short, under any server transaction timeout). Same selection and formula as
// lifecycle/decay_scores with due_only = true; links from notes archived earlier in this run
// (archived_at = $now) still count, so the chunks archive exactly what the dry run listed.
// params: project (null = every project); now: datetime; stale_days; max_access; threshold;
//         half_life_days; saturation; w_recency; w_importance; batch: notes per chunk.
// returns: zk_id, title, project, note_kind, access_count, inbound, days_idle, decay_score,
//          reason; reason of each note archived
MATCH (n:Note {memory_type: 'permanent'})
WHERE $project IS NULL OR n.project = $project
WITH n, coalesce(n.access_count, 0) AS access, coalesce(n.last_accessed, n.created) AS anchor
WHERE NOT coalesce(n.pinned, false) AND access < $max_access
WITH n, access, anchor,
     CASE WHEN anchor >= $now THEN 0.0
          ELSE duration.inSeconds(anchor, $now).seconds / 86400.0 END AS days_idle
WHERE days_idle > $stale_days
WITH n, access, anchor, days_idle,
     COUNT { (n)<-[r]-(m:Note) WHERE (m.memory_type <> 'archived' OR m.archived_at = $now)
                                AND NOT type(r) IN ['SUPERSEDES', 'FOLLOWS'] }
       AS inbound,
     CASE WHEN access >= $saturation THEN 1.0
          ELSE log(1.0 + access) / log(1.0 + $saturation) END AS importance
WITH n, access, anchor, days_idle, inbound,
     $w_recency * exp(-log(2.0) * days_idle / (1 + inbound) / $half_life_days)
       + $w_importance * importance AS score
WHERE score < $threshold
WITH n, access, anchor, days_idle, inbound, score,
     'stale: idle ' + toString(toInteger(days_idle)) + ' days, ' + toString(access)
       + ' accesses, ' + toString(inbound) + ' inbound links, decay '
       + toString(round(score, 3)) AS reason
WITH n, access, days_idle, inbound, score, reason
LIMIT $batch
SET n.memory_type = 'archived', n.archived_at = $now, n.archive_reason = reason
RETURN n.zk_id AS zk_id, n.title AS title, n.project AS project, n.note_kind AS note_kind,
       access AS access_count, inbound, days_idle, score AS decay_score, reason
