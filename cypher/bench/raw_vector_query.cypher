// One raw vector index query, the yardstick that search latencies are compared with.
// params: index (name), k, vector.
// score is the index's own (1 + cos) / 2, unconverted: this is a latency yardstick, never ranked.
// returns: zk_id, score
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.zk_id AS zk_id, score
