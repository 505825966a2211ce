// Fragment, rendered into statements when they load (never run alone): the notes of {{project}}
// nearest {{vector}} that pass {{where}} and not {{except}} (conditions on n), best first, at most
// {{size}}, bound to {{as}} as a list of {n, s} with s the cosine in [-1, 1] (unless
// {{sentences}}, below). The CALL imports {{imports}}. Neo4j's index score and
// vector.similarity.cosine() are (1 + cos) / 2: s converts them here, so every statement that
// includes this fragment reads the one scale.
// The index's own scores come from its quantized vectors (vector.quantization.enabled, on by
// default in 5.26) and misorder close candidates: every candidate is scored again exactly.
// Neo4j 5.26's vector index cannot filter: it over-fetches ($fetch candidates, sized by the
// project's share of the database) and keeps the project's notes that pass {{where}}; when fewer
// than {{size}} remain (a small project beside large ones) an exact scan of the project answers
// instead when $rescan (a project the scan reads in bounded time, kg_brain/store/share.py
// rescans), else the index's shorter answer stands; otherwise the scan's index seek gets a null
// key and costs nothing. A $fetch of 0 (a project too small for the index to find its notes, or
// holding no more notes than the fetch, kg_brain/store/share.py) skips the index query: the scan
// answers alone, $rescan aside. {{except}} leaves notes out of the answer without deciding
// between the two (notes a caller has already seen). A null {{vector}} finds nothing.
// {{sentences}} (null unless given: the plain cosine) re-scores the best {{sentences}}.reach
// candidates by the cosine (at least {{size}}): s is {{sentences}}.whole times the note's cosine
// plus the rest times its best sentence's cosine (fragments/write_sentences; a note without
// sentences keeps its cosine), and all of them answer, best first by s: the caller takes the
// first {{size}} as its channel and reads the rest's s where it needs them.
CALL ({{imports}}) {
  CALL ({{imports}}) {
    WITH 1 AS one WHERE {{vector}} IS NOT NULL AND $fetch > 0
    CALL db.index.vector.queryNodes('vector_index_Note_embedding', $fetch, {{vector}})
    YIELD node AS n, score
    WHERE n.project = {{project}} AND {{where}}
    WITH n, 2 * vector.similarity.cosine(n.embedding, {{vector}}) - 1 AS s
    ORDER BY s DESC
    RETURN count(n) AS found,
           collect(CASE WHEN NOT ({{except}}) THEN {n: n, s: s} END)
             [..coalesce(({{sentences}}).reach, {{size}})] AS indexed
  }
  WITH *, CASE WHEN found >= {{size}} OR ($fetch > 0 AND NOT $rescan) THEN indexed ELSE COLLECT {
    MATCH (n:Note)
    WHERE n.project = CASE WHEN {{vector}} IS NOT NULL AND found < {{size}}
                             AND ($fetch = 0 OR $rescan) THEN {{project}} END
      AND {{where}} AND NOT ({{except}}) AND n.embedding IS NOT NULL
    WITH n, 2 * vector.similarity.cosine(n.embedding, {{vector}}) - 1 AS s
    RETURN {n: n, s: s} AS hit
    ORDER BY s DESC LIMIT coalesce(({{sentences}}).reach, {{size}})
  } END AS near
  RETURN CASE WHEN {{sentences}} IS NULL THEN near ELSE COLLECT {
    UNWIND near AS x
    WITH x.n AS n, x.s AS whole
    WITH n, whole, reduce(b = null, c IN [(part:Sentence)-[:SENTENCE_OF]->(n)
                     | 2 * vector.similarity.cosine(part.embedding, {{vector}}) - 1]
                     | CASE WHEN b IS NULL OR c > b THEN c ELSE b END) AS best
    WITH n, whole, CASE WHEN best IS NULL THEN whole
                 ELSE ({{sentences}}).whole * whole + (1 - ({{sentences}}).whole) * best END AS s
    RETURN {n: n, s: s} AS hit ORDER BY s DESC
  } END AS {{as}}
}
