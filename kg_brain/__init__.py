"""kg-brain: knowledge-graph-first long-term memory for coding agents."""
