// Everything a write to one project can change, summed: notes by state, links touching them,
// revisions, jobs, access stamps and update times (hostile-input tests compare before/after).
// params: project.
// returns: notes, fleeting, archived, links, revisions, jobs, accesses, updated
OPTIONAL MATCH (n:Note {project: $project})
OPTIONAL MATCH (n)-[r]-(:Note)
WITH n, count(r) AS degree
OPTIONAL MATCH (rev:Revision)-[:REVISION_OF]->(n)
WITH n, degree, count(rev) AS revs
RETURN count(n) AS notes,
       sum(CASE n.memory_type WHEN 'fleeting' THEN 1 ELSE 0 END) AS fleeting,
       sum(CASE n.memory_type WHEN 'archived' THEN 1 ELSE 0 END) AS archived,
       sum(degree) AS links, sum(revs) AS revisions,
       COUNT { MATCH (j:Job {project: $project}) } AS jobs,
       sum(n.access_count) AS accesses, max(n.updated) AS updated
