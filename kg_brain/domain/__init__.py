"""The services, each built on one dependency bundle (deps.py): the memory's write side
(memory/), search, lifecycle, consolidation, sessions, mistakes, stats, curation, browsing and
projects."""
