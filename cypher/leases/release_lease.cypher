// Give a lease back early (a failed run, so the next tick may retry), or hold it until a given
// time (a finished run holds it for the rest of its period). Only the holder can do either.
// params: lease (its name); holder; until: datetime (now = release).
// returns: name; when the lease is held by holder
MATCH (l:Lease {name: $lease, holder: $holder})
SET l.expires = $until
RETURN l.name AS name
