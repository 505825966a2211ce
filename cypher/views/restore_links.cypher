// Restore typed relationships from a backup (types checked by the caller against LinkType and
// used as dynamic types); an existing relationship of that type is overwritten, not doubled.
// params: rows: list of {src, dst, type, props: map, temporal: list of {key, type, value}}.
// returns: src, dst, type; type of each restored relationship (missing end notes are skipped)
UNWIND $rows AS row
MATCH (a:Note {zk_id: row.src}), (b:Note {zk_id: row.dst})
MERGE (a)-[r:$(row.type)]->(b)
SET r = row.props
FOREACH (t IN row.temporal | SET r[t.key] = CASE t.type
  WHEN 'ZONED DATETIME' THEN datetime(t.value) WHEN 'LOCAL DATETIME' THEN localdatetime(t.value)
  WHEN 'DATE' THEN date(t.value) WHEN 'ZONED TIME' THEN time(t.value)
  WHEN 'LOCAL TIME' THEN localtime(t.value) WHEN 'DURATION' THEN duration(t.value) END)
RETURN a.zk_id AS src, b.zk_id AS dst, type(r) AS type
