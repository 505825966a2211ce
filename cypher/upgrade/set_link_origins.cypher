// Links written before links carried an origin get one: 'explicit' for those the system asserted
// (a fix's FIXES, a handoff's PART_OF, a merge's SUPERSEDES: weight 1.0), 'auto' for those the
// enricher decided. A link that has an origin by now is left alone.
// params: rows: list of {src, dst, type, origin}.
// returns: src, dst, origin; each link given an origin
UNWIND $rows AS row
MATCH (a:Note {zk_id: row.src})-[r:$(row.type)]->(b:Note {zk_id: row.dst})
WHERE r.origin IS NULL
SET r.origin = row.origin
RETURN a.zk_id AS src, b.zk_id AS dst, r.origin AS origin
