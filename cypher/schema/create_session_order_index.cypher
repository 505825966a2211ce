// A client session's notes by creation time: the write path finds the note a new one FOLLOWS
// (notes of no session are not in it).
// params: none.
// returns: nothing
CREATE INDEX note_session_created IF NOT EXISTS FOR (n:Note) ON (n.session_id, n.created)
