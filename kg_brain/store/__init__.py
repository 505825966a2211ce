"""The store: the driver and its transactions (db.py), one module per area of `cypher/` whose
functions each run one named statement, and the local Neo4j server (localdb/)."""
