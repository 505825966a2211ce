// Stress check: the reported links that do not exist in the graph (a lost relationship).
// params: rows: list of {src, dst, type}.
// returns: src, dst, type; type of each missing link
UNWIND $rows AS row
OPTIONAL MATCH (:Note {zk_id: row.src})-[r]->(:Note {zk_id: row.dst})
WHERE type(r) = row.type
WITH row, count(r) AS found
WHERE found = 0
RETURN row.src AS src, row.dst AS dst, row.type AS type
