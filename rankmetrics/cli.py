"""Command line: ``rankmetrics evaluate --truth FILE --run NAME=FILE ...``.

Prints one row per model, metric and cutoff (``model,metric,cutoff,value,users``) or, with
``--per-user``, one row per model, user, metric and cutoff. Bad input ends with one line
naming the file, the row and the problem, and exit code 1; never a traceback.
``rankmetrics metrics`` lists the metrics with what they mean and their formulas.
``rankmetrics k-report`` says whether the verdict depends on K (:mod:`rankmetrics.k_report`).
``python -m rankmetrics`` is the same command.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from rankmetrics.conventions import OPTION_CHOICES, OPTION_HELP, PRESET_HELP, PRESETS, Conventions
from rankmetrics.errors import DataError, printable
from rankmetrics.evaluate import MAX_CUTOFF, evaluate
from rankmetrics.export import FORMULA_MODES, to_csv
from rankmetrics.io import check_against_truth, parse_size, read_run, read_truth
from rankmetrics.k_report_cli import add_k_report_parser, run_k_report
from rankmetrics.metrics import MAIN_METRICS, METRICS, check_metrics
from rankmetrics.relevance import RelevanceMapping, parse_grade_table, suggest_mapping

DEFAULT_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)
#: Largest K of ``--max-cutoff``: the whole curve prints K rows per model and metric.
MAX_CURVE_CUTOFF = 100_000
COLUMN_ROLES = ("user", "item", "score", "rank", "rating")


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
    ev.add_argument("--truth", required=True, metavar="FILE",
                    help="ground truth: TREC qrels, CSV/TSV/Parquet/JSON Lines with user, "
                    "item and rating columns")
    ev.add_argument("--run", required=True, action="append", metavar="[NAME=]FILE",
                    help="a model's output (repeat for several models); NAME defaults to "
                    "the file name without extension")
    ev.add_argument("--metrics", default=",".join(MAIN_METRICS),
                    help=f"comma-separated metrics from {', '.join(METRICS)} "
                    "(default: %(default)s; `metrics` lists what each one means)")
    cut = ev.add_mutually_exclusive_group()
    cut.add_argument("--cutoffs", help="comma-separated cutoffs K from 1 to "
                     f"{MAX_CUTOFF:,} (default: {','.join(map(str, DEFAULT_CUTOFFS))}); "
                     "cutoffs beyond the longest list cost nothing more")
    cut.add_argument("--max-cutoff", metavar="K",
                     help=f"every cutoff from 1 to K, at most {MAX_CURVE_CUTOFF:,} "
                     "(the whole curve)")
    ev.add_argument("--preset", choices=list(PRESETS), default="default",
                    help="; ".join(f"{name}: {text}" for name, text in PRESET_HELP.items()))
    for option, choices in OPTION_CHOICES.items():
        ev.add_argument(f"--{option.replace('_', '-')}", choices=choices,
                        help=OPTION_HELP[option] + " Overrides the preset.")
    ev.add_argument("--threshold-gains", choices=("yes", "no"),
                    help=OPTION_HELP["threshold_gains"] + " Overrides the preset.")
    relevance = ev.add_argument_group(
        "relevance", "How ratings become relevance. Without these options a mapping is "
        "suggested from the ratings found (and reported on stderr)."
    )
    relevance.add_argument("--threshold", type=float, metavar="T",
                           help="a grade >= T is relevant (trec_eval -l); ratings are the "
                           "grades unless --grades is given")
    relevance.add_argument("--grades", metavar="TABLE",
                           help='graded mapping such as "5=3,4=2,3=1": ratings at or above '
                           "each value get its grade, lower ratings grade 0")
    relevance.add_argument("--binary", type=float, metavar="R",
                           help="binary relevance: rating >= R is relevant (grade 1)")
    columns = ev.add_argument_group(
        "columns", "Column names, when they are not found automatically."
    )
    for role in COLUMN_ROLES:
        columns.add_argument(f"--{role}-column", metavar="NAME",
                             help=f"the column holding the {role}")
    ev.add_argument("--max-decompressed-size", metavar="SIZE",
                    help="the most a .gz or .zip input may hold once decompressed, such as "
                    "8G or 500M (default: $RANKMETRICS_MAX_DECOMPRESSED_SIZE, else 4G)")
    ev.add_argument("--per-user", action="store_true",
                    help="one row per model, user, metric and cutoff")
    ev.add_argument("--format", choices=("csv", "json", "table"), default="csv",
                    help="output format (default: csv)")
    ev.add_argument("--output", metavar="PATH", help="write to PATH instead of stdout")
    ev.add_argument("--csv-formulas", choices=FORMULA_MODES, default="quoted",
                    help="CSV text cells starting with =, +, -, @, tab or carriage return "
                    "(which a spreadsheet would run as formulas): 'quoted' prefixes them with "
                    "a single quote, for people opening the CSV in a spreadsheet (default); "
                    "'raw' writes them as they are, for programs reading the CSV")
    listing = commands.add_parser(
        "metrics",
        help="list the metrics: name, label, meaning and formula",
        description="List the metrics rankmetrics computes, with what each one means and its "
        "formula (LaTeX).",
    )
    listing.add_argument("--format", choices=("table", "json"), default="table",
                         help="output format (default: table)")
    add_k_report_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "metrics":
        sys.stdout.write(metric_listing(args.format))
        return 0
    try:
        if args.command == "k-report":
            return run_k_report(args)
        return _evaluate(args)
    except (DataError, ValueError, OSError) as error:
        print(f"rankmetrics: error: {printable(str(error))}", file=sys.stderr)
        return 1


def _evaluate(args: argparse.Namespace) -> int:
    metrics = check_metrics([m.strip() for m in args.metrics.split(",") if m.strip()])
    cutoffs = _cutoffs(args)
    conventions = _conventions(args)
    limit = _decompressed_size(args.max_decompressed_size)
    column_overrides = {
        role: getattr(args, f"{role}_column")
        for role in COLUMN_ROLES
        if getattr(args, f"{role}_column")
    }
    with _option(f"--truth {args.truth}", args.truth):
        truth = read_truth(args.truth,
                           columns=_only(column_overrides, ("user", "item", "rating")),
                           max_decompressed_size=limit)
    _warn(truth.warnings)
    mapping = _mapping(args, truth.numbers())
    runs = {}
    for spec in args.run:
        name, path = _run_spec(spec)
        if name in runs:
            raise ValueError(f"Two runs are named {name!r}: name them with NAME=FILE.")
        with _option(f"--run {spec}", path, after=spec[: len(spec) - len(path)]):
            run = read_run(path, name=name,
                           columns=_only(column_overrides, ("user", "item", "score", "rank")),
                           max_decompressed_size=limit)
        _warn(run.warnings)
        _warn(check_against_truth(run, truth, mapping=mapping, max_cutoff=max(cutoffs)))
        runs[name] = run
    evaluation = evaluate(truth, runs, relevance=mapping, conventions=conventions,
                          max_cutoff=max(cutoffs))
    print(f"rankmetrics: conventions: {conventions.describe()}", file=sys.stderr)
    if args.per_user:
        table = evaluation.per_user_table(metrics, cutoffs)
    else:
        table = evaluation.summary(metrics, cutoffs)
    text = _render(table, args, conventions, mapping, evaluation)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def metric_listing(fmt: str = "table") -> str:
    """Every registered metric: name, label, whether it has a cutoff, meaning and formula.

    >>> print(metric_listing().splitlines()[0])
    precision (Precision@K): Share of the top K slots that hold a relevant item (divided by K \
even when the list is shorter).
    """
    if fmt == "json":
        rows = [{"name": name, "label": metric.label, "has_cutoff": metric.has_cutoff,
                 "main": metric.main, "description": metric.description,
                 "formula": metric.formula} for name, metric in METRICS.items()]
        return json.dumps(rows, indent=2) + "\n"
    blocks = [
        f"{name} ({metric.label}{'@K' if metric.has_cutoff else ''}): {metric.description}\n"
        f"    {metric.formula}"
        for name, metric in METRICS.items()
    ]
    return "\n\n".join(blocks) + "\n"


@contextmanager
def _option(option: str, path: str, *, after: str = "") -> Iterator[None]:
    """Reading the file an option names: a problem with it names the option too."""
    if not path.strip():
        where = f" after {after!r}" if after else ""
        raise ValueError(f"{option}: no file given{where}.")
    try:
        yield
    except (DataError, OSError) as error:
        raise ValueError(f"{option}: {error}") from None


def _decompressed_size(text: str | None) -> int | None:
    if text is None:
        return None
    return parse_size(text, "--max-decompressed-size")


def _cutoffs(args: argparse.Namespace) -> list[int]:
    if args.max_cutoff is not None:
        return list(range(1, _cutoff("--max-cutoff", args.max_cutoff, MAX_CURVE_CUTOFF) + 1))
    if args.cutoffs is None:
        return list(DEFAULT_CUTOFFS)
    values = sorted({_cutoff("--cutoffs", part, MAX_CUTOFF)
                     for part in args.cutoffs.split(",") if part.strip()})
    if not values:
        raise ValueError(f"--cutoffs must be whole numbers in the range [1, {MAX_CUTOFF}], "
                         f"such as 1,5,10. Got {args.cutoffs!r}.")
    return values


def _cutoff(option: str, text: str, highest: int) -> int:
    """One cutoff given on the command line: a whole number in [1, highest]."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not 1 <= value <= highest:
        raise ValueError(f"{option}: a cutoff must be a whole number in the range "
                         f"[1, {highest}]. Got {text.strip()!r}.")
    return value


def _conventions(args: argparse.Namespace) -> Conventions:
    overrides: dict[str, object] = {
        option: getattr(args, option)
        for option in OPTION_CHOICES
        if getattr(args, option) is not None
    }
    if args.threshold_gains is not None:
        overrides["threshold_gains"] = args.threshold_gains == "yes"
    return Conventions.preset(args.preset, **overrides)


def _mapping(args: argparse.Namespace, ratings) -> RelevanceMapping:
    if args.binary is not None:
        if args.grades is not None or args.threshold is not None:
            raise ValueError("--binary cannot be combined with --grades or --threshold.")
        mapping = RelevanceMapping.binary(args.binary)
    elif args.grades is not None:
        try:
            table = parse_grade_table(args.grades)
            mapping = RelevanceMapping.graded(table, threshold=args.threshold or 1.0)
        except ValueError as error:
            raise ValueError(f"--grades {args.grades}: {error}") from None
    elif args.threshold is not None:
        mapping = RelevanceMapping.identity(args.threshold)
    else:
        suggestion = suggest_mapping(ratings)
        mapping = suggestion.recommended
        print(f"rankmetrics: relevance: {suggestion.reason} (change it with --threshold, "
              "--grades or --binary)", file=sys.stderr)
    print(f"rankmetrics: relevance: {mapping.describe()}", file=sys.stderr)
    return mapping


def _run_spec(spec: str) -> tuple[str, str]:
    name, sep, path = spec.partition("=")
    if sep and name and not Path(spec).exists():
        return name.strip(), path
    return _stem(spec), spec


def _stem(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".zip"):
        name = name.removesuffix(suffix)
    return Path(name).stem or name


def _only(overrides: dict[str, str], roles: tuple[str, ...]) -> dict[str, str] | None:
    chosen = {role: name for role, name in overrides.items() if role in roles}
    return chosen or None


def _warn(messages: list[str]) -> None:
    for message in messages:
        print(f"rankmetrics: warning: {printable(message)}", file=sys.stderr)


def _render(
    table: pd.DataFrame, args: argparse.Namespace, conventions, mapping, evaluation
) -> str:
    fmt, per_user = args.format, args.per_user
    if fmt == "csv":
        return to_csv(table, formulas=args.csv_formulas)
    if fmt == "json":
        rows = json.loads(table.to_json(orient="records", double_precision=15))
        document = {
            "relevance": mapping.as_dict(),
            "conventions": conventions.as_dict(),
            "users": json.loads(evaluation.user_counts().to_json(orient="records")),
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
    return header + "\n" + wide.to_string(float_format=lambda v: f"{v:.4f}") + "\n"
