// A note's neighbourhood up to depth 3 over the typed note relationships, bounded by node count:
// the $max_nodes nearest notes (fewest hops, then id), the links among them and the root (each
// edge keeps its src -> dst orientation; links touching the root first, at most 2 per node).
// params: zk_id; depth: 1..3; max_nodes: most neighbours returned.
// returns: root, project, entities, nodes, total, edges; no row when the note is missing; else
//          root, its project, the entities it mentions (key, name, kind, notes; rarest first),
//          nodes (zk_id, title, note_kind, memory_type, depth: fewest hops from the root), total:
//          neighbours within depth before the bound, edges (src, dst, type, reason, weight)
MATCH (root:Note {zk_id: $zk_id})
CALL (root) {
  MATCH p = (root)-[:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF*1..3]-(m:Note)
  WHERE length(p) <= $depth AND m <> root
  WITH m, min(length(p)) AS depth
  ORDER BY depth, m.zk_id
  RETURN collect({zk_id: m.zk_id, title: coalesce(m.title, ''), note_kind: m.note_kind,
                  memory_type: m.memory_type, depth: depth}) AS found
}
WITH root, found, found[..$max_nodes] AS nodes
WITH root, nodes, size(found) AS total, [root.zk_id] + [x IN nodes | x.zk_id] AS ids
RETURN root.zk_id AS root, root.project AS project,
  COLLECT {
    MATCH (root)-[:MENTIONS]->(e:Entity)
    RETURN {key: e.key, name: e.name, kind: e.kind, notes: e.notes} AS entity
    ORDER BY e.notes, e.key
  } AS entities,
  nodes, total,
  COLLECT {
    MATCH (a:Note)-[r:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES|PART_OF]->(b:Note)
    WHERE a.zk_id IN ids AND b.zk_id IN ids
    RETURN {src: a.zk_id, dst: b.zk_id, type: type(r), reason: coalesce(r.reason, ''),
            weight: coalesce(r.weight, 0.0)} AS edge
    ORDER BY CASE WHEN a = root OR b = root THEN 0 ELSE 1 END, edge.src, edge.dst, edge.type
    LIMIT 2 * ($max_nodes + 1)
  } AS edges
