// Index names, types and states (status, brain_stats).
// params: none.
// returns: name, type, state, properties
SHOW INDEXES YIELD name, type, state, properties
RETURN name, type, state, properties
ORDER BY name
