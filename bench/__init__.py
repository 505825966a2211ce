"""Benchmark programs: retrieval quality (LoCoMo, MuSiQue), link typing, speed at scale, and
reports."""
