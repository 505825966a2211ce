// One page of notes for a backup, in zk_id order (keyset paging), every property typed:
// temporal values as their Cypher string form with their type, the embedding and the
// sentences' vectors (fragments/write_sentences) apart.
// params: after: last zk_id of the previous page ('' to start); projects: list or null (all);
//         zk_ids: list or null (all); limit.
// returns: zk_id, props, embedding, sentences; props: list of [key, type, value], embedding,
//          sentences: list of vectors
MATCH (n:Note)
WHERE n.zk_id > $after AND ($projects IS NULL OR n.project IN $projects)
  AND ($zk_ids IS NULL OR n.zk_id IN $zk_ids)
WITH n ORDER BY n.zk_id LIMIT $limit
WITH n, [k IN keys(n) WHERE k <> 'embedding'
         | [k, replace(valueType(n[k]), ' NOT NULL', '')]] AS typed
RETURN n.zk_id AS zk_id,
       [t IN typed | [t[0], t[1],
         CASE WHEN t[1] IN ['ZONED DATETIME', 'LOCAL DATETIME', 'DATE', 'ZONED TIME', 'LOCAL TIME',
                            'DURATION'] THEN toString(n[t[0]]) ELSE n[t[0]] END]] AS props,
       n.embedding AS embedding,
       [(p:Sentence)-[:SENTENCE_OF]->(n) | p.embedding] AS sentences
