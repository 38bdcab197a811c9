"""``rankmetrics evaluate``: one row per model, metric and cutoff (the mean over the users), or
with ``--per-user`` one row per model, user, metric and cutoff, or with ``--segment-by`` the
table per segment of users.

The local engine reads the files here, each model file checked against the ground truth
beside the next step (:mod:`rankmetrics.overlap`); ``--engine spark`` hands them to
:mod:`rankmetrics.cli.spark_engine`. :mod:`rankmetrics.cli.beyond_inputs` reads the
beyond-accuracy files, :mod:`rankmetrics.cli.results` prints and :mod:`rankmetrics.cli.save`
adds what ``--save`` keeps.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from rankmetrics.cli.beyond_inputs import add_beyond_options, beyond_inputs, with_exposure
from rankmetrics.cli.options import (
    RELEVANCE_HELP,
    Commands,
    add_column_options,
    add_confidence_option,
    add_conventions_options,
    add_cutoffs_options,
    add_decompressed_size_option,
    add_relevance_options,
    add_significance_options,
    column_overrides,
    columns_for,
    decompressed_size,
    parse_columns,
    read_conventions,
    read_cutoffs,
    reading,
    relevance_mapping,
    run_name_and_path,
    warn,
)
from rankmetrics.cli.results import (
    DECISION_CUTOFF,
    render_results,
    results_table,
    write_output,
)
from rankmetrics.cli.save import (
    beyond_file_fingerprints,
    file_fingerprints,
    saved_cutoffs,
    saved_metrics,
    saving,
)
from rankmetrics.cli.segments import add_segment_options, segment_cutoff, segment_report
from rankmetrics.cli.spark_engine import evaluate_on_spark
from rankmetrics.evaluation import evaluate
from rankmetrics.export import FORMULA_MODES
from rankmetrics.io import (
    LoadedTable,
    check_against_truth,
    read_attributes,
    read_run,
    read_truth,
    subject_word,
)
from rankmetrics.judgments import judged_note, rbp_interval_note
from rankmetrics.metrics import BEYOND_METRICS, MAIN_METRICS, METRICS, check_metrics
from rankmetrics.overlap import Outcome, overlapping
from rankmetrics.relevance import RelevanceMapping

TRUTH_ROLES = ("user", "item", "rating")
RUN_ROLES = ("user", "item", "score", "rank")

def add_evaluate_parser(commands: Commands) -> None:
    """The ``evaluate`` command's options."""
    ev = commands.add_parser(
        "evaluate",
        help="evaluate model outputs against a ground truth",
        description="Evaluate model outputs (runs) against a ground truth and print the "
        "mean of each metric at each cutoff.",
    )
    ev.add_argument("--engine", choices=("local", "spark"), default="local",
                    help="local: read the files on this machine (default); spark: --truth and "
                    "--run name Parquet files or folders any filesystem Spark reads, "
                    "evaluated by Spark (pip install 'rankmetrics[spark]')")
    ev.add_argument("--truth", required=True, metavar="FILE",
                    help="ground truth: TREC qrels, CSV/TSV/Parquet/JSON Lines with user, "
                    "item and rating columns")
    ev.add_argument("--run", required=True, action="append", metavar="[NAME=]FILE",
                    help="a model's output (repeat for several models); NAME defaults to "
                    "the file name without extension")
    ev.add_argument("--metrics", default=",".join(MAIN_METRICS),
                    help=f"comma-separated metrics from {', '.join(METRICS)}, and beyond "
                    f"accuracy {', '.join(BEYOND_METRICS)} "
                    "(default: %(default)s; `metrics` lists what each one means)")
    add_cutoffs_options(ev)
    add_conventions_options(ev)
    add_relevance_options(ev, RELEVANCE_HELP, description="How ratings become relevance. "
                          "Without these options a mapping is suggested from the ratings "
                          "found (and reported on stderr).")
    add_column_options(ev)
    add_decompressed_size_option(ev, "the most a .gz or .zip input may hold once "
                                 "decompressed, such as 8G or 500M (default: "
                                 "$RANKMETRICS_MAX_DECOMPRESSED_SIZE, else 4G)")
    add_beyond_options(ev)
    ev.add_argument("--per-user", action="store_true",
                    help="one row per model, user, metric and cutoff")
    add_segment_options(ev)
    ev.add_argument("--format", choices=("csv", "json", "table", "latex"), default="csv",
                    help="output format (default: csv); table: for people, the means with "
                    "the decision in one sentence above them (at K = 10, or the largest "
                    "cutoff) and the significantly best model of each row marked; latex: a "
                    "table of the models at the cutoffs, with superscripts naming the models "
                    "each one is significantly better than")
    significance = ev.add_argument_group(
        "significance", "The paired test behind the marks of --format table (as the "
        "dashboard's Compare table: on many users the t-test stands in for the randomization "
        "test), the superscripts of --format latex and the segment table.")
    add_significance_options(significance, {
        "test": "the paired test (default: %(default)s)",
        "correction": "the correction for testing many pairs: those of each row, or every "
        "segment x pair (default: %(default)s)"})
    add_confidence_option(significance)
    ev.add_argument("--output", metavar="PATH", help="write to PATH instead of stdout")
    ev.add_argument("--save", metavar="DIR",
                    help="also save the evaluation as a bundle the dashboard opens: a folder, "
                    "or one zip archive when DIR ends in .zip (with --interactions, "
                    "--item-attributes or --catalogue, its beyond-accuracy metrics too)")
    ev.add_argument("--sample-users", type=int, default=1_000, metavar="N",
                    help="users whose raw lists the bundle keeps (default: %(default)s)")
    ev.add_argument("--csv-formulas", choices=FORMULA_MODES, default="quoted",
                    help="CSV text cells starting with =, +, -, @, tab or carriage return "
                    "(which a spreadsheet would run as formulas): 'quoted' prefixes them with "
                    "a single quote, for people opening the CSV in a spreadsheet (default); "
                    "'raw' writes them as they are, for programs reading the CSV")


def run_evaluate(args: argparse.Namespace) -> int:
    """Read the files, evaluate, print the results (or the segment table), save the
    evaluation when ``--save`` says."""
    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    beyond = tuple(dict.fromkeys(name for name in names if name in BEYOND_METRICS))
    metrics = check_metrics([name for name in names if name not in BEYOND_METRICS]
                            ) if len(beyond) < len(names) or not names else ()
    cutoffs = read_cutoffs(args)
    if args.segment_by is not None:
        # The segment table is one metric at one K: the overall table's choices do not apply.
        _ignored_by_segments(args)
        beyond, cutoffs = (), [segment_cutoff(args)]
    if args.exposure_by is not None:
        _check_exposure_by(args)
    conventions = read_conventions(args)
    limit = decompressed_size(args)
    overrides = column_overrides(args)
    if args.engine == "spark":
        if args.columns:
            raise ValueError("--columns: the spark engine reads Parquet columns by name; "
                             "choose them with --user-column, --item-column...")
        return evaluate_on_spark(args, metrics, beyond, cutoffs, conventions, overrides)
    chosen = parse_columns(args.columns, ["truth", *(f"run:{run_name_and_path(spec)[0]}"
                                                     for spec in args.run), "interactions"])
    said: set[str] = set()
    truth, mapping, runs, last_check = _read_and_check(args, overrides, chosen, limit,
                                                       cutoffs, said)
    if beyond:  # the warnings about its files come after the checks' (said: printed once)
        warn(last_check.get(), said)
    inputs = beyond_inputs(args, beyond, limit, chosen.get("interactions"))
    evaluated = Outcome(lambda: evaluate(truth, runs, relevance=mapping, conventions=conventions,
                                         max_cutoff=max(*cutoffs, segment_cutoff(args)),
                                         **inputs))
    warn(last_check.get(), said)  # a problem it finds is raised before the evaluation's
    evaluation = evaluated.get()
    print(f"rankmetrics: conventions: {conventions.describe()}", file=sys.stderr)
    if args.save:
        if args.segments is not None:  # refused now, not when the dashboard opens the bundle
            read_attributes(args.segments, key="user")
        with saving(args.save):
            saved = evaluation.save(
                args.save, chosen_cutoff=max(cutoffs), sample=args.sample_users,
                cutoffs=saved_cutoffs(args, cutoffs),
                metrics=saved_metrics(metrics),
                inputs=file_fingerprints(args.truth, truth, runs, args.run),
                user_attributes=args.segments,
                beyond_inputs=beyond_file_fingerprints(args, inputs),
            )
        print(f"rankmetrics: saved the evaluation to {saved}", file=sys.stderr)
    if args.segment_by is not None:
        return write_output(segment_report(args, evaluation, chosen.get("interactions")), args)
    table = results_table(evaluation, metrics, beyond, cutoffs, args.per_user)
    subjects = subject_word([truth.format, *(run.format for run in runs.values())], plural=True)
    text = render_results(table, args, conventions, mapping, evaluation, subjects=subjects)
    # next to the values: a table says it below them, the other formats on stderr
    note = (judged_note(evaluation, DECISION_CUTOFF if DECISION_CUTOFF in cutoffs
                        else max(cutoffs)) if any(m in METRICS for m in metrics) else None)
    if note and args.format == "table" and not args.per_user:
        text += f"\n{note}\n"
    elif note:
        print(f"rankmetrics: note: {note}", file=sys.stderr)
    decided_at = DECISION_CUTOFF if DECISION_CUTOFF in cutoffs else max(cutoffs)
    if "rbp" in metrics and args.format == "table" and not args.per_user:
        text += "\n" + rbp_interval_note(evaluation, decided_at) + "\n"
    if args.exposure_by is not None and evaluation.beyond is not None:
        text = with_exposure(text, args, evaluation.beyond, decided_at)
    return write_output(text, args)


def _check_exposure_by(args: argparse.Namespace) -> None:
    """--exposure-by needs the file its groups come from and a format that holds a table."""
    needed = {"popularity": ("--interactions", args.interactions),
              "categories": ("--item-attributes", args.item_attributes)}[args.exposure_by]
    if not needed[1]:
        raise ValueError(f"--exposure-by {args.exposure_by} needs {needed[0]} FILE.")
    if args.per_user or args.segment_by is not None:
        raise ValueError("--exposure-by adds a table of shares to the table of means: leave "
                         f"out {'--per-user' if args.per_user else '--segment-by'}.")
    if args.format not in ("table", "json"):
        raise ValueError(f"--exposure-by adds a table of shares, which --format {args.format} "
                         "cannot hold: add --format table or --format json.")


def _read_and_check(args: argparse.Namespace, overrides: dict[str, str],
                    chosen: dict[str, dict[str, str]], limit: int | None,
                    cutoffs: list[int], said: set[str]) -> tuple[
                        LoadedTable, RelevanceMapping, dict[str, LoadedTable], Outcome[list[str]]]:
    """Read the ground truth and the model files, checking each against the ground truth.

    Work overlaps (see :mod:`rankmetrics.overlap`): the ground truth is read beside the first
    model file when both are plain files, and each model file is checked beside the next
    file's reading. The last check is handed back still running, to overlap the evaluation.
    """
    specs = [(spec, *run_name_and_path(spec)) for spec in args.run]
    first_spec, first_name, first_path = specs[0]
    beside = overlapping() and all(Path(path).is_file() for path in (args.truth, first_path))
    truth_read = Outcome(partial(_read_truth_file, args.truth,
                                 columns_for(overrides, TRUTH_ROLES, chosen.get("truth")),
                                 limit), beside=beside)

    def run_read(spec: str, name: str, path: str) -> Outcome[LoadedTable]:
        columns = columns_for(overrides, RUN_ROLES, chosen.get(f"run:{name}"))
        return Outcome(partial(_read_run_file, spec, name, path, columns, limit))

    first_read = run_read(first_spec, first_name, first_path) if beside else None
    truth = truth_read.get()
    warn(truth.warnings, said, which="truth")
    mapping = relevance_mapping(args, truth.numbers())
    largest = max(cutoffs) if args.cutoffs or args.max_cutoff is not None else None
    runs: dict[str, LoadedTable] = {}
    check: Outcome[list[str]] = Outcome(list)
    for spec, name, path in specs:
        if name in runs:
            warn(check.get(), said)
            raise ValueError(f"Two runs are named {name!r}: name them with NAME=FILE.")
        read = (first_read if first_read is not None and not runs
                else run_read(spec, name, path))
        warn(check.get(), said)
        run = read.get()
        warn(run.warnings, said, which=f"run:{name}")
        check = Outcome(partial(check_against_truth, run, truth, mapping=mapping,
                                max_cutoff=largest), beside=True)
        runs[name] = run
    return truth, mapping, runs, check


def _read_truth_file(path: str, columns: dict[str, str] | None,
                     limit: int | None) -> LoadedTable:
    with reading(f"--truth {path}", path, which="truth"):
        return read_truth(path, columns=columns, max_decompressed_size=limit)


def _read_run_file(spec: str, name: str, path: str, columns: dict[str, str] | None,
                   limit: int | None) -> LoadedTable:
    with reading(f"--run {spec}", path, after=spec[: len(spec) - len(path)],
                 which=f"run:{name}"):
        return read_run(path, name=name, columns=columns, max_decompressed_size=limit)


def _ignored_by_segments(args: argparse.Namespace) -> None:
    """Warn about the options of the overall table that --segment-by leaves unused."""
    given = [flag for flag, used in (
        ("--metrics", args.metrics != ",".join(MAIN_METRICS)),
        ("--cutoffs", args.cutoffs is not None),
        ("--max-cutoff", args.max_cutoff is not None),
        ("--per-user", args.per_user),
    ) if used]
    if given:
        warn([f"--segment-by prints the segment table only ({args.segment_metric} at K = "
              f"{args.segment_cutoff}), so {', '.join(given)} "
              f"{'is' if len(given) == 1 else 'are'} not used: choose its metric and K with "
              "--segment-metric and --segment-cutoff."])
