// Neo4j Browser: one note and everything within two typed links of it, in any direction.
// Set `:param zk_id => 'ZK-XXXXXXXX'` first. params: zk_id.
// returns: n (the note), p (paths of up to two links to other notes, or null).
MATCH (n:Note {zk_id: $zk_id})
OPTIONAL MATCH p = (n)-[:RELATES_TO|SUPPORTS|EXTENDS|CONTRADICTS|CAUSED_BY|FIXES|SUPERSEDES
                       |PART_OF*1..2]-(:Note)
RETURN n, p
LIMIT 300
