// What a rewrite needs about one note (project scoping, kind, type, text).
// params: zk_id.
// returns: zk_id, project, note_kind, memory_type, title, content, context, pinned,
//          failure_signature
MATCH (n:Note {zk_id: $zk_id})
RETURN n.zk_id AS zk_id, n.project AS project, n.note_kind AS note_kind,
       n.memory_type AS memory_type, n.title AS title, n.content AS content,
       n.context AS context, n.pinned AS pinned, n.failure_signature AS failure_signature
