// Take or renew a named lease: granted when free, expired, or already ours. The node is
// write-locked (SET seen) before its holder and expiry are read, so two processes cannot both
// win; the unique constraint on name makes the MERGE safe.
// params: name; holder; now, until: datetimes. returns: holder, expires, acquired (bool).
MERGE (l:Lease {name: $name})
ON CREATE SET l.holder = $holder, l.expires = $until
SET l.seen = $now
WITH l, (l.holder = $holder OR l.expires <= $now) AS granted
SET l.holder = CASE WHEN granted THEN $holder ELSE l.holder END,
    l.expires = CASE WHEN granted THEN $until ELSE l.expires END
RETURN l.holder AS holder, l.expires AS expires, granted AS acquired
