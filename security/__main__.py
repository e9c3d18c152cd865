"""`python -m security` is `python -m security.report`."""

import sys

from security.report import main

sys.exit(main())
