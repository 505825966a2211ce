"""What tests share: the Neo4j under test, settings and brains built on it, a small graph, and
helpers to drive the MCP server through a real client."""
