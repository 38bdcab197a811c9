"""``rankmetrics report``: one self-contained HTML report comparing the models.

The report is of files (``--truth`` and ``--run``, read and evaluated here) or of a saved
evaluation (``--bundle``). :mod:`rankmetrics.cli.report_inputs` holds the options for how each
file is read, the segments and the beyond-accuracy files; :mod:`rankmetrics.report.html`
writes the page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rankmetrics.bundle import content_sha256
from rankmetrics.cli.options import (
    MAX_CURVE_CUTOFF,
    RELEVANCE_HELP,
    Commands,
    add_confidence_option,
    add_conventions_options,
    add_relevance_options,
    add_significance_options,
    cutoff,
    read_conventions,
    reading,
    refuse_with_bundle,
    relevance_mapping,
    run_name_and_path,
    warn,
)
from rankmetrics.cli.report_inputs import EXTRA_FILES, add_report_inputs, extra_files, read_choices
from rankmetrics.evaluation import evaluate, load_bundle
from rankmetrics.io import (
    interaction_counts,
    read_attributes,
    read_interactions,
    read_run,
    read_truth,
)
from rankmetrics.metrics import MAIN_METRICS
from rankmetrics.segments import GROUND_TRUTH_SIZE, N_BUCKETS, RELEVANT_ITEMS, segment_users


def add_report_parser(commands: Commands) -> None:
    """The ``report`` command's options."""
    report = commands.add_parser(
        "report", help="write one HTML report comparing the models (works offline)",
        description="Write a self-contained HTML report: the decision in words, the curves, "
        "the table at K, the distributions, the significance matrix, the conventions, each "
        "input's fingerprint and the command that regenerates it.")
    report.add_argument("--truth", metavar="FILE", help="the ground truth")
    report.add_argument("--run", action="append", metavar="[NAME=]FILE",
                        help="a model's output (repeat: at least two models)")
    report.add_argument("--bundle", metavar="PATH",
                        help="a saved evaluation (.zip or folder, from `evaluate --save`) "
                        "instead of --truth and --run: its numbers, relevance, conventions "
                        "and beyond-accuracy results as saved; --cutoff one of its saved "
                        "cutoffs; the users split by their relevant items unless --segment-by "
                        "says otherwise")
    report.add_argument("--output", required=True, metavar="PATH", help="the HTML file")
    report.add_argument("--cutoff", type=int, default=10, metavar="K",
                        help="the K of the table, tests and decision (default: %(default)s)")
    report.add_argument("--max-cutoff", type=int, metavar="K",
                        help="the largest K of the curves (default: 50)")
    report.add_argument("--metric", choices=list(MAIN_METRICS), default="ndcg",
                        help="the metric of the distributions and the significance matrix "
                        "(default: %(default)s)")
    report.add_argument("--title", default="Model comparison", help="the report's heading")
    add_conventions_options(report, preset_separator="; ")
    add_relevance_options(report, dict.fromkeys(RELEVANCE_HELP, "as for evaluate"))
    add_significance_options(report, {
        "test": "the paired test of the significance markers (default: %(default)s)",
        "correction": "the correction for testing many pairs (default: %(default)s)"})
    add_confidence_option(report)
    add_report_inputs(report)


def run_report(args: argparse.Namespace) -> int:
    """``rankmetrics report``: read the files, evaluate, write the HTML report."""
    try:  # imported here, as in the functions below: the report draws with plotly, an extra
        from rankmetrics.report.html import fingerprint
    except ModuleNotFoundError as missing:
        raise ValueError(str(missing)) from None

    if args.bundle is not None:
        return _saved_report(args)
    if args.truth is None or not args.run:
        raise ValueError("report needs --truth FILE and --run FILE for each model, or "
                         "--bundle PATH (a saved evaluation).")
    max_cutoff = cutoff("--max-cutoff", str(args.max_cutoff or 50), MAX_CURVE_CUTOFF)
    chosen = cutoff("--cutoff", str(args.cutoff), max_cutoff)
    conventions = read_conventions(args)
    choices = read_choices(args, [run_name_and_path(spec)[0] for spec in args.run])
    with reading(f"--truth {args.truth}", args.truth, which="truth"):
        truth = read_truth(args.truth, columns=choices["truth"][0], format=choices["truth"][1])
    warn(truth.warnings, which="truth")
    mapping = relevance_mapping(args, truth.numbers())
    inputs = [fingerprint("ground truth", Path(args.truth).name, Path(args.truth).read_bytes(),
                          truth.n_rows, truth.n_users, columns=_pairs(choices["truth"][0]),
                          format=choices["truth"][1])]
    runs = {}
    for spec in args.run:
        name, path = run_name_and_path(spec)
        if name in runs:
            raise ValueError(f"Two runs are named {name!r}: name them with NAME=FILE.")
        columns, fmt = choices[f"run:{name}"]
        with reading(f"--run {spec}", path, after=spec[: len(spec) - len(path)],
                     which=f"run:{name}"):
            runs[name] = read_run(path, name=name, columns=columns, format=fmt)
        warn(runs[name].warnings, which=f"run:{name}")
        inputs.append(fingerprint(name, Path(path).name, Path(path).read_bytes(),
                                  runs[name].n_rows, runs[name].n_users,
                                  columns=_pairs(columns), format=fmt))
    extras, read = _report_extras(args, choices)
    beyond: dict[str, Any] = {key: read[key] for key in ("interactions", "item_attributes")
                              if key in read}
    if beyond or args.catalogue is not None:
        beyond["catalogue"] = read.get("catalogue", args.catalogue)
    evaluation = evaluate(truth, runs, relevance=mapping, conventions=conventions,
                          max_cutoff=max_cutoff, **beyond)
    segments = None
    by = args.segment_by or GROUND_TRUTH_SIZE
    if by != GROUND_TRUTH_SIZE or args.buckets != N_BUCKETS:
        counts = interaction_counts(read["interactions"]) if "interactions" in read else None
        segments = segment_users(evaluation, by, attributes=read.get("segments"),
                                 training_counts=counts, n_buckets=args.buckets)
    return _write_report(evaluation, inputs, chosen, args, extras, segments)


def _saved_report(args: argparse.Namespace) -> int:
    """``rankmetrics report --bundle``: the report of a saved evaluation."""
    from rankmetrics.report.html import saved_input  # plotly: see run_report

    refuse_with_bundle(args, ("--interactions", args.interactions),
                       ("--item-attributes", args.item_attributes),
                       ("--catalogue", args.catalogue))
    with reading(f"--bundle {args.bundle}", args.bundle):
        saved = load_bundle(args.bundle)
        bundle = saved_input(Path(args.bundle).name, content_sha256(args.bundle), saved)
    choices = read_choices(args, saved.models)
    extras, read = _report_extras(args, choices)
    if args.cutoff not in saved.cutoffs:
        raise ValueError(f"--cutoff: a saved evaluation holds every user's values at K = "
                         f"{', '.join(map(str, saved.cutoffs))}; choose one of them (got "
                         f"{args.cutoff}).")
    by = args.segment_by or RELEVANT_ITEMS
    segments = None
    if by != RELEVANT_ITEMS or args.buckets != N_BUCKETS:
        segments = segment_users(saved, by, attributes=read.get("segments"),
                                 n_buckets=args.buckets)
    return _write_report(saved, [bundle], args.cutoff, args, extras, segments)


def _write_report(evaluation, inputs: list, cutoff: int, args: argparse.Namespace,
                  extras: list, segments) -> int:
    """Write the report of ``evaluation`` (live or saved) where ``--output`` says."""
    from rankmetrics.report.html import build_report  # plotly: see run_report

    text = build_report(evaluation, inputs, cutoff=cutoff, metric=args.metric,
                        test=args.test, correction=args.correction,
                        confidence=args.confidence, title=args.title, extras=extras,
                        segments=segments, buckets=args.buckets)
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise ValueError(f"--output {args.output}: the report cannot be written there "
                         f"({error.strerror or error}).") from None
    print(f"rankmetrics: report written to {args.output}", file=sys.stderr)
    return 0


def _report_extras(args: argparse.Namespace, choices: dict) -> tuple[list, dict[str, Any]]:
    """The report's optional files read (by evaluate's and segment_users' names) and their
    fingerprints."""
    from rankmetrics.report.html import fingerprint  # plotly: see run_report

    fingerprints = []
    read: dict[str, Any] = {}
    for which, path in extra_files(args):
        option, role = EXTRA_FILES[which]
        columns, fmt = choices[which]
        with reading(f"{option} {path}", path, which=which):
            if which == "interactions":
                table = read_interactions(path, columns=columns, format=fmt)
                read["interactions"], rows, users = table, table.n_rows, table.n_users
                warn(table.warnings, which=which)
            else:
                key = "user" if which == "segments" else "item"
                attributes = read_attributes(path, key=key, columns=columns, format=fmt)
                rows = users = len(attributes.table)
                warn(attributes.warnings, which=which)
                read[{"segments": "segments", "item-attributes": "item_attributes",
                      "catalogue": "catalogue"}[which]] = (
                    attributes.ids.tolist() if which == "catalogue" else attributes)
        fingerprints.append(fingerprint(role, Path(path).name, Path(path).read_bytes(), rows,
                                        users, columns=_pairs(columns), format=fmt))
    return fingerprints, read


def _pairs(columns: dict[str, str] | None) -> list[tuple[str, str]]:
    return list((columns or {}).items())
