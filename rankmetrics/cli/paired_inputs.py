"""The inputs of the commands that test pairs of models at one metric and K (``plan``,
``runs``): the ground truth and models' files, or a saved evaluation, read into the per-user
values every model counts."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

import pandas as pd

from rankmetrics.cli.options import (
    MAX_CURVE_CUTOFF,
    add_confidence_option,
    add_significance_options,
    cutoff,
    decompressed_size,
    read_conventions,
    read_truth_and_runs,
    reading,
    refuse_with_bundle,
    relevance_mapping,
)
from rankmetrics.evaluation import Evaluation, SavedEvaluation, evaluate, load_bundle
from rankmetrics.io import LoadedTable
from rankmetrics.metrics import METRICS

#: The K when the command line does not say (or the largest K of a saved evaluation).
DEFAULT_CUTOFF = 10


def add_paired_inputs(parser: argparse.ArgumentParser, run_help: str, *,
                      bundle: bool = True) -> None:
    """``--truth``, ``--run``, ``--bundle``, ``--metric`` and ``--cutoff`` (the caller adds
    :func:`~rankmetrics.cli.options.add_reading_options` after its own options)."""
    parser.add_argument("--truth", metavar="FILE", help="the ground truth")
    parser.add_argument("--run", action="append", metavar="[NAME=]FILE", help=run_help)
    if bundle:
        parser.add_argument("--bundle", metavar="PATH",
                            help="a saved evaluation (.zip or folder) instead of --truth and "
                            "--run")
    parser.add_argument("--metric", choices=list(METRICS), default="ndcg",
                        help="the metric (default: %(default)s)")
    parser.add_argument("--cutoff", metavar="K",
                        help=f"the K (default: {DEFAULT_CUTOFF}, or the largest K when "
                        "smaller)")
    parser.add_argument("--max-cutoff", metavar="K", help=argparse.SUPPRESS)


def read_evaluation(args: argparse.Namespace, command: str, *, fewest: int = 2
                    ) -> tuple[Evaluation | SavedEvaluation, int | None]:
    """The evaluation of the files (or the saved evaluation) and the cutoff of ``--metric``
    (None for a metric without one); ``fewest``: the ``--run`` files the command needs."""
    evaluation, _, metric_cutoff = read_evaluation_and_runs(args, command, fewest=fewest)
    return evaluation, metric_cutoff


def read_evaluation_and_runs(args: argparse.Namespace, command: str, *, fewest: int = 2
                             ) -> tuple[Evaluation | SavedEvaluation, dict[str, LoadedTable],
                                        int | None]:
    """As :func:`read_evaluation`, with the models' files as read (none for a saved
    evaluation): what needs their scores, such as the bounds over orders of equal scores."""
    evaluation: Evaluation | SavedEvaluation
    runs: dict[str, LoadedTable] = {}
    if getattr(args, "bundle", None) is not None:
        refuse_with_bundle(args)
        with reading(f"--bundle {args.bundle}", args.bundle):
            evaluation = load_bundle(args.bundle, max_memory=decompressed_size(args))
        highest = evaluation.max_cutoff
    else:
        if args.truth is None or not args.run or len(args.run) < fewest:
            needed = "at least two --run FILE" if fewest > 1 else "at least one --run FILE"
            raise ValueError(f"{command} needs --truth FILE and {needed}"
                             + (", or --bundle PATH (a saved evaluation)."
                                if hasattr(args, "bundle") else "."))
        highest = MAX_CURVE_CUTOFF
    chosen = (min(DEFAULT_CUTOFF, highest) if args.cutoff is None
              else cutoff("--cutoff", args.cutoff, highest))
    metric_cutoff = chosen if METRICS[args.metric].has_cutoff else None
    if getattr(args, "bundle", None) is None:
        truth, runs = read_truth_and_runs(args, decompressed_size(args))
        mapping = relevance_mapping(args, truth.numbers())
        evaluation = evaluate(truth, runs, relevance=mapping, conventions=read_conventions(args),
                              max_cutoff=chosen)
    if metric_cutoff is not None and metric_cutoff not in evaluation.per_user_cutoffs:
        raise ValueError(f"--cutoff: the saved evaluation holds every user's values at K = "
                         f"{', '.join(map(str, evaluation.per_user_cutoffs))}; choose one of "
                         "them.")
    return evaluation, runs, metric_cutoff


def read_paired_values(args: argparse.Namespace, command: str
                       ) -> tuple[pd.DataFrame, str]:
    """The per-user values at ``--metric`` and ``--cutoff`` of the users every model counts
    (one column per model), and the metric's label (``NDCG@10``)."""
    evaluation, metric_cutoff = read_evaluation(args, command)
    values = evaluation.paired(args.metric, metric_cutoff)
    if len(values.columns) < 2 or len(values) < 2:
        raise ValueError(f"{command} compares at least two models on at least two users every "
                         f"model counts; there are {len(values.columns)} model(s) and "
                         f"{len(values)} user(s).")
    label = METRICS[args.metric].label + (f"@{metric_cutoff}" if metric_cutoff else "")
    return values, label


def add_pair_test_options(parser: argparse.ArgumentParser, texts: Mapping[str, str], *,
                          test_default: str = "randomization", bootstrap: bool = False) -> None:
    """The test (``texts`` describe ``--test`` and ``--correction``), ``--confidence``,
    ``--permutations``, ``--bootstrap`` when asked, ``--seed`` and ``--csv``."""
    add_significance_options(parser, texts, test_default=test_default)
    add_confidence_option(parser)
    parser.add_argument("--permutations", type=int, default=10_000,
                        help="random sign flips (or shuffles) of the randomization and "
                        "randomized Tukey tests (default: %(default)s)")
    if bootstrap:
        parser.add_argument("--bootstrap", type=int, default=1_000,
                            help="bootstrap resamples of the intervals and ranks "
                            "(default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random draws")
    parser.add_argument("--csv", action="store_true",
                        help="print the models' and the pairs' tables as CSV instead of "
                        "sentences")


def check_draws(args: argparse.Namespace) -> None:
    """``--permutations`` (and ``--bootstrap``, where there is one) are at least 1."""
    for option in ("permutations", "bootstrap"):
        value = getattr(args, option, None)
        if value is not None and value < 1:
            raise ValueError(f"--{option} must be at least 1; got {value}.")


def print_tables(*tables: pd.DataFrame) -> None:
    """The tables as CSV on stdout, a blank line between two."""
    for index, table in enumerate(tables):
        if index:
            print()
        table.to_csv(sys.stdout, index=False, float_format="%.12g", lineterminator="\n")
