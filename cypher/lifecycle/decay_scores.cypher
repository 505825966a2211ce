// Decay scores of live permanent notes over the whole graph (or one project), set-based, with
// the date archival becomes due. See kg_brain/domain/lifecycle.py for the formula; its constants come
// in as parameters so the Python and Cypher forms cannot drift apart.
// params: project (null = every project); now: datetime; stale_days; max_access; threshold;
//         half_life_days; saturation; w_recency; w_importance; due_only: true = only notes that
//         archival would take now; limit: max rows listed.
// returns: total, rows; one row: total (how many notes qualify) and rows, the first $limit of
//          them, soonest due first, each a map of zk_id, title, project, note_kind, pinned,
//          access_count, inbound, days_idle, decay_score, archive_due (ISO text|null: cheaper to
//          ship than datetimes), reason
MATCH (n:Note {memory_type: 'permanent'})
WHERE $project IS NULL OR n.project = $project
WITH n, coalesce(n.access_count, 0) AS access, coalesce(n.last_accessed, n.created) AS anchor,
     coalesce(n.pinned, false) AS pinned
WITH n, access, anchor, pinned,
     CASE WHEN anchor >= $now THEN 0.0
          ELSE duration.inSeconds(anchor, $now).seconds / 86400.0 END AS days_idle
WHERE NOT $due_only OR (NOT pinned AND access < $max_access AND days_idle > $stale_days)
WITH n, access, anchor, pinned, days_idle,
     COUNT { (n)<-[r]-(m:Note) WHERE m.memory_type <> 'archived'
                                     AND NOT type(r) IN ['SUPERSEDES', 'FOLLOWS'] }
       AS inbound,
     CASE WHEN access >= $saturation THEN 1.0
          ELSE log(1.0 + access) / log(1.0 + $saturation) END AS importance
WITH n, access, anchor, pinned, days_idle, inbound,
     $w_recency * exp(-log(2.0) * days_idle / (1 + inbound) / $half_life_days)
       + $w_importance * importance AS score,
     ($threshold - $w_importance * importance) / $w_recency AS recency_due
WHERE NOT $due_only OR score < $threshold
WITH n, access, anchor, pinned, days_idle, inbound, score,
     CASE WHEN pinned OR access >= $max_access OR recency_due <= 0 THEN null
          WHEN recency_due >= 1 THEN 0.0
          ELSE (1 + inbound) * $half_life_days * log(1.0 / recency_due) / log(2.0) END AS decay_days
WITH n, access, anchor, pinned, days_idle, inbound, score,
     CASE WHEN decay_days IS NULL THEN null
          WHEN decay_days > $stale_days THEN decay_days ELSE toFloat($stale_days) END AS due_days
WITH n, access, pinned, days_idle, inbound, score,
     CASE WHEN due_days IS NULL THEN null
          ELSE toString(anchor + duration({seconds: toInteger(ceil(due_days * 86400.0)) + 1}))
     END AS archive_due
ORDER BY archive_due ASC, score ASC, n.zk_id ASC
WITH collect({zk_id: n.zk_id, title: n.title, project: n.project, note_kind: n.note_kind,
              pinned: pinned, access_count: access, inbound: inbound, days_idle: days_idle,
              decay_score: score, archive_due: archive_due,
              reason: 'stale: idle ' + toString(toInteger(days_idle)) + ' days, '
                + toString(access) + ' accesses, ' + toString(inbound) + ' inbound links, decay '
                + toString(round(score, 3))}) AS rows
RETURN size(rows) AS total, rows[..$limit] AS rows
