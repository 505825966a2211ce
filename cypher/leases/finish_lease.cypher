// A finished run: record when it ran (missed runs are found from it) and hold the lease until
// just before the job's next fire time. Only the holder can.
// params: lease (its name); holder; now, until: datetimes.
// returns: name; when the lease is held by holder
MATCH (l:Lease {name: $lease, holder: $holder})
SET l.expires = $until, l.last_run = $now
RETURN l.name AS name
