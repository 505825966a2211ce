// Restore kept versions of notes from a backup, keyed by (note zk_id, version), idempotent.
// params: rows: list of {note, version, props: map, temporal: list of {key, type, value}}.
// returns: note, version; version of each restored revision (revisions of missing notes are
//          skipped)
UNWIND $rows AS row
MATCH (n:Note {zk_id: row.note})
MERGE (r:Revision {zk_id: row.note, version: row.version})
SET r = row.props
FOREACH (t IN row.temporal | SET r[t.key] = CASE t.type
  WHEN 'ZONED DATETIME' THEN datetime(t.value) WHEN 'LOCAL DATETIME' THEN localdatetime(t.value)
  WHEN 'DATE' THEN date(t.value) WHEN 'ZONED TIME' THEN time(t.value)
  WHEN 'LOCAL TIME' THEN localtime(t.value) WHEN 'DURATION' THEN duration(t.value) END)
MERGE (r)-[:REVISION_OF]->(n)
RETURN n.zk_id AS note, r.version AS version
