// The typed relationships of a page of exported notes: every outgoing one, plus incoming ones
// from notes outside the exported projects (so a project-filtered backup keeps them too).
// params: zk_ids: the page's ids; projects: list or null (all).
// returns: src, type, dst, props; props: list of [key, type, value] (temporal values as strings)
UNWIND $zk_ids AS id
MATCH (n:Note {zk_id: id})
CALL (n) {
  MATCH (n)-[r]->(m:Note)
  RETURN n.zk_id AS src, r, m.zk_id AS dst
  UNION ALL
  MATCH (m:Note)-[r]->(n)
  WHERE $projects IS NOT NULL AND NOT m.project IN $projects
  RETURN m.zk_id AS src, r, n.zk_id AS dst
}
WITH src, r, dst, [k IN keys(r) | [k, replace(valueType(r[k]), ' NOT NULL', '')]] AS typed
RETURN src, type(r) AS type, dst,
       [t IN typed | [t[0], t[1],
         CASE WHEN t[1] IN ['ZONED DATETIME', 'LOCAL DATETIME', 'DATE', 'ZONED TIME', 'LOCAL TIME',
                            'DURATION'] THEN toString(r[t[0]]) ELSE r[t[0]] END]] AS props
ORDER BY src, type, dst
