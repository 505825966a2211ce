// The same for a claim within one project (jobs/claim_project_jobs).
// params: none.
// returns: nothing
CREATE INDEX job_project_claim_order IF NOT EXISTS FOR (j:Job) ON (j.kind, j.state, j.project, j.created)
