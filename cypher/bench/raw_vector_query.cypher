// One raw vector index query, the yardstick that search latencies are compared with.
// params: index (name), k, vector.
// returns: zk_id, score (the index's own (1 + cos) / 2: a latency yardstick, never compared)
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.zk_id AS zk_id, score
