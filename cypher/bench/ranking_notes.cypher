// Every live note of a project with what search_memory's ranking reads of it (bench/ranking.py
// mirrors that ranking in numpy to fit its constants); read only. params: project.
// returns: zk_id, title, content, note_kind, created, stated, embedding, follows, fixes,
//          fix_weights, supersedes, asserted, entities, entity_notes, entity_kinds, sentences;
//          created: epoch
//          seconds with their fraction (notes written within one second keep their order, as
//          search_memory compares them); stated: the same, or when update_memory last rewrote it
//          if later; follows:
//          the notes it FOLLOWS (written just before it in its session); fixes: the notes it
//          FIXES, fix_weights: those links' weights (1 when unset), in the same order;
//          supersedes: the live notes it SUPERSEDES, asserted: those of them linked by someone,
//          not the write path (origin not 'auto'); entities: keys of the entities it
//          MENTIONS; entity_notes, entity_kinds: how many notes mention each and its kind, in
//          the same order; sentences: its sentences' vectors (fragments/write_sentences; none
//          until its sentences job ran)
MATCH (n:Note {project: $project, memory_type: 'permanent'})
WHERE n.embedding IS NOT NULL
RETURN n.zk_id AS zk_id, coalesce(n.title, '') AS title, n.content AS content,
       n.note_kind AS note_kind,
       n.created.epochSeconds + n.created.nanosecond / 1.0e9 AS created,
       reduce(t = n.created.epochSeconds + n.created.nanosecond / 1.0e9, x IN COLLECT {
                MATCH (r:Revision)-[:REVISION_OF]->(n) WHERE r.cause = 'update'
                RETURN r.created.epochSeconds + r.created.nanosecond / 1.0e9 }
              | CASE WHEN x > t THEN x ELSE t END) AS stated,
       n.embedding AS embedding,
       COLLECT { MATCH (n)-[:FOLLOWS]->(m:Note {memory_type: 'permanent'}) RETURN m.zk_id }
         AS follows,
       COLLECT { MATCH (n)-[:FIXES]->(m:Note {memory_type: 'permanent'})
                 RETURN m.zk_id ORDER BY m.zk_id } AS fixes,
       COLLECT { MATCH (n)-[r:FIXES]->(m:Note {memory_type: 'permanent'})
                 RETURN coalesce(r.weight, 1.0) ORDER BY m.zk_id } AS fix_weights,
       COLLECT { MATCH (n)-[:SUPERSEDES]->(m:Note {memory_type: 'permanent'}) RETURN m.zk_id }
         AS supersedes,
       COLLECT { MATCH (n)-[s:SUPERSEDES]->(m:Note {memory_type: 'permanent'})
                 WHERE s.origin <> 'auto' RETURN m.zk_id } AS asserted,
       COLLECT { MATCH (n)-[:MENTIONS]->(e:Entity) RETURN e.key ORDER BY e.key } AS entities,
       COLLECT { MATCH (n)-[:MENTIONS]->(e:Entity) RETURN e.notes ORDER BY e.key }
         AS entity_notes,
       COLLECT { MATCH (n)-[:MENTIONS]->(e:Entity) RETURN e.kind ORDER BY e.key }
         AS entity_kinds,
       COLLECT { MATCH (p:Sentence)-[:SENTENCE_OF]->(n) RETURN p.embedding } AS sentences
ORDER BY zk_id
