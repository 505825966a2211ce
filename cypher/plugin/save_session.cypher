// Store the OpenCode plugin's record of one OpenCode session (created on its first save).
// params: session_id; project; state: map of the record's fields (strings, lists, ints);
//         now: datetime.
// returns: session_id
MERGE (s:PluginSession {session_id: $session_id})
SET s += $state, s.project = $project, s.updated = $now
RETURN s.session_id AS session_id
