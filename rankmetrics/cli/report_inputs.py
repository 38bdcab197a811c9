"""The inputs of ``rankmetrics report`` beyond the ground truth and the runs: how each file is
read when its columns or format are not the detected ones, the user attributes and the
segmentation of the table per segment, and the beyond-accuracy files.

A report written by the dashboard names these in its command, so that the command computes
the numbers the dashboard showed: the dashboard lets a person pick a file's columns and
format by hand, split the users by an attribute, and add training interactions, item
attributes or a catalogue.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from rankmetrics.cli.options import add_columns_option, parse_columns, which_file
from rankmetrics.segments import (
    ACTIVITY,
    COLD_START,
    GROUND_TRUTH_SIZE,
    N_BUCKETS,
    RELEVANT_ITEMS,
)

#: The optional files, by the name ``--columns`` and ``--file-format`` give them: their
#: option, their role in the report, and the key column of an attributes file.
EXTRA_FILES = {
    "segments": ("--segments", "user attributes"),
    "interactions": ("--interactions", "training interactions"),
    "item-attributes": ("--item-attributes", "item attributes"),
    "catalogue": ("--catalogue", "catalogue"),
}
#: The catalogue choices that are not a file.
CATALOGUE_WORDS = ("auto", "interactions", "all")


def add_report_inputs(report: argparse.ArgumentParser) -> None:
    """The report's options for read choices, segments and beyond-accuracy files."""
    reading = report.add_argument_group(
        "reading", "How a file is read when its columns or format are not the detected ones. "
        "WHICH is truth, run:NAME, segments, interactions, item-attributes or catalogue.")
    add_columns_option(reading)
    reading.add_argument("--file-format", action="append", default=[], metavar="WHICH:FORMAT",
                         help="the format of one file (csv, tsv, recbole, parquet, jsonl, "
                         "trec_run, trec_qrels...), "
                         "such as run:als:tsv")
    segments = report.add_argument_group(
        "segments", "The table per segment of users and whether the decision holds across "
        f"segments (default: by {GROUND_TRUTH_SIZE}).")
    segments.add_argument("--segments", metavar="FILE",
                          help="user attributes: a user column and any others")
    segments.add_argument("--segment-by", metavar="COLUMN",
                          help=f"an attribute column of --segments, '{GROUND_TRUTH_SIZE}' (the "
                          f"default), '{RELEVANT_ITEMS}' (the default with --bundle), or "
                          f"'{ACTIVITY}' or '{COLD_START}' (with --interactions)")
    segments.add_argument("--buckets", type=int, default=N_BUCKETS, metavar="N",
                          help="quantile buckets of a numeric column (default: %(default)s)")
    beyond = report.add_argument_group(
        "beyond accuracy", "Given any of these, the report adds the beyond-accuracy metrics at K.")
    beyond.add_argument("--interactions", metavar="FILE", help="training interactions")
    beyond.add_argument("--item-attributes", metavar="FILE", help="item attributes")
    beyond.add_argument("--catalogue", metavar="auto|interactions|all|FILE",
                        help="the items that could be recommended (as for evaluate)")


def read_choices(args: argparse.Namespace, models: Sequence[str]
                 ) -> dict[str, tuple[dict[str, str] | None, str | None]]:
    """Each file's hand-chosen columns and format, by WHICH (truth, run:NAME, ...)."""
    known = ["truth", *(f"run:{model}" for model in models), *EXTRA_FILES]
    columns = parse_columns(args.columns, known)
    formats: dict[str, str] = {}
    for spec in args.file_format:
        which, fmt = which_file(spec, "--file-format", known)
        if not fmt:
            raise ValueError(f"--file-format {spec}: no format given after {which}:.")
        formats[which] = fmt
    return {which: (columns.get(which), formats.get(which)) for which in known}


def extra_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The optional files given, as (WHICH, path), in the order the dashboard lists them; a
    catalogue word is not a file."""
    given = {"interactions": args.interactions, "item-attributes": args.item_attributes,
             "catalogue": None if args.catalogue in (None, *CATALOGUE_WORDS) else args.catalogue,
             "segments": args.segments}
    return [(which, path) for which, path in given.items() if path is not None]
