"""`python -m kg_brain.cli`: the `kg-brain` command without the console script."""

from kg_brain.cli import main

raise SystemExit(main())
