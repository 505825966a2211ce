// The projects with jobs of a kind ready to claim (pending, unclaimed or their claim expired),
// the one waiting longest first: the whole database's drain takes each project's queue in turn,
// behind that project's lease.
// params: kind; now: datetime.
// returns: project
MATCH (j:Job {kind: $kind, state: 'pending'})
WHERE (j.claimed_until IS NULL OR j.claimed_until < $now) AND j.project IS NOT NULL
WITH j.project AS project, min(j.created) AS oldest
ORDER BY oldest
RETURN project
