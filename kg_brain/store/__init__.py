"""Data access: one module per aggregate; each function runs named statements from `cypher/`."""
