// An automatic link re-decided by the current rules takes its new type: same ends and direction,
// same properties (created, weight, origin), the new reason. When the pair already has a link of
// the new type (an explicit FIXES, say), the automatic one is dropped instead of doubled.
// params: rows: list of {src, dst, old, new, reason}; old and new are LinkType values.
// returns: src, dst, type; the type each re-decided link now has
UNWIND $rows AS row
MATCH (a:Note {zk_id: row.src})-[r:$(row.old)]->(b:Note {zk_id: row.dst})
WHERE r.origin = 'auto'
WITH a, b, r, row, properties(r) AS props
MERGE (a)-[s:$(row.new)]->(b)
  ON CREATE SET s = props, s.reason = row.reason
DELETE r
RETURN a.zk_id AS src, b.zk_id AS dst, type(s) AS type
