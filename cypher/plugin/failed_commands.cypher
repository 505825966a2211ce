// The commands whose last run in the project failed with an error, newest first, each with the
// mistakes its failed runs were stored as (a hold needs a fix of one of them).
// params: project; limit: most commands.
// returns: key, command, mistakes; key: the plugin's command key, command: its last spelling,
//          mistakes: zk_ids, oldest first
MATCH (r:CommandRun {project: $project})
WHERE r.outcome = 'failed'
WITH r ORDER BY r.updated DESC LIMIT $limit
RETURN r.key AS key, r.command AS command, r.mistakes AS mistakes
