"""``rankmetrics plan``: how many users it takes to see a difference between two models.

From the spread of the per-user differences of each pair of models at one metric and K
(:func:`rankmetrics.stats.plan_pair`): the smallest difference these users detect with the
power asked for, the power at the difference observed, and the users needed for a given lift
or difference. Prints the answers in words, or one CSV row per pair with ``--csv``.
"""

from __future__ import annotations

import argparse
import sys
from itertools import combinations

import pandas as pd

from rankmetrics.checks import check_probability
from rankmetrics.cli.options import (
    MAX_CURVE_CUTOFF,
    Commands,
    add_confidence_option,
    add_reading_options,
    cutoff,
    decompressed_size,
    read_conventions,
    read_truth_and_runs,
    reading,
    refuse_with_bundle,
    relevance_mapping,
)
from rankmetrics.evaluation import Evaluation, SavedEvaluation, evaluate, load_bundle
from rankmetrics.metrics import METRICS
from rankmetrics.stats import CORRECTION_NAMES, CORRECTIONS, describe_plan, plan_pair
from rankmetrics.stats.power import MOST_USERS

DEFAULT_CUTOFF = 10
DEFAULT_LIFT_PERCENT = 1.0
CSV_COLUMNS = ("model_a", "model_b", "users", "mean_a", "difference", "sd", "alpha", "power",
               "detectable", "detectable_lift", "observed_power", "lift", "users_needed")


def add_plan_parser(commands: Commands) -> None:
    """The ``plan`` command's options."""
    plan = commands.add_parser(
        "plan",
        help="how many users it takes to see a difference between two models (power and "
        "sample size)",
        description="For every pair of models at one metric and K, from the spread of the "
        "per-user differences: the smallest difference these users detect with the power "
        "asked for, the power at the difference observed, and the users needed to detect a "
        "given lift (or difference) of the lower model's mean. For a paired t-test at the "
        "strictest level the correction can apply (the significance level divided by the "
        "number of pairs).",
    )
    plan.add_argument("--truth", metavar="FILE", help="the ground truth")
    plan.add_argument("--run", action="append", metavar="[NAME=]FILE",
                      help="a model's output (repeat: at least two)")
    plan.add_argument("--bundle", metavar="PATH",
                      help="a saved evaluation (.zip or folder) instead of --truth and --run")
    plan.add_argument("--metric", choices=list(METRICS), default="ndcg",
                      help="the metric (default: %(default)s)")
    plan.add_argument("--cutoff", metavar="K",
                      help=f"the K (default: {DEFAULT_CUTOFF}, or the largest K when smaller)")
    plan.add_argument("--power", type=float, default=0.8,
                      help="the chance of detecting a real difference (default: %(default)s)")
    plan.add_argument("--lift", type=float, default=DEFAULT_LIFT_PERCENT, metavar="PERCENT",
                      help="the lift to detect, in %% of the lower model's mean "
                      "(default: %(default)s)")
    plan.add_argument("--difference", type=float, metavar="D",
                      help="a difference to detect in the metric's units, instead of --lift")
    plan.add_argument("--correction", choices=CORRECTIONS, default="holm",
                      help="the multiple-comparison correction the pairs will be tested "
                      "with (default: %(default)s)")
    add_confidence_option(plan)
    plan.add_argument("--csv", action="store_true",
                      help="print one CSV row per pair instead of sentences")
    plan.add_argument("--max-cutoff", metavar="K", help=argparse.SUPPRESS)
    add_reading_options(plan)


def run_plan(args: argparse.Namespace) -> int:
    """Read the files (or the saved evaluation) and print each pair's plan."""
    try:
        power = check_probability("--power", args.power)
    except ValueError as error:
        raise ValueError(f"--power must be between 0 and 1, such as 0.8; got {args.power}."
                         ) from error
    if not 0 < args.lift <= 1000:
        raise ValueError(f"--lift is a percentage above 0 (such as 1 for 1%); got {args.lift}.")
    if args.difference is not None and not args.difference > 0:
        raise ValueError(f"--difference must be above 0; got {args.difference}.")
    metric_cutoff: int | None
    evaluation: Evaluation | SavedEvaluation
    if args.bundle is not None:
        refuse_with_bundle(args)
        with reading(f"--bundle {args.bundle}", args.bundle):
            evaluation = load_bundle(args.bundle, max_memory=decompressed_size(args))
        highest = evaluation.max_cutoff
    else:
        if args.truth is None or not args.run or len(args.run) < 2:
            raise ValueError("plan needs --truth FILE and at least two --run FILE, or "
                             "--bundle PATH (a saved evaluation).")
        highest = MAX_CURVE_CUTOFF
    chosen = (min(DEFAULT_CUTOFF, highest) if args.cutoff is None
              else cutoff("--cutoff", args.cutoff, highest))
    metric_cutoff = chosen if METRICS[args.metric].has_cutoff else None
    if args.bundle is None:
        truth, runs = read_truth_and_runs(args, decompressed_size(args))
        mapping = relevance_mapping(args, truth.numbers())
        evaluation = evaluate(truth, runs, relevance=mapping, conventions=read_conventions(args),
                              max_cutoff=chosen)
    if metric_cutoff is not None and metric_cutoff not in evaluation.per_user_cutoffs:
        raise ValueError(f"--cutoff: the saved evaluation holds every user's values at K = "
                         f"{', '.join(map(str, evaluation.per_user_cutoffs))}; choose one of "
                         "them.")
    values = evaluation.paired(args.metric, metric_cutoff)
    if len(values.columns) < 2 or len(values) < 2:
        raise ValueError("plan compares at least two models on at least two users every "
                         f"model counts; there are {len(values.columns)} model(s) and "
                         f"{len(values)} user(s).")
    label = METRICS[args.metric].label + (f"@{metric_cutoff}" if metric_cutoff else "")
    means = values.mean()
    pairs = [(a, b) if means[a] <= means[b] else (b, a)
             for a, b in combinations(values.columns, 2)]
    lift = args.lift / 100
    rows = []
    for model_a, model_b in pairs:
        plan = plan_pair(values[model_a].to_numpy(), values[model_b].to_numpy(), power=power,
                         confidence=args.confidence, pairs=len(pairs))
        asked = args.difference if args.difference is not None else lift * plan.mean_a
        needed = plan.users_for_difference(asked)
        rows.append({"model_a": model_a, "model_b": model_b, "users": plan.users,
                     "mean_a": plan.mean_a, "difference": plan.difference, "sd": plan.sd,
                     "alpha": plan.alpha, "power": plan.power, "detectable": plan.detectable,
                     "detectable_lift": plan.detectable_lift,
                     "observed_power": plan.observed_power,
                     "lift": asked / plan.mean_a if plan.mean_a else float("nan"),
                     "users_needed": needed if needed <= MOST_USERS else None})
        if not args.csv:
            print(f"{model_b} vs {model_a} on {label}:")
            lines = describe_plan(plan, label, str(model_a), str(model_b),
                                  asked / plan.mean_a if plan.mean_a else lift)
            for line in lines:
                print(f"  {line}")
    if args.csv:
        pd.DataFrame(rows, columns=list(CSV_COLUMNS)).to_csv(
            sys.stdout, index=False, float_format="%.12g", lineterminator="\n")
    else:
        level = (f"each pair at level {1 - args.confidence:g} / {len(pairs)} (the strictest "
                 f"the {CORRECTION_NAMES[args.correction]} correction applies)"
                 if len(pairs) > 1 else f"at level {1 - args.confidence:g}")
        print(f"For a paired t-test on the {len(values):,} users every model counts, "
              f"{level}.")
    return 0
