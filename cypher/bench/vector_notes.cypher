// Plain vector search over one project's live notes (the benchmark baselines: flat vector
// search and each hop of the seed's deep search); read only. The index, or an exact scan of a
// small project (fragments/nearest_in_project).
// params: vector: 384 floats; project; excluded: note kinds to leave out; fetch: index
//         candidates; rescan: the exact scan follows a short index answer; k: results.
// returns: zk_id, title, score, preview, note_kind; score (the cosine in [-1, 1]), best
//          first
{{> nearest_in_project
    as: hits
    vector: $vector
    size: $k
    where: n.memory_type = 'permanent' AND NOT n.note_kind IN $excluded }}
UNWIND hits AS hit
WITH hit.n AS n, hit.s AS score
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, score, left(n.content, 200) AS preview,
       n.note_kind AS note_kind
ORDER BY score DESC, zk_id
