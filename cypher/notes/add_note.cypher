// A new note's whole write in one statement (add_memory; a fix in record_resolution): the note
// and its vector, the entities it mentions, the links decided for it, the degree bound they may
// break, its evolution job, its place in its client session's order and, when the Obsidian
// mirror is set up, the mirror's job of every note it changed; answers the note as
// notes/get_notes reads it.
// The session order: the note FOLLOWS the permanent note the same client session wrote last in
// the project, when that one was written at or after $since (the session's gap). Session
// handoffs (session_summary, open_thread) take no part: they digest the session, and the plugin
// writes one after every reply, which would split the steps they digest. Found through the
// (session_id, created) index, newest first.
// params: row: every Note property (kg_brain.domain.memory.text.note_row; embedding: 384 floats;
//         entities: list of {key, name, kind}, written as MENTIONS); add: what changes in
//         kind or size from one note to the next, as one map (one cached plan serves every
//         note): links: list of {dst, type, reason, weight, origin}; similar: the notes among
//         them linked RELATES_TO, whose degree bound (and the new note's) is kept ([]: none to
//         keep); jobs: list of {key, kind, zk_id, project}; session_id: the client session
//         writing, null for no place in an order; keep: most automatic RELATES_TO per note;
//         since: earliest creation time in the same session; reason: the FOLLOWS link's
//         reason; mirror: true to arm the mirror's job of each changed note
//         (fragments/enqueue_mirror) here rather than in a statement of its own; now: datetime.
// returns: changed, note, links, entities; one row: changed, every note whose links changed
//          (the new one, the ends of its links, of the links pruned and of its FOLLOWS); note,
//          links and entities as in notes/get_notes
WITH $row AS row
{{> create_note }}
{{> mention_entities
    imports: n, row
    entities: row.entities
    live: 1 }}
CALL (n) {
  UNWIND $add.links AS link
  MATCH (b:Note {zk_id: link.dst})
  {{> merge_link
      src: n
      dst: b
      row: link }}
  RETURN collect(b.zk_id) AS linked
}
CALL (n) {
  UNWIND CASE WHEN size($add.similar) > 0 THEN [n.zk_id] + $add.similar ELSE [] END AS id
  MATCH (p:Note {zk_id: id})
  {{> prune_similarity
      note: p
      keep: $keep }}
  RETURN reduce(c = [], x IN collect(CASE WHEN dropped > 0 THEN others + [p.zk_id] END)
                | c + x) AS pruned
}
CALL () {
  UNWIND $add.jobs AS job
  {{> enqueue_job
      row: job }}
}
CALL (n) {
  MATCH (p:Note)
  WHERE $add.session_id IS NOT NULL AND p.session_id = $add.session_id AND p.created >= $since
    AND p.created <= n.created AND p.project = n.project
    AND p.memory_type = 'permanent' AND NOT p.note_kind IN ['session_summary', 'open_thread']
    AND p <> n
  WITH p ORDER BY p.created DESC, p.zk_id DESC LIMIT 1
  MERGE (n)-[r:FOLLOWS]->(p)
  ON CREATE SET r.created = $now, r.reason = $reason, r.weight = 1.0, r.origin = 'auto'
  RETURN collect(p.zk_id) AS followed
}
WITH n, [n.zk_id] + linked + pruned + followed AS changed
CALL (changed) {
  UNWIND CASE WHEN $mirror THEN changed ELSE [] END AS id
  WITH DISTINCT id
  MATCH (m:Note {zk_id: id})
  {{> enqueue_mirror
      note: m
      id: id }}
}
RETURN changed,
  {{> note_view }}
