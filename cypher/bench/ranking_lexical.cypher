// The full-text (BM25) scores of one project's notes for a Lucene query, as a note index
// (note_fulltext or note_words) answers it inside the searches (bench/ranking.py reads one word
// in one field at a time, and counts the hits as search_memory does for the word's idf in the
// project); read only.
// params: index: the note index; lex: Lucene query; limit: index candidates; project.
// returns: zk_id, score
CALL db.index.fulltext.queryNodes($index, $lex, {limit: $limit})
YIELD node, score
WHERE node.project = $project
RETURN node.zk_id AS zk_id, score
ORDER BY score DESC, zk_id
