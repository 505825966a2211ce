// Every project key: those of workspace identities and those notes are filed under, with the
// identity's readable name and ids, and the project's live and forgotten note counts.
// params: none.
// returns: key, name, id, former_ids, notes, forgotten
CALL () {
  MATCH (n:Note) RETURN n.project AS key, count(*) AS notes, 0 AS forgotten
  UNION ALL
  MATCH (f:Forgotten) RETURN f.project AS key, 0 AS notes, count(*) AS forgotten
  UNION ALL
  MATCH (p:Project) RETURN p.key AS key, 0 AS notes, 0 AS forgotten
}
WITH key, sum(notes) AS notes, sum(forgotten) AS forgotten
OPTIONAL MATCH (p:Project {key: key})
RETURN key, p.name AS name, p.id AS id, coalesce(p.former_ids, []) AS former_ids,
       notes, forgotten
ORDER BY key
