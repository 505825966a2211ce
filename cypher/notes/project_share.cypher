// How many notes one project holds next to the whole database (the count store answers the
// second in constant time): the vector index cannot filter by project, so a search asks it for
// more candidates the smaller the project's share (see kg_brain/store/share.py).
// params: project.
// returns: project_notes, all_notes
RETURN COUNT { MATCH (n:Note) WHERE n.project = $project } AS project_notes,
       COUNT { MATCH (n:Note) } AS all_notes
