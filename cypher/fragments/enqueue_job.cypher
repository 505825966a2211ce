// Fragment, rendered into statements when they load (never run alone): the durable queue's job
// {{row}} (a map of key, kind, zk_id, project), one per key: MERGE makes enqueueing idempotent.
// Binds j.
MERGE (j:Job {key: {{row}}.key})
ON CREATE SET j.kind = {{row}}.kind, j.zk_id = {{row}}.zk_id, j.project = {{row}}.project,
              j.state = 'pending', j.attempts = 0, j.created = $now
