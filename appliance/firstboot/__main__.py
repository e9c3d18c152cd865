"""`python -m appliance.firstboot`: see appliance.firstboot.cli."""

from appliance.firstboot.cli import main

raise SystemExit(main())
