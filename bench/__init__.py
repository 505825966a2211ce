"""Benchmark programs: retrieval quality (LoCoMo, MuSiQue), link typing, speed at scale, and
reports. Not part of the installed server: they run from a checkout (`python -m bench.<program>`,
or `kg-brain bench ...` with the checkout installed editable)."""
