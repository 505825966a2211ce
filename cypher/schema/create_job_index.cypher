// Durable work queue (evolution, mirror): jobs are found by state and uniquely keyed.
// params: none.
// returns: nothing
CREATE CONSTRAINT job_key IF NOT EXISTS FOR (j:Job) REQUIRE j.key IS UNIQUE
