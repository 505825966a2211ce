// The kept previous versions of a page of exported notes, every property typed.
// params: zk_ids: the page's ids.
// returns: note, props; note (zk_id), props: list of [key, type, value]
MATCH (r:Revision)-[:REVISION_OF]->(n:Note)
WHERE n.zk_id IN $zk_ids
WITH n, r, [k IN keys(r) | [k, replace(valueType(r[k]), ' NOT NULL', '')]] AS typed
RETURN n.zk_id AS note,
       [t IN typed | [t[0], t[1],
         CASE WHEN t[1] IN ['ZONED DATETIME', 'LOCAL DATETIME', 'DATE', 'ZONED TIME', 'LOCAL TIME',
                            'DURATION'] THEN toString(r[t[0]]) ELSE r[t[0]] END]] AS props
ORDER BY note, r.version
