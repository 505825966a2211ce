// Fragment, rendered into statements when they load (never run alone): the columns note, links
// and entities of the full note n: its properties (embedding left out), its links to notes in
// both directions and the entities it mentions, rarest first.
n {.*, embedding: null} AS note,
COLLECT {
  MATCH (n)-[r]-(m:Note)
  RETURN {zk_id: m.zk_id, type: type(r),
          direction: CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END,
          reason: coalesce(r.reason, ''), weight: coalesce(r.weight, 0.0),
          title: coalesce(m.title, '')}
} AS links,
COLLECT {
  MATCH (n)-[:MENTIONS]->(e:Entity)
  RETURN {key: e.key, name: e.name, kind: e.kind, notes: e.notes} AS entity
  ORDER BY e.notes, e.key
} AS entities
