// What the OpenCode plugin keeps about one OpenCode session (kg_brain/surfaces/plugin_session.py): its
// requests, edits and runs, its open failures, the holds shown, its start context and handoff.
// params: session_id.
// returns: state; the session's properties as a map (no row when the session is new)
MATCH (s:PluginSession {session_id: $session_id})
RETURN properties(s) AS state
