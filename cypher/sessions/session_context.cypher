// A project's state at session start, as headlines: the last session summary, the active open
// thread, pinned and project_context notes, recent decisions, recent mistakes with their fixes.
// params: project; limit: most items per list.
// returns: summary, thread, pinned, context, decisions, mistakes; one row: summary, thread (map or
//          null), pinned, context, decisions (lists of maps), mistakes (maps with a `fixes` list)
RETURN
  head(COLLECT {
    MATCH (s:Note {project: $project, note_kind: 'session_summary'})
    WHERE s.memory_type <> 'archived'
    WITH s ORDER BY s.created DESC LIMIT 1
    RETURN s {.zk_id, .title, .content, .created}
  }) AS summary,
  head(COLLECT {
    MATCH (t:Note {project: $project, note_kind: 'open_thread'})
    WHERE t.memory_type <> 'archived'
    WITH t ORDER BY t.created DESC LIMIT 1
    RETURN t {.zk_id, .title, .content, .created}
  }) AS thread,
  COLLECT {
    MATCH (p:Note {project: $project, pinned: true})
    WHERE p.memory_type <> 'archived' AND NOT p.note_kind IN ['session_summary', 'open_thread']
    WITH p ORDER BY p.updated DESC LIMIT $limit
    RETURN p {.zk_id, .title, .note_kind, .updated}
  } AS pinned,
  COLLECT {
    MATCH (c:Note {project: $project, note_kind: 'project_context'})
    WHERE c.memory_type <> 'archived' AND NOT coalesce(c.pinned, false)
    WITH c ORDER BY c.updated DESC LIMIT $limit
    RETURN c {.zk_id, .title, .note_kind, .updated}
  } AS context,
  COLLECT {
    MATCH (d:Note {project: $project, note_kind: 'decision'})
    WHERE d.memory_type <> 'archived' AND NOT coalesce(d.pinned, false)
    WITH d ORDER BY d.updated DESC LIMIT $limit
    RETURN d {.zk_id, .title, .note_kind, .updated}
  } AS decisions,
  COLLECT {
    MATCH (m:Note {project: $project, note_kind: 'mistake'})
    WHERE m.memory_type <> 'archived' AND NOT coalesce(m.pinned, false)
    WITH m ORDER BY m.updated DESC LIMIT $limit
    RETURN m {.zk_id, .title, .note_kind, .updated,
              fixes: COLLECT {
                MATCH (f:Note)-[:FIXES]->(m)
                WHERE f.memory_type <> 'archived'
                WITH f ORDER BY f.created DESC
                RETURN f {.zk_id, .title, .note_kind, .updated}
              }}
  } AS mistakes
