// The server's product version and edition.
// params: none.
// returns: version, edition
CALL dbms.components() YIELD versions, edition
RETURN versions[0] AS version, edition
