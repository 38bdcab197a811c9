"""``rankmetrics overlap``: how much two models' lists have in common
(:mod:`rankmetrics.agreement`), on average at every K or for each user at one K."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from rankmetrics.agreement import (
    DEFAULT_PERSISTENCE,
    MEASURES,
    check_persistence,
    list_overlap,
)
from rankmetrics.beyond import prepare_beyond
from rankmetrics.cli.options import (
    MAX_CURVE_CUTOFF,
    Commands,
    add_decompressed_size_option,
    cutoff,
    decompressed_size,
    read_truth_and_runs,
)
from rankmetrics.conventions import TIES, Conventions
from rankmetrics.evaluation import BEYOND_WIDTH
from rankmetrics.prepared.ground_truth import GroundTruth

DEFAULT_MAX_CUTOFF = 20


def add_overlap_parser(commands: Commands) -> None:
    """The ``overlap`` command's options."""
    overlap = commands.add_parser(
        "overlap",
        help="how much two models' lists have in common (items in common, rank-biased "
        "overlap)",
        description="For the users of the ground truth, compare two models' top K: the "
        "items they have in common (Jaccard), the share of each one's top K that the other "
        "also recommends, and rank-biased overlap (extrapolated, persistence p), which "
        "counts agreement at the top most. Prints the means at every K as CSV "
        "(cutoff,jaccard,share_a_in_b,share_b_in_a,rbo,users), or each user's values at "
        "one K with --per-user.",
    )
    overlap.add_argument("--truth", metavar="FILE", required=True,
                         help="the ground truth: its users are the users compared")
    overlap.add_argument("--run", action="append", metavar="[NAME=]FILE", required=True,
                         help="a model's output; give exactly two (model A first)")
    overlap.add_argument("--max-cutoff", metavar="K",
                         help=f"the largest K (default: {DEFAULT_MAX_CUTOFF})")
    overlap.add_argument("--persistence", type=float, default=DEFAULT_PERSISTENCE,
                         metavar="P", help="rank-biased overlap's p, between 0 and 1: the "
                         "weight of rank d is p^(d-1) (default: %(default)s, the first 10 "
                         "ranks carry 86%% of the weight)")
    overlap.add_argument("--per-user", metavar="K",
                         help="print each user's values at this K instead of the means")
    overlap.add_argument("--ties", choices=TIES, default=Conventions().ties,
                         help="how tied scores are ordered (default: %(default)s)")
    add_decompressed_size_option(overlap,
                                 "the most a .gz or .zip input may hold once decompressed")


def run_overlap(args: argparse.Namespace) -> int:
    """Read the ground truth and the two models' outputs, print the overlap."""
    if len(args.run) != 2:
        raise ValueError(f"overlap compares two models: give --run exactly twice (got "
                         f"{len(args.run)}).")
    highest = min(MAX_CURVE_CUTOFF, BEYOND_WIDTH)
    max_cutoff = cutoff("--max-cutoff", args.max_cutoff or str(DEFAULT_MAX_CUTOFF), highest)
    per_user = (None if args.per_user is None
                else cutoff("--per-user", args.per_user, max_cutoff))
    try:
        persistence = check_persistence(args.persistence)
    except ValueError as error:
        raise ValueError(f"--persistence: {error}") from None
    limit = decompressed_size(args)
    truth, runs = read_truth_and_runs(args, limit)
    prepared = GroundTruth.from_frame(truth)
    inputs = prepare_beyond(prepared, runs, catalogue="all", ties=args.ties,
                            max_cutoff=max_cutoff)
    model_a, model_b = runs
    overlap = list_overlap(inputs, model_a, model_b, users=prepared.user_ids.to_pandas(),
                           persistence=persistence, max_cutoff=max_cutoff)
    if per_user is None:
        table = overlap.curves().reset_index()
        table["users"] = overlap.n_users
    else:
        table = overlap.at(per_user).reset_index()
        table.insert(1, "cutoff", per_user)
    print(f"# A = {model_a}, B = {model_b}; rank-biased overlap with p = "
          f"{overlap.persistence:g}", file=sys.stderr)
    _print(table)
    return 0


def _print(table: pd.DataFrame) -> None:
    columns = [column for column in ("user", "cutoff", *MEASURES, "users")
               if column in table.columns]
    table[columns].to_csv(sys.stdout, index=False, float_format="%.6f", lineterminator="\n")
