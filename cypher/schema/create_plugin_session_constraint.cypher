// The OpenCode plugin's record of a session: one node per OpenCode session id.
// params: none.
// returns: nothing
CREATE CONSTRAINT plugin_session_id IF NOT EXISTS FOR (s:PluginSession) REQUIRE s.session_id IS UNIQUE
