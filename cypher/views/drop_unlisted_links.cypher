// Restoring a backup that lists every link between its notes (a migration's backup) puts them
// back exactly: a link from one of its notes to another, of a type the backup does not list for
// that pair in that direction (one a migration re-typed or added), is dropped.
// params: srcs: a batch of the backup's notes; zk_ids: all of the backup's notes; listed: the
//         backup's links as 'src TYPE dst' texts; link_types: the LinkType vocabulary.
// returns: src, dst, type; each dropped link
UNWIND $srcs AS id
MATCH (a:Note {zk_id: id})-[r]->(b:Note)
WHERE b.zk_id IN $zk_ids AND type(r) IN $link_types
  AND NOT (a.zk_id + ' ' + type(r) + ' ' + b.zk_id) IN $listed
WITH a, b, r, type(r) AS type
DELETE r
RETURN a.zk_id AS src, b.zk_id AS dst, type
