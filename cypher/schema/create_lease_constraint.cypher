// Scheduler leases: one lock node per job name.
// params: none.
// returns: nothing
CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (l:Lease) REQUIRE l.name IS UNIQUE
