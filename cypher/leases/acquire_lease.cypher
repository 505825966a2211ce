// Take a named lease: granted only when it is new or expired, so a holder that finished early
// (it holds the lease for the rest of its period) does not run twice either. The node is
// write-locked (SET seen) before its expiry is read, so two processes cannot both win; the
// unique constraint on name makes the MERGE safe.
// params: lease (its name); holder; now, until: datetimes.
// returns: holder, expires, acquired
MERGE (l:Lease {name: $lease})
ON CREATE SET l.holder = $holder, l.expires = $now
SET l.seen = $now
WITH l, l.expires <= $now AS granted
SET l.holder = CASE WHEN granted THEN $holder ELSE l.holder END,
    l.expires = CASE WHEN granted THEN $until ELSE l.expires END
RETURN l.holder AS holder, l.expires AS expires, granted AS acquired
