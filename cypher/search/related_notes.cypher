// A note's neighbourhood up to depth 3 over the typed note relationships, with directions
// (each edge keeps its src -> dst orientation).
// params: zk_id; depth: 1..3.
// returns: root, entities, nodes, edges; no row when the note is missing; else root, the
//          entities it mentions (key, name, kind, notes; rarest first), nodes (zk_id, title,
//          note_kind, memory_type, depth: fewest hops from the root), edges (src, dst, type,
//          reason, weight)
MATCH (root:Note {zk_id: $zk_id})
RETURN root.zk_id AS root,
  COLLECT {
    MATCH (root)-[:MENTIONS]->(e:Entity)
    RETURN {key: e.key, name: e.name, kind: e.kind, notes: e.notes} AS entity
    ORDER BY e.notes, e.key
  } AS entities,
  COLLECT {
    MATCH p = (root)-[:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF*1..3]-(m:Note)
    WHERE length(p) <= $depth AND m <> root
    WITH m, min(length(p)) AS depth
    RETURN {zk_id: m.zk_id, title: coalesce(m.title, ''), note_kind: m.note_kind,
            memory_type: m.memory_type, depth: depth} AS node
    ORDER BY node.depth, node.zk_id
  } AS nodes,
  COLLECT {
    MATCH p = (root)-[:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF*1..3]-(:Note)
    WHERE length(p) <= $depth
    UNWIND relationships(p) AS r
    WITH DISTINCT r
    RETURN {src: startNode(r).zk_id, dst: endNode(r).zk_id, type: type(r),
            reason: coalesce(r.reason, ''), weight: coalesce(r.weight, 0.0)} AS edge
    ORDER BY edge.src, edge.dst, edge.type
  } AS edges
