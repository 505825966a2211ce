"""Thin entry: runs kg-brain's maintenance scheduler (archival, consolidation report, evolution
queue) in the foreground. The same as `kg-brain scheduler`."""

from kg_brain.surfaces.maintenance import main

if __name__ == "__main__":
    raise SystemExit(main())
