// A benchmark project's entities: how many, and the ten most mentioned with their live counts.
// params: project.
// returns: entities, top; top: list of {name, kind, notes}, most mentioned first
CALL () {
  MATCH (e:Entity {project: $project})
  RETURN count(e) AS entities
}
RETURN entities, COLLECT {
  MATCH (e:Entity {project: $project})
  RETURN {name: e.name, kind: e.kind, notes: e.notes} AS top ORDER BY e.notes DESC LIMIT 10
} AS top
