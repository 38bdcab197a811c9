"""Command line: ``rankmetrics evaluate --truth FILE --run NAME=FILE ...``.

Prints one row per model, metric and cutoff (``model,metric,cutoff,value,users``) or, with
``--per-user``, one row per model, user, metric and cutoff. Bad input ends with one line
naming the file, the row and the problem, and exit code 1; never a traceback.
``rankmetrics report`` writes one HTML report comparing the models.
``rankmetrics metrics`` lists the metrics with what they mean and their formulas.
``rankmetrics k-report`` says whether the verdict depends on K
(:mod:`rankmetrics.choosing_k.report`).
``python -m rankmetrics`` is the same command.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from rankmetrics.beyond import BEYOND_METRICS, LIST_METRICS, BeyondOptions, value_text
from rankmetrics.beyond._declared import DISTRIBUTION, LONG_TAIL, POPULARITY
from rankmetrics.beyond._items import CATALOGUE
from rankmetrics.bundle import Fingerprint
from rankmetrics.cli.k_report import add_k_report_parser, run_k_report
from rankmetrics.cli.metrics import add_metrics_parser, run_metrics
from rankmetrics.cli.options import (
    DEFAULT_CUTOFFS,
    RELEVANCE_HELP,
    add_column_options,
    add_confidence_option,
    add_conventions_options,
    add_cutoffs_options,
    add_decompressed_size_option,
    add_relevance_options,
    column_overrides,
    columns_for,
    decompressed_size,
    read_conventions,
    read_cutoffs,
    reading,
    relevance_mapping,
    run_name_and_path,
    warn,
)
from rankmetrics.cli.report import add_report_parser, run_report
from rankmetrics.cli.segments import add_segment_options, segment_cutoff, segment_report
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError, printable
from rankmetrics.evaluation import Evaluation, evaluate
from rankmetrics.export import FORMULA_MODES, to_csv
from rankmetrics.io import (
    LoadedTable,
    check_against_truth,
    read_attributes,
    read_interactions,
    read_run,
    read_truth,
)
from rankmetrics.metrics import MAIN_METRICS, METRICS, check_metrics
from rankmetrics.overlap import Outcome, overlapping
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.report.latex import latex_table
from rankmetrics.runtime import keep_freed_memory, prefer_ordinary_pages


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankmetrics",
        description="Ranking metrics for recommender and search models.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
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
    _beyond_arguments(ev)
    ev.add_argument("--per-user", action="store_true",
                    help="one row per model, user, metric and cutoff")
    add_segment_options(ev)
    ev.add_argument("--format", choices=("csv", "json", "table", "latex"), default="csv",
                    help="output format (default: csv); latex: a table of the models at the "
                    "cutoffs, with superscripts naming the models each one is significantly "
                    "better than (--test and --correction choose the test, as for segments)")
    add_confidence_option(ev)
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
    add_report_parser(commands)
    add_metrics_parser(commands)
    add_k_report_parser(commands)
    return parser


def _beyond_arguments(ev: argparse.ArgumentParser) -> None:
    beyond = ev.add_argument_group(
        "beyond accuracy", "Inputs and choices of coverage, gini, entropy, personalization "
        "(need nothing more), arp, aplt, aclt, novelty, recall_long_tail, ndcg_long_tail "
        "(need --interactions) and ild, categories (need --item-attributes)."
    )
    beyond.add_argument("--interactions", metavar="FILE",
                        help="training interactions: user and item columns (a rating or "
                        "timestamp column may be there), any format the ground truth can have")
    beyond.add_argument("--item-attributes", metavar="FILE",
                        help="item attributes: an item column and categories (one, or several "
                        "separated by | or ;) or numeric features")
    beyond.add_argument("--catalogue", metavar="auto|interactions|all|FILE", default="auto",
                        help="the items that could be recommended: a FILE with an item column, "
                        "or auto (default): the training interactions' items when given, else "
                        "every item in any file")
    beyond.add_argument("--popularity", choices=POPULARITY, default="interactions",
                        help="an item's popularity: its training interactions (default) or "
                        "the distinct users who interacted with it")
    beyond.add_argument("--long-tail", choices=LONG_TAIL, default="short_head",
                        help="short_head (default): the long tail is every item outside the "
                        "fewest most popular items holding --long-tail-share of the "
                        "popularity; bottom_items: the --long-tail-share least popular items")
    beyond.add_argument("--long-tail-share", type=float, default=0.8, metavar="SHARE",
                        help="in (0, 1), default 0.8")
    beyond.add_argument("--distribution", choices=DISTRIBUTION, default="catalogue",
                        help="Gini and entropy over the whole catalogue (default) or only "
                        "the items recommended at least once")


def run() -> None:
    """The ``rankmetrics`` program (and ``python -m rankmetrics``): :func:`main` in a process
    of its own, which keeps freed memory for reuse (see :mod:`rankmetrics.runtime`)."""
    keep_freed_memory()
    sys.exit(main())


def main(argv: list[str] | None = None) -> int:
    prefer_ordinary_pages()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "metrics":
        return run_metrics(args)
    try:
        if args.command == "k-report":
            return run_k_report(args)
        if args.command == "report":
            return run_report(args)
        return _evaluate(args)
    except (DataError, ValueError, OSError) as error:
        print(f"rankmetrics: error: {printable(str(error))}", file=sys.stderr)
        return 1


def _evaluate(args: argparse.Namespace) -> int:
    names = [m.strip() for m in args.metrics.split(",") if m.strip()]
    beyond = tuple(dict.fromkeys(name for name in names if name in BEYOND_METRICS))
    metrics = check_metrics([name for name in names if name not in BEYOND_METRICS]
                            ) if len(beyond) < len(names) or not names else ()
    cutoffs = read_cutoffs(args)
    if args.segment_by is not None:
        # The segment table is one metric at one K: the overall table's choices do not apply.
        _ignored_by_segments(args)
        beyond, cutoffs = (), [segment_cutoff(args)]
    conventions = read_conventions(args)
    limit = decompressed_size(args)
    overrides = column_overrides(args)
    if args.engine == "spark":
        if beyond or args.segment_by is not None:
            raise ValueError("--engine spark computes the accuracy metrics; beyond-accuracy "
                             "metrics and --segment-by need --engine local.")
        if _beyond_files(args):
            raise ValueError(f"--engine spark computes the accuracy metrics only, so "
                             f"{', '.join(_beyond_files(args))} cannot be used with it: "
                             "evaluate with --engine local to compute and save the "
                             "beyond-accuracy metrics.")
        return _evaluate_on_spark(args, metrics, cutoffs, conventions, overrides)
    said: set[str] = set()
    truth, mapping, runs, last_check = _read_and_check(args, overrides, limit, cutoffs,
                                                       said)
    if beyond:  # the warnings about its files come after the checks' (said: printed once)
        warn(last_check.get(), said)
    inputs = _beyond_inputs(args, beyond, limit)
    evaluated = Outcome(lambda: evaluate(truth, runs, relevance=mapping, conventions=conventions,
                                         max_cutoff=max(*cutoffs, segment_cutoff(args)),
                                         **inputs))
    warn(last_check.get(), said)  # a problem it finds is raised before the evaluation's
    evaluation = evaluated.get()
    print(f"rankmetrics: conventions: {conventions.describe()}", file=sys.stderr)
    if args.save:
        if args.segments is not None:  # refused now, not when the dashboard opens the bundle
            read_attributes(args.segments, key="user")
        saved = evaluation.save(
            args.save, chosen_cutoff=max(cutoffs), sample=args.sample_users,
            cutoffs=[*DEFAULT_CUTOFFS, *(cutoffs if args.cutoffs else [])],
            metrics=saved_metrics(metrics),
            inputs=file_fingerprints(args.truth, truth, runs, args.run),
            user_attributes=args.segments, beyond_inputs=beyond_file_fingerprints(args, inputs),
        )
        print(f"rankmetrics: saved the evaluation to {saved}", file=sys.stderr)
    if args.segment_by is not None:
        return _write(segment_report(args, evaluation), args)
    table = _results(evaluation, metrics, beyond, cutoffs, args.per_user)
    return _write(_render(table, args, conventions, mapping, evaluation), args)


def _read_and_check(args: argparse.Namespace, overrides: dict[str, str], limit: int | None,
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
    truth_read = Outcome(partial(_read_truth_file, args.truth, overrides, limit), beside=beside)
    first_read = Outcome(partial(_read_run_file, first_spec, first_name, first_path, overrides,
                                 limit)) if beside else None
    truth = truth_read.get()
    warn(truth.warnings, said)
    mapping = relevance_mapping(args, truth.numbers())
    chosen = max(cutoffs) if args.cutoffs or args.max_cutoff is not None else None
    runs: dict[str, LoadedTable] = {}
    check: Outcome[list[str]] = Outcome(list)
    for spec, name, path in specs:
        if name in runs:
            warn(check.get(), said)
            raise ValueError(f"Two runs are named {name!r}: name them with NAME=FILE.")
        read = (first_read if first_read is not None and not runs
                else Outcome(partial(_read_run_file, spec, name, path, overrides, limit)))
        warn(check.get(), said)
        run = read.get()
        warn(run.warnings, said)
        check = Outcome(partial(check_against_truth, run, truth, mapping=mapping,
                                max_cutoff=chosen), beside=True)
        runs[name] = run
    return truth, mapping, runs, check


def _read_truth_file(path: str, overrides: dict[str, str], limit: int | None) -> LoadedTable:
    with reading(f"--truth {path}", path):
        return read_truth(path, columns=columns_for(overrides, ("user", "item", "rating")),
                          max_decompressed_size=limit)


def _read_run_file(spec: str, name: str, path: str, overrides: dict[str, str],
                   limit: int | None) -> LoadedTable:
    with reading(f"--run {spec}", path, after=spec[: len(spec) - len(path)]):
        return read_run(path, name=name,
                        columns=columns_for(overrides, ("user", "item", "score", "rank")),
                        max_decompressed_size=limit)


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


def _write(text: str, args: argparse.Namespace) -> int:
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _beyond_inputs(args: argparse.Namespace, beyond: tuple[str, ...], limit: int | None
                   ) -> dict[str, Any]:
    """The beyond-accuracy inputs evaluate() takes, read from the files named (none when no
    beyond-accuracy metric is asked for and no evaluation is saved)."""
    if not beyond and not (args.save and _beyond_files(args)):
        return {}
    needs = {"interactions": args.interactions, "attributes": args.item_attributes}
    for name in beyond:
        need = BEYOND_METRICS[name].needs
        if need != "nothing" and not needs[need]:
            flag = "--interactions" if need == "interactions" else "--item-attributes"
            raise ValueError(f"--metrics {name} needs {flag} FILE.")
    inputs: dict[str, Any] = {"beyond_options": BeyondOptions(
        popularity=args.popularity, long_tail=args.long_tail,
        long_tail_share=args.long_tail_share, distribution=args.distribution)}
    if args.interactions:
        with reading(f"--interactions {args.interactions}", args.interactions):
            inputs["interactions"] = read_interactions(args.interactions,
                                                       max_decompressed_size=limit)
        warn(inputs["interactions"].warnings)
    if args.item_attributes:
        with reading(f"--item-attributes {args.item_attributes}", args.item_attributes):
            inputs["item_attributes"] = read_attributes(args.item_attributes, key="item",
                                                        max_decompressed_size=limit)
        warn(inputs["item_attributes"].warnings)
    inputs["catalogue"] = args.catalogue
    if args.catalogue not in CATALOGUE:
        with reading(f"--catalogue {args.catalogue}", args.catalogue):
            listed = read_attributes(args.catalogue, key="item", max_decompressed_size=limit)
        inputs["catalogue"] = listed.ids.tolist()
    return inputs


def _beyond_files(args: argparse.Namespace) -> list[str]:
    """The beyond-accuracy inputs given on the command line, as their flags."""
    return [flag for flag, given in (("--interactions", args.interactions),
                                     ("--item-attributes", args.item_attributes),
                                     ("--catalogue", args.catalogue != "auto")) if given]


def beyond_file_fingerprints(args: argparse.Namespace, inputs: dict[str, Any]
                             ) -> dict[str, Fingerprint] | None:
    """Rows, users and the SHA-256 of each beyond-accuracy input file, for a saved
    evaluation (None: none was read)."""
    files = {"interactions": (args.interactions, inputs.get("interactions")),
             "item_attributes": (args.item_attributes, inputs.get("item_attributes")),
             "catalogue": (args.catalogue if args.catalogue not in CATALOGUE else None,
                           inputs.get("catalogue"))}
    prints = {}
    for name, (path, read) in files.items():
        if path is None or read is None:
            continue
        rows, users = ((read.n_rows, read.n_users) if name == "interactions" else
                       (len(read.table), None) if name == "item_attributes" else
                       (len(read), None))
        prints[name] = Fingerprint(rows, users, _sha256(path), "sha256 of the file")
    return prints or None


def _results(evaluation: Evaluation, metrics: tuple[str, ...], beyond: tuple[str, ...],
             cutoffs: list[int], per_user: bool) -> pd.DataFrame:
    """The long table of results: accuracy metrics, then beyond-accuracy ones."""
    parts = []
    if per_user:
        listed = tuple(name for name in beyond if name in LIST_METRICS)
        left_out = [name for name in beyond if name not in LIST_METRICS]
        if left_out:
            warn([f"--per-user: {', '.join(left_out)} have no value per user of this "
                   "evaluation and are left out."])
        if metrics or listed:
            parts.append(evaluation.per_user_table(metrics + listed, cutoffs))
    else:
        if metrics:
            parts.append(evaluation.summary(metrics, cutoffs))
        if beyond and evaluation.beyond is not None:
            parts.append(evaluation.beyond.summary(beyond, cutoffs))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _evaluate_on_spark(args: argparse.Namespace, metrics: Sequence[str], cutoffs: list[int],
                       conventions: Conventions, columns: dict[str, str]) -> int:
    """``--engine spark``: Parquet files or folders evaluated by Spark."""
    if args.per_user:
        raise ValueError("--per-user is not available with --engine spark: save a bundle with "
                         "--save DIR, whose per_user/ folder holds the per-user values.")
    if args.segments is not None:  # a file on this machine, refused before Spark starts
        read_attributes(args.segments, key="user")
    try:
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
    saved_cutoffs = [*DEFAULT_CUTOFFS, *(cutoffs if args.cutoffs else []), max(cutoffs)]
    evaluation = evaluate_spark(truth, runs, relevance=mapping, conventions=conventions,
                                max_cutoff=max(cutoffs),
                                metrics=saved_metrics(metrics) if args.save else metrics,
                                columns=columns,
                                per_user_cutoffs=saved_cutoffs if args.save else None)
    warn([warning.describe() for warning in evaluation.warnings])
    print(f"rankmetrics: conventions: {conventions.describe()}", file=sys.stderr)
    text = _render(evaluation.summary(metrics, cutoffs), args, conventions, mapping, evaluation)
    if args.save:
        saved = evaluation.save(args.save, chosen_cutoff=max(cutoffs), sample=args.sample_users,
                                cutoffs=[*DEFAULT_CUTOFFS, *(cutoffs if args.cutoffs else [])],
                                user_attributes=args.segments)
        print(f"rankmetrics: saved the evaluation to {saved}", file=sys.stderr)
    return _write(text, args)


def saved_metrics(metrics: Sequence[str]) -> list[str]:
    """What ``--save`` keeps: every main metric (each page of the dashboard draws them) and
    the others asked for with ``--metrics``."""
    return list(dict.fromkeys([*MAIN_METRICS, *metrics]))


def file_fingerprints(truth_path: str, truth, runs: dict, specs: list[str]
                      ) -> dict[str, Fingerprint]:
    """Rows, users and the SHA-256 of each input file, for a saved evaluation."""
    paths = {"ground_truth": (truth_path, truth)}
    for spec, (name, run) in zip(specs, runs.items(), strict=True):
        paths[name] = (run_name_and_path(spec)[1], run)
    return {name: Fingerprint(table.n_rows, table.n_users, _sha256(path), "sha256 of the file")
            for name, (path, table) in paths.items()}


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()




def _render(
    table: pd.DataFrame, args: argparse.Namespace, conventions, mapping, evaluation
) -> str:
    fmt, per_user = args.format, args.per_user
    if fmt == "latex":
        if per_user:
            raise ValueError("--format latex writes a table of means: leave out --per-user.")
        cutoffs = sorted({int(k) for k in table["cutoff"].dropna()})
        return latex_table(evaluation, list(dict.fromkeys(table["metric"])), cutoffs,
                           test=args.test, correction=args.correction,
                           confidence=args.confidence)
    if fmt == "csv":
        return to_csv(table, formulas=args.csv_formulas)
    if fmt == "json":
        rows = json.loads(table.to_json(orient="records", double_precision=15))
        document = {
            "relevance": mapping.as_dict(),
            "conventions": conventions.as_dict(),
            "users": json.loads(evaluation.user_counts().to_json(orient="records")),
            **({"beyond_accuracy": evaluation.beyond.choices()} if evaluation.beyond else {}),
            "per_user" if per_user else "results": rows,
        }
        return json.dumps(document, indent=2) + "\n"
    shown = table.copy()
    shown["cutoff"] = shown["cutoff"].astype("string").fillna("-")
    if per_user:
        return shown.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n"
    wide = shown.pivot_table(index=["metric", "cutoff"], columns="model", values="value",
                             sort=False)
    users = evaluation.user_counts().set_index("model")["users"]
    header = "users averaged: " + ", ".join(f"{m} {users[m]}" for m in evaluation.models)
    # four decimals; fewer where a metric declares fewer (popularity), none for whole counts
    texts = wide.apply(lambda row: row.map(partial(value_text, row.name[0])), axis=1)
    return header + "\n" + texts.to_string() + "\n"
