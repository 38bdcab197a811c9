"""``rankmetrics runs``: models trained with several seeds, compared with the runs' spread.

Models named ``name@run`` (``--run als@seed1=als_1.csv``, or files named so) are runs of one
model (:func:`rankmetrics.stats.run_groups`). At one metric and K, prints each model's mean
and SD across its runs, then each pair tested over users (the chosen paired test on each
user's mean over the runs) and over runs (Welch's t-test on the runs' means), in words; or
the two tables as CSV with ``--csv`` (the models, a blank line, the pairs).
"""

from __future__ import annotations

import argparse

import pandas as pd

from rankmetrics.cli.options import Commands, add_reading_options
from rankmetrics.cli.paired_inputs import (
    add_pair_test_options,
    add_paired_inputs,
    check_draws,
    print_tables,
    read_paired_values,
)
from rankmetrics.stats import (
    RUN_SEPARATOR,
    compare_runs,
    describe_runs_pair,
    has_runs,
    run_groups,
    runs_method_text,
)

PAIR_CSV_COLUMNS = ("model_a", "model_b", "mean_a", "mean_b", "difference", "ci_low",
                    "ci_high", "p_value", "p_corrected", "significant", "runs_a", "runs_b",
                    "sd_a", "sd_b", "spread", "within_spread", "runs_t", "runs_p",
                    "runs_p_corrected", "runs_significant", "users")


def add_runs_parser(commands: Commands) -> None:
    """The ``runs`` command's options."""
    runs = commands.add_parser(
        "runs",
        help="models trained with several seeds: is the difference larger than the runs' "
        "own spread?",
        description=f"Models named NAME{RUN_SEPARATOR}RUN (such as als{RUN_SEPARATOR}seed1) "
        "are runs of one model. At one metric and K: each model's mean and standard "
        "deviation across its runs, and each pair tested over users (the paired test on "
        "each user's value averaged over the runs) and over runs (Welch's t-test on the "
        "runs' means, which needs two runs of each model), with a warning where the runs "
        "differ as much as the models.",
    )
    add_paired_inputs(runs, f"a model's output, as NAME{RUN_SEPARATOR}RUN=FILE for a run "
                      "(repeat)")
    add_pair_test_options(runs, {
        "test": "paired test over users (default: %(default)s)",
        "correction": "multiple-comparison correction over the pairs"}, test_default="t")
    add_reading_options(runs)


def run_runs(args: argparse.Namespace) -> int:
    """Read the files (or the saved evaluation), group the runs and print the comparison."""
    check_draws(args)
    values, label = read_paired_values(args, "runs")
    groups = run_groups(list(values.columns))
    if not has_runs(groups):
        raise ValueError(f"No model has several runs: name them NAME{RUN_SEPARATOR}RUN (such "
                         f"as --run als{RUN_SEPARATOR}seed1=FILE --run "
                         f"als{RUN_SEPARATOR}seed2=FILE). The models are "
                         f"{', '.join(map(str, values.columns))}.")
    if len(groups) < 2:
        raise ValueError(f"runs compares at least two models; all the runs are of "
                         f"{next(iter(groups))}.")
    result = compare_runs(values, groups, test=args.test, correction=args.correction,
                          confidence=args.confidence, n_permutations=args.permutations,
                          seed=args.seed)
    if args.csv:
        print_tables(result.models.reset_index(),
                     pd.DataFrame(result.pairs[list(PAIR_CSV_COLUMNS)]))
        return 0
    print(f"{label} on the {len(values):,} users every run counts:")
    for model, row in result.models.iterrows():
        spread = (f" ± {row['sd']:.4f} (SD) across {int(row['runs'])} runs, lowest "
                  f"{row['lowest']:.4f}, highest {row['highest']:.4f}" if row["runs"] >= 2
                  else " (one run)")
        print(f"  {model}: {row['mean']:.4f}{spread}")
    for _, row in result.pairs.iterrows():
        print(f"{row['model_b']} vs {row['model_a']}:")
        print(f"  {describe_runs_pair(row, label)}")
    print(runs_method_text(result))
    return 0
