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
from rankmetrics.cli.options import Commands, add_confidence_option, add_reading_options
from rankmetrics.cli.paired_inputs import add_paired_inputs, read_paired_values
from rankmetrics.stats import CORRECTION_NAMES, CORRECTIONS, describe_plan, plan_pair
from rankmetrics.stats.power import MOST_USERS

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
    add_paired_inputs(plan, "a model's output (repeat: at least two)")
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
    values, label = read_paired_values(args, "plan")
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
