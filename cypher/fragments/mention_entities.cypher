// Fragment, rendered into statements when they load (never run alone): the note n MENTIONS each
// entity of {{entities}} (maps of key, name, kind), one Entity per project and canonical key,
// made when new; an entity gains {{live}} (1 for a live note, 0 for an archived one) in its
// count of live notes when the MENTIONS is new. The CALL imports {{imports}} (n among them).
CALL ({{imports}}) {
  UNWIND {{entities}} AS ent
  MERGE (e:Entity {project: n.project, key: ent.key})
    ON CREATE SET e.name = ent.name, e.kind = ent.kind, e.notes = 0, e.created = $now
  MERGE (n)-[:MENTIONS]->(e)
    ON CREATE SET e.notes = e.notes + {{live}}
}
