"""``rankmetrics metrics``: the metrics rankmetrics computes, with what each one means and its
formula (LaTeX), as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from rankmetrics.cli.options import Commands
from rankmetrics.metrics import BEYOND_METRICS, METRICS


def add_metrics_parser(commands: Commands) -> None:
    """The ``metrics`` command's options."""
    listing = commands.add_parser(
        "metrics",
        help="list the metrics: name, label, meaning and formula",
        description="List the metrics rankmetrics computes, with what each one means and its "
        "formula (LaTeX).",
    )
    listing.add_argument("--format", choices=("table", "json"), default="table",
                         help="output format (default: table)")


def run_metrics(args: argparse.Namespace) -> int:
    """Print the listing in ``--format``."""
    sys.stdout.write(metric_listing(args.format))
    return 0


def metric_listing(fmt: str = "table") -> str:
    """Every registered metric: name, label, whether it has a cutoff, meaning and formula.

    >>> print(metric_listing().splitlines()[0])
    precision (Precision@K): Share of the top K slots that hold a relevant item (divided by K \
even when the list is shorter, unless the conventions divide by the list's length).
    """
    if fmt == "json":
        rows = [{"name": name, "label": metric.label, "has_cutoff": metric.has_cutoff,
                 "main": metric.main, "description": metric.description,
                 "formula": metric.formula} for name, metric in METRICS.items()]
        rows += [{"name": name, "label": metric.label, "has_cutoff": True, "main": False,
                  "description": metric.description, "formula": metric.formula,
                  "per_user": metric.averaged, "needs": metric.needs}
                 for name, metric in BEYOND_METRICS.items()]
        return json.dumps(rows, indent=2) + "\n"
    blocks = [
        f"{name} ({metric.label}{'@K' if metric.has_cutoff else ''}): {metric.description}\n"
        f"    {metric.formula}"
        for name, metric in METRICS.items()
    ]
    blocks += [
        f"{name} ({metric.label}@K, beyond accuracy, "
        f"{'per user' if metric.averaged else 'whole system'}"
        f"{'' if metric.needs == 'nothing' else ', needs ' + metric.needs}): "
        f"{metric.description}\n    {metric.formula}"
        for name, metric in BEYOND_METRICS.items()
    ]
    return "\n\n".join(blocks) + "\n"
