// Create or refresh typed links in one batch. The type is a parameter checked by the caller
// against the closed LinkType vocabulary and used as a dynamic type, never spliced into text.
// params: rows: list of {src, dst, type, reason, weight}; now: datetime.
// returns: src, dst, type; type of each link written
UNWIND $rows AS row
MATCH (a:Note {zk_id: row.src}), (b:Note {zk_id: row.dst})
MERGE (a)-[r:$(row.type)]->(b)
ON CREATE SET r.created = $now
SET r.reason = row.reason, r.weight = row.weight
RETURN a.zk_id AS src, b.zk_id AS dst, type(r) AS type
