// Remove the link of one type from one note to another, whoever made it. The type is a
// parameter checked by the caller against the closed LinkType vocabulary.
// params: src; dst; type.
// returns: src, dst, origin; one row per link removed
MATCH (a:Note {zk_id: $src})-[r:$($type)]->(b:Note {zk_id: $dst})
WITH a, b, r, coalesce(r.origin, 'auto') AS origin
DELETE r
RETURN a.zk_id AS src, b.zk_id AS dst, origin
