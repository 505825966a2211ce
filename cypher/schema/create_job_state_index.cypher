// Workers look up pending jobs by kind and state.
// params: none.
// returns: nothing
CREATE INDEX job_kind_state IF NOT EXISTS FOR (j:Job) ON (j.kind, j.state)
