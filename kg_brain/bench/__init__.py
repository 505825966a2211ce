"""Benchmark programs: retrieval quality (LoCoMo, MuSiQue), speed at scale, and reports."""
