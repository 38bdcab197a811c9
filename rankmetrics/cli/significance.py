"""``rankmetrics significance``: the Significance page on the command line.

At one metric and K (:func:`rankmetrics.stats.compare_models` on the users every model
counts): each model's mean with its confidence interval, its rank when the users are
resampled ("ranked 1-2 of 4") and its letter group, then every pair's difference with its
interval, effect size with its interval, and the test's p-values (a paired test with a
correction, or Tukey's HSD over every pair at once). Prints the answers in words, or the two
tables as CSV with ``--csv`` (the models, a blank line, the pairs).
"""

from __future__ import annotations

import argparse

from rankmetrics.cli.options import Commands, add_reading_options
from rankmetrics.cli.paired_inputs import (
    add_pair_test_options,
    add_paired_inputs,
    check_draws,
    print_tables,
    read_paired_values,
)
from rankmetrics.stats import (
    COMPARISON_COLUMNS,
    TEST_NAMES,
    compare_models,
    correction_text,
    describe_effect,
    describe_pair,
)

MODEL_CSV_COLUMNS = ("model", "mean", "ci_low", "ci_high", "rank", "rank_low", "rank_high",
                     "group", "users")


def add_significance_parser(commands: Commands) -> None:
    """The ``significance`` command's options."""
    significance = commands.add_parser(
        "significance",
        help="which differences between models are real: intervals, ranks, effect sizes and "
        "paired tests",
        description="At one metric and K, on the users every model counts: each model's "
        "mean with its bootstrap confidence interval, its rank when the users are resampled "
        "and its letter group; every pair's difference with its interval, its effect size "
        "(the mean difference over the spread of the users' differences) with its interval, "
        "and the test's p-value, corrected over the pairs (Tukey's tests cover every pair at "
        "once).",
    )
    add_paired_inputs(significance, "a model's output (repeat: at least two)")
    add_pair_test_options(significance, {
        "test": "the test (default: %(default)s)",
        "correction": "multiple-comparison correction over the pairs (default: %(default)s)"},
        bootstrap=True)
    add_reading_options(significance)


def run_significance(args: argparse.Namespace) -> int:
    """Read the files (or the saved evaluation) and print the comparison."""
    check_draws(args)
    values, label = read_paired_values(args, "significance")
    result = compare_models(values, test=args.test, correction=args.correction,
                            n_permutations=args.permutations, n_bootstrap=args.bootstrap,
                            confidence=args.confidence, seed=args.seed)
    if args.csv:
        print_tables(result.models[list(MODEL_CSV_COLUMNS)],
                     result.pairs[list(COMPARISON_COLUMNS)])
        return 0
    level = f"{result.confidence:.0%}"
    print(f"{label} on the {len(values):,} users every model counts ({level} intervals):")
    for _, row in result.models.iterrows():
        print(f"  {row['model']}: {row['mean']:.4f} [{row['ci_low']:.4f}, "
              f"{row['ci_high']:.4f}], {result.rank_text(row['model'])}, group {row['group']}")
    tied = result.tied_for_first()
    if len(tied) > 1:
        print(f"Tied for first: {' and '.join(map(str, tied))} (each is first in some "
              "resamples of the users).")
    for _, row in result.pairs.iterrows():
        print(f"{row['model_b']} vs {row['model_a']}:")
        print(f"  {describe_pair(row, label, result.correction, result.test)}")
        print(f"  {describe_effect(row)}")
    for warning in result.warnings:
        print(f"Note: {warning}")
    print(f"{TEST_NAMES[result.test].capitalize()} with "
          f"{correction_text(result.test, result.correction)}, significance level "
          f"{1 - result.confidence:g}.")
    return 0
