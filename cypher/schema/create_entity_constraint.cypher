// One entity node per canonical key and project: MERGE on (project, key) is safe under concurrency.
// params: none.
// returns: nothing
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.project, e.key) IS UNIQUE
