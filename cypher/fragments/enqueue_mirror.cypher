// Fragment, rendered into statements when they load (never run alone): the Obsidian mirror's job
// for the note or tombstone {{note}} (id {{id}}), one durable job per note, re-armed on every
// change. `requests` counts the asks under the job's write lock, so it orders them as they
// commit: a worker that claimed the job before this ask runs it again (a timestamp taken before
// the lock could be older than the one the claim saw). Binds j.
MERGE (j:Job {key: 'mirror:' + {{id}}})
ON CREATE SET j.kind = 'mirror', j.zk_id = {{id}}, j.created = $now
SET j.project = {{note}}.project, j.state = 'pending', j.attempts = 0, j.requested = $now,
    j.requests = coalesce(j.requests, 0) + 1, j.error = null
