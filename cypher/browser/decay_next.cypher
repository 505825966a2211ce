// Neo4j Browser: what decays next: a project's permanent, unpinned notes with the lowest decay
// score, by the formula of kg_brain/domain/lifecycle.py (its constants in $decay, which the guide sets
// from the code), on the wall clock as a person at the Browser expects. Archival also needs
// the idle and access thresholds; `decay_report` gives the exact due dates.
// params: project; decay: {half_life_days, saturation, w_recency, w_importance}.
// returns: n, score, days_idle, access_count, inbound (links from live notes, not SUPERSEDES
//          nor FOLLOWS).
MATCH (n:Note {project: $project, memory_type: 'permanent'})
WHERE NOT coalesce(n.pinned, false)
WITH n, coalesce(n.access_count, 0) AS access,
     duration.inSeconds(coalesce(n.last_accessed, n.created), datetime()).seconds / 86400.0
       AS days_idle,
     COUNT { (n)<-[r]-(m:Note) WHERE m.memory_type <> 'archived'
                                     AND NOT type(r) IN ['SUPERSEDES', 'FOLLOWS'] }
       AS inbound
WITH n, access, days_idle, inbound,
     $decay.w_recency * exp(-log(2.0) * CASE WHEN days_idle < 0 THEN 0.0 ELSE days_idle END
                            / (1 + inbound) / $decay.half_life_days)
     + $decay.w_importance * CASE WHEN access >= $decay.saturation THEN 1.0
                                  ELSE log(1.0 + access) / log(1.0 + $decay.saturation) END
       AS score
RETURN n, round(score, 3) AS score, toInteger(days_idle) AS days_idle, access AS access_count,
       inbound
ORDER BY score, n.zk_id
LIMIT 25
