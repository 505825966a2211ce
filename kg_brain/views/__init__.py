"""How people look at, move and care for the memory: Neo4j Browser queries and style, the
Obsidian mirror, the MEMORY.md view, backups, migrations, schema health and seeding."""
