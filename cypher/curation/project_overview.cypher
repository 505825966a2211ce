// A project at a glance (the kg-brain://project/{name} resource): notes by memory type and kind,
// the entities most notes mention, pinned notes and the active open thread, as headlines.
// params: project; limit: most items per list.
// returns: by_type, by_kind, entities, pinned, thread, forgotten; one row: by_type and by_kind
//          (lists of {name, notes}), entities and pinned (lists of maps), thread (map or null),
//          forgotten (tombstones of the project)
RETURN
  COLLECT {
    MATCH (n:Note {project: $project})
    WITH n.memory_type AS name, count(*) AS notes ORDER BY name
    RETURN {name: name, notes: notes}
  } AS by_type,
  COLLECT {
    MATCH (n:Note {project: $project}) WHERE n.memory_type <> 'archived'
    WITH n.note_kind AS name, count(*) AS notes ORDER BY name
    RETURN {name: name, notes: notes}
  } AS by_kind,
  COLLECT {
    MATCH (e:Entity {project: $project}) WHERE e.notes > 0
    WITH e ORDER BY e.notes DESC, e.key LIMIT $limit
    RETURN e {.key, .name, .kind, .notes}
  } AS entities,
  COLLECT {
    MATCH (p:Note {project: $project, pinned: true}) WHERE p.memory_type <> 'archived'
    WITH p ORDER BY p.updated DESC, p.zk_id LIMIT $limit
    RETURN p {.zk_id, .title, .note_kind}
  } AS pinned,
  head(COLLECT {
    MATCH (t:Note {project: $project, note_kind: 'open_thread'})
    WHERE t.memory_type <> 'archived'
    WITH t ORDER BY t.created DESC LIMIT 1
    RETURN t {.zk_id, .title}
  }) AS thread,
  COUNT { MATCH (f:Forgotten {project: $project}) } AS forgotten
