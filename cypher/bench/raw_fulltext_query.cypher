// One raw full-text index query, the lexical yardstick that search latencies are compared with.
// params: lex: Lucene query; k.
// score is the BM25 score of the index.
// returns: zk_id, score
CALL db.index.fulltext.queryNodes('note_fulltext', $lex, {limit: $k}) YIELD node, score
RETURN node.zk_id AS zk_id, score
