// One Project node per workspace identity: MERGE on id is safe under concurrency.
// params: none.
// returns: nothing
CREATE CONSTRAINT project_id IF NOT EXISTS FOR (p:Project) REQUIRE p.id IS UNIQUE
