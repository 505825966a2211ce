// A project's notes by creation time: the write path finds the note a new one FOLLOWS.
// params: none.
// returns: nothing
CREATE INDEX note_project_created IF NOT EXISTS FOR (n:Note) ON (n.project, n.created)
