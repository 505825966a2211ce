// Two workspace identities never file their notes under one project key.
// params: none.
// returns: nothing
CREATE CONSTRAINT project_key IF NOT EXISTS FOR (p:Project) REQUIRE p.key IS UNIQUE
