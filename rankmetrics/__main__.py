"""``python -m rankmetrics``: the command line."""

from rankmetrics.cli import run

run()
