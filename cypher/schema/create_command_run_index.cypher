// The last outcome of each command the OpenCode plugin saw fail, looked up by project and key.
// params: none.
// returns: nothing
CREATE INDEX command_run_key IF NOT EXISTS FOR (r:CommandRun) ON (r.project, r.key)
