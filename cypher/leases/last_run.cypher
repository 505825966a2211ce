// When a leased job last finished a run. A job never seen before starts its clock now: a new
// database has no missed run to catch up (and a first start does not archive at once). The
// unique constraint on name makes the MERGE safe; ON CREATE leaves the lease free.
// params: lease (its name); now: datetime.
// returns: last_run
MERGE (l:Lease {name: $lease})
ON CREATE SET l.holder = '', l.expires = $now
SET l.last_run = coalesce(l.last_run, $now)
RETURN l.last_run AS last_run
