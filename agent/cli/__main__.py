"""`python -m agent.cli ...`: the `sparkit` command without its console script."""

import sys

from agent.cli import main

sys.exit(main())
