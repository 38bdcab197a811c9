"""The command line's segments: ``--segments FILE --segment-by COLUMN`` prints, instead of the
overall means, one row per segment with each model's mean, the winner and whether it is
significantly best (the table the dashboard's Segments page shows), and the warnings."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from rankmetrics.cli.options import decompressed_size
from rankmetrics.errors import DataError, printable
from rankmetrics.evaluation import Evaluation
from rankmetrics.export import to_csv
from rankmetrics.io import interaction_counts, read_attributes, read_interactions
from rankmetrics.metrics import METRICS
from rankmetrics.segments import (
    ACTIVITY,
    COLD_START,
    GROUND_TRUTH_SIZE,
    MIN_USERS,
    N_BUCKETS,
    SegmentComparison,
    compare_segments,
    segment_users,
)
from rankmetrics.stats import CORRECTION_NAMES, TEST_NAMES

DEFAULT_METRIC, DEFAULT_CUTOFF = "ndcg", 10


def add_segment_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "segments", "Which model is better for whom: the table per segment of users."
    )
    group.add_argument("--segments", metavar="FILE",
                       help="user attributes: a user column and any others (country, plan, "
                       "age...), CSV/TSV/Parquet/JSON Lines or RecBole's .user; with --save, "
                       "kept in the saved evaluation for the dashboard's segments")
    group.add_argument("--segment-by", metavar="COLUMN",
                       help=f"the attribute column to split the users by, or "
                       f"'{GROUND_TRUTH_SIZE}' (no --segments needed), or '{ACTIVITY}' or "
                       f"'{COLD_START}' (with --interactions); prints the segment table "
                       "instead of the overall means")
    group.add_argument("--segment-metric", default=DEFAULT_METRIC, choices=list(METRICS),
                       help="the metric of the segment table (default: %(default)s)")
    group.add_argument("--segment-cutoff", type=int, default=DEFAULT_CUTOFF, metavar="K",
                       help="its cutoff (default: %(default)s)")
    group.add_argument("--baseline", metavar="MODEL",
                       help="the model the others are compared with (default: the first run)")
    group.add_argument("--buckets", type=int, default=N_BUCKETS, metavar="N",
                       help="quantile buckets of a numeric column (default: %(default)s)")
    group.add_argument("--min-segment-users", type=int, default=MIN_USERS, metavar="N",
                       help="segments with fewer users are not tested (default: %(default)s)")


def segment_cutoff(args: argparse.Namespace) -> int:
    """The largest K the evaluation needs for the segment table (1 when there is none)."""
    if args.segment_by is None:
        if args.segments is not None and not getattr(args, "save", None):
            raise ValueError("--segments needs --segment-by COLUMN: the column to split the "
                             "users by (or --save, to keep the file in the saved evaluation "
                             "for the dashboard's segments).")
        return 1
    if args.segment_cutoff < 1:
        raise ValueError(f"--segment-cutoff must be a whole number >= 1. Got "
                         f"{args.segment_cutoff}.")
    return int(args.segment_cutoff)


def segment_report(args: argparse.Namespace, evaluation: Evaluation,
                   interactions_columns: dict[str, str] | None = None) -> str:
    """The segment table in the chosen format; its warnings also go to stderr. The training
    interactions' columns are those ``--columns interactions:...`` chose."""
    attributes = None
    if args.segments is not None:
        try:
            attributes = read_attributes(args.segments, key="user",
                                         max_decompressed_size=decompressed_size(args))
        except (DataError, OSError) as error:
            raise ValueError(f"--segments {args.segments}: {error}") from None
        for warning in attributes.warnings:
            print(f"rankmetrics: warning: {printable(warning)}", file=sys.stderr)
    counts = _training_counts(args, interactions_columns)
    try:
        segmentation = segment_users(evaluation, args.segment_by, attributes=attributes,
                                     training_counts=counts, n_buckets=args.buckets)
    except ValueError as error:
        raise ValueError(f"--segment-by: {error}") from None
    result = compare_segments(evaluation, segmentation, args.segment_metric,
                              args.segment_cutoff, baseline=args.baseline, test=args.test,
                              correction=args.correction, min_users=args.min_segment_users)
    for warning in result.warnings:
        print(f"rankmetrics: warning: {printable(warning)}", file=sys.stderr)
    return render(result, args.format, getattr(args, "csv_formulas", "quoted"))


def _training_counts(args: argparse.Namespace,
                     columns: dict[str, str] | None) -> pd.Series | None:
    """Each user's training interactions (from ``--interactions``), for the activity and
    cold-start segments."""
    path = getattr(args, "interactions", None)
    if args.segment_by not in (ACTIVITY, COLD_START):
        return None
    if path is None:
        raise ValueError(f"--segment-by {args.segment_by} needs --interactions FILE: each "
                         "user's training interactions.")
    try:
        read = read_interactions(path, columns=columns,
                                 max_decompressed_size=decompressed_size(args))
        return interaction_counts(read)
    except (DataError, OSError) as error:
        raise ValueError(f"--interactions {path}: {error}") from None


def render(result: SegmentComparison, fmt: str, formulas: str = "quoted") -> str:
    """``csv``: :meth:`SegmentComparison.table`; ``json``: the segments, each model's row and
    the warnings; ``table``: the table as text, with how it was tested and the warnings."""
    if fmt == "csv":
        return to_csv(result.export_table(), formulas=formulas)
    table = result.table()
    if fmt == "json":
        document = {
            "segment_by": result.by, "metric": result.metric, "cutoff": result.cutoff,
            "baseline": result.baseline, "test": result.test, "correction": result.correction,
            "segments": json.loads(result.segments.to_json(orient="records")),
            "models": json.loads(result.models.to_json(orient="records", double_precision=15)),
            "warnings": list(result.warnings),
        }
        return json.dumps(document, indent=2) + "\n"
    label = METRICS[result.metric].label + (f"@{result.cutoff}" if result.cutoff else "")
    lines = [
        f"{label} by {result.by}; significant: the winner beats every other model "
        f"({TEST_NAMES[result.test]}, {CORRECTION_NAMES[result.correction]} correction over "
        f"all segment x pair tests, level {1 - result.confidence:.0%})",
        table.to_string(index=False, float_format=lambda v: f"{v:.4f}"),
        *(f"warning: {printable(warning)}" for warning in result.warnings),
    ]
    return "\n".join(lines) + "\n"
