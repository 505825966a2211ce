// The server's product version and edition (the kernel's: 2026.x lists Cypher as a component too).
// params: none.
// returns: version, edition
CALL dbms.components() YIELD name, versions, edition
WITH versions, edition WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS version, edition
