"""`python -m ovf`: see ovf.cli."""

from ovf.cli import main

raise SystemExit(main())
