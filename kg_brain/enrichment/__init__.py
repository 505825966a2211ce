"""What a note is given before it is written: embeddings (embed/) and titles, kinds, keywords,
entities and links (llm/: heuristic and LLM enrichers)."""
