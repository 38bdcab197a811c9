"""``python -m rankmetrics``: the command line."""

import sys

from rankmetrics.cli import main

sys.exit(main())
