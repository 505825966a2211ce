"""`python -m kg_brain.surfaces.cli`: the `kg-brain` command without the console script."""

from kg_brain.surfaces.cli import main

raise SystemExit(main())
