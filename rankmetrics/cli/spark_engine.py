"""``rankmetrics evaluate --engine spark``: the ground truth and the model outputs are Parquet
files or folders that Spark reads and evaluates (:mod:`rankmetrics.spark`); the accuracy
metrics only, printed and saved as the local engine does."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rankmetrics.cli.beyond_inputs import beyond_files
from rankmetrics.cli.options import relevance_mapping, run_name_and_path, warn
from rankmetrics.cli.results import render_results, write_output
from rankmetrics.cli.save import saved_cutoffs, saved_metrics, saving
from rankmetrics.conventions import Conventions
from rankmetrics.io import read_attributes


def evaluate_on_spark(args: argparse.Namespace, metrics: Sequence[str], beyond: Sequence[str],
                      cutoffs: list[int], conventions: Conventions,
                      columns: dict[str, str]) -> int:
    """``--engine spark``: Parquet files or folders evaluated by Spark."""
    if beyond or args.segment_by is not None:
        raise ValueError("--engine spark computes the accuracy metrics; beyond-accuracy "
                         "metrics and --segment-by need --engine local.")
    if beyond_files(args):
        raise ValueError(f"--engine spark computes the accuracy metrics only, so "
                         f"{', '.join(beyond_files(args))} cannot be used with it: "
                         "evaluate with --engine local to compute and save the "
                         "beyond-accuracy metrics.")
    if args.per_user:
        raise ValueError("--per-user is not available with --engine spark: save a bundle with "
                         "--save DIR, whose per_user/ folder holds the per-user values.")
    if args.segments is not None:  # a file on this machine, refused before Spark starts
        read_attributes(args.segments, key="user")
    try:  # imported here: pyspark, an extra and slow to load, serves this engine only
        from rankmetrics.spark import (
            distinct_ratings,
            evaluate_spark,
            spark_session,
        )
    except ImportError:
        raise ValueError("--engine spark needs pyspark: pip install 'rankmetrics[spark]'.") \
            from None
    spark = spark_session()
    truth = spark.read.parquet(args.truth)
    runs = {}
    for spec in args.run:
        name, path = run_name_and_path(spec)
        if name in runs:
            raise ValueError(f"Two runs are named {name!r}: name them with NAME=FILE.")
        runs[name] = spark.read.parquet(path)
    mapping = relevance_mapping(args, distinct_ratings(truth, columns))
    per_user_cutoffs = [*saved_cutoffs(args, cutoffs), max(cutoffs)]
    evaluation = evaluate_spark(truth, runs, relevance=mapping, conventions=conventions,
                                max_cutoff=max(cutoffs),
                                metrics=saved_metrics(metrics) if args.save else metrics,
                                columns=columns,
                                per_user_cutoffs=per_user_cutoffs if args.save else None)
    warn([warning.describe() for warning in evaluation.warnings])
    print(f"rankmetrics: conventions: {conventions.describe()}", file=sys.stderr)
    text = render_results(evaluation.summary(metrics, cutoffs), args, conventions, mapping,
                          evaluation, tested=False)
    if args.save:
        with saving(args.save):
            saved = evaluation.save(args.save, chosen_cutoff=max(cutoffs),
                                    sample=args.sample_users,
                                    cutoffs=saved_cutoffs(args, cutoffs),
                                    user_attributes=args.segments)
        print(f"rankmetrics: saved the evaluation to {saved}", file=sys.stderr)
    return write_output(text, args)
