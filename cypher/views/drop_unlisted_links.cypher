// Restoring a backup that lists every link between its notes (a migration's backup) puts each
// pair back exactly: a link between two of its notes, in that direction, of a type the backup
// does not list for that pair (one a migration re-typed) is dropped.
// params: pairs: list of {src, dst, types: the pair's link types in the backup};
//         link_types: the LinkType vocabulary.
// returns: src, dst, type; each dropped link
UNWIND $pairs AS pair
MATCH (a:Note {zk_id: pair.src})-[r]->(b:Note {zk_id: pair.dst})
WHERE type(r) IN $link_types AND NOT type(r) IN pair.types
WITH a, b, r, type(r) AS type
DELETE r
RETURN a.zk_id AS src, b.zk_id AS dst, type
