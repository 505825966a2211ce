// The outcome of the last run of a command (by the plugin's command key) in a project: 'failed'
// (with the mistake it was stored as) or 'passed'.
// params: project; key; command: its spelling; outcome: 'failed' or 'passed'; mistake: zk_id of
//         the stored failure, or null; now: datetime.
// returns: key
MERGE (r:CommandRun {project: $project, key: $key})
ON CREATE SET r.mistakes = []
SET r.outcome = $outcome, r.command = $command, r.updated = $now,
    r.mistakes = CASE WHEN $mistake IS NULL THEN r.mistakes
                      ELSE [m IN r.mistakes WHERE m <> $mistake][-9..] + $mistake END
RETURN r.key AS key
