"""``rankmetrics k-report``: the Choosing-K report on the command line.

Prints the summary in words (each sentence tagged with the kind of finding) and writes every
table of :func:`rankmetrics.choosing_k.report.k_report` as CSV into a folder, for a notebook or a CI
job that must know whether the K it reports decides the verdict. ``--bundle`` reports on a
saved evaluation instead of files (:func:`rankmetrics.choosing_k.report.k_report`).
"""

from __future__ import annotations

import argparse
import sys

from rankmetrics.choosing_k.report import KReport, k_report
from rankmetrics.cli.options import (
    MAX_CURVE_CUTOFF,
    Commands,
    add_confidence_option,
    add_reading_options,
    add_significance_options,
    cutoff,
    decompressed_size,
    read_conventions,
    read_truth_and_runs,
    reading,
    refuse_with_bundle,
    relevance_mapping,
)
from rankmetrics.evaluation import evaluate, load_bundle
from rankmetrics.metrics import MAIN_METRICS
from rankmetrics.relevance import RelevanceMapping

#: The largest K looked at when the command line does not say (files; a saved evaluation
#: keeps its own).
DEFAULT_MAX_CUTOFF = 50
#: The K reported and the cutoffs of the side-by-side table when the command line does not
#: say: those up to the largest K (a default never refuses the other options).
DEFAULT_CUTOFF = 10
DEFAULT_TABLE_CUTOFFS = (1, 5, 10)


def add_k_report_parser(commands: Commands) -> None:
    """The ``k-report`` command's options."""
    report = commands.add_parser(
        "k-report",
        help="does the verdict depend on K, the relevance threshold or ties? (summary and "
        "tables)",
        description="Compare models at every cutoff K = 1..max: where their order changes, "
        "which K the paired tests separate them at, whether the winner depends on the "
        "relevance threshold or on ties. Prints a summary and writes the tables as CSV.",
    )
    report.add_argument("--truth", metavar="FILE", help="the ground truth")
    report.add_argument("--run", action="append", metavar="[NAME=]FILE",
                        help="a model's output (repeat for several models)")
    report.add_argument("--bundle", metavar="PATH",
                        help="a saved evaluation (.zip or folder, from `rankmetrics evaluate "
                        "--save`) instead of --truth and --run: its relevance, conventions "
                        "and largest K are kept; the tests run at its saved cutoffs, the "
                        "relevance thresholds and ties on its sampled users")
    report.add_argument("--output-dir", required=True, metavar="DIR",
                        help="folder the tables are written to (made if needed)")
    report.add_argument("--metric", choices=MAIN_METRICS, default="ndcg",
                        help="the metric followed over K (default: %(default)s)")
    report.add_argument("--cutoff", metavar="K",
                        help=f"the K you would report (default: {DEFAULT_CUTOFF}, or the "
                        "largest K when it is smaller)")
    report.add_argument("--max-cutoff", metavar="K",
                        help=f"the largest K looked at (default: {DEFAULT_MAX_CUTOFF})")
    report.add_argument("--cutoffs", metavar="LIST",
                        help="cutoffs of the side-by-side table (default: "
                        f"{','.join(map(str, DEFAULT_TABLE_CUTOFFS))}, those up to the "
                        "largest K)")
    add_significance_options(report, {
        "test": "paired test (default: %(default)s; randomization runs at a spread of cutoffs)",
        "correction": "multiple-comparison correction over each K's pairs"}, test_default="t")
    add_confidence_option(report, "confidence level; 1 - it is the significance level",
                          metavar=None)
    report.add_argument("--permutations", type=int, default=1_000,
                        help="random sign flips of the randomization test")
    report.add_argument("--seed", type=int, default=0, help="seed of the random draws")
    report.add_argument("--thresholds", metavar="LIST",
                        help="relevance thresholds of the winner map (ratings with "
                        "--binary, grades otherwise), such as 3,4,5 (default: around the "
                        "current one)")
    add_reading_options(report)


def run_k_report(args: argparse.Namespace) -> int:
    """Read the files (or the saved evaluation), compute the report, print the summary,
    write the tables."""
    if args.bundle is not None:
        return _saved_k_report(args)
    if args.truth is None or not args.run:
        raise ValueError("k-report needs --truth FILE and at least one --run FILE, or "
                         "--bundle PATH (a saved evaluation).")
    max_cutoff = cutoff("--max-cutoff", args.max_cutoff or str(DEFAULT_MAX_CUTOFF),
                        MAX_CURVE_CUTOFF)
    chosen = _chosen_cutoff(args.cutoff, max_cutoff)
    table_cutoffs = _table_cutoffs(args.cutoffs, max_cutoff)
    conventions = read_conventions(args)
    limit = decompressed_size(args)
    truth, runs = read_truth_and_runs(args, limit)
    mapping = relevance_mapping(args, truth.numbers())
    ev = evaluate(truth, runs, relevance=mapping, conventions=conventions,
                  max_cutoff=max_cutoff)
    report = k_report(ev, metric=args.metric, cutoff=chosen, runs=runs,
                      relevance_mappings=_thresholds(args.thresholds, mapping),
                      table_cutoffs=table_cutoffs, test=args.test,
                      correction=args.correction, confidence=args.confidence,
                      n_permutations=args.permutations, seed=args.seed)
    return _write(report, args.output_dir)


def _saved_k_report(args: argparse.Namespace) -> int:
    """The report of a saved evaluation: its settings kept, the options that would change
    them refused."""
    refuse_with_bundle(args)
    with reading(f"--bundle {args.bundle}", args.bundle):
        saved = load_bundle(args.bundle, max_memory=decompressed_size(args))
    chosen = _chosen_cutoff(args.cutoff, saved.max_cutoff)
    table_cutoffs = _table_cutoffs(args.cutoffs, saved.max_cutoff)
    report = k_report(saved, metric=args.metric, cutoff=chosen,
                      relevance_mappings=_thresholds(args.thresholds, saved.relevance),
                      table_cutoffs=table_cutoffs, test=args.test,
                      correction=args.correction, confidence=args.confidence,
                      n_permutations=args.permutations, seed=args.seed)
    return _write(report, args.output_dir)


def _chosen_cutoff(text: str | None, highest: int) -> int:
    """The K of ``--cutoff``, or the default one that fits the largest K."""
    if text is None:
        return min(DEFAULT_CUTOFF, highest)
    return cutoff("--cutoff", text, highest)


def _table_cutoffs(text: str | None, highest: int) -> list[int]:
    """The cutoffs of ``--cutoffs``, in the order given; or the default ones up to the
    largest K."""
    if text is None:
        return [k for k in DEFAULT_TABLE_CUTOFFS if k <= highest] or [highest]
    return [cutoff("--cutoffs", part, highest) for part in text.split(",") if part.strip()]


def _write(report: KReport, folder: str) -> int:
    """Print the summary, one tagged sentence a line, and write the tables into ``folder``."""
    for sentence in report.summary:
        print(f"[{sentence.kind}] {sentence.text}")
    written = report.write_tables(folder)
    print(f"rankmetrics: wrote {len(written)} tables to {folder}", file=sys.stderr)
    return 0


def _thresholds(text: str | None, mapping: RelevanceMapping
                ) -> dict[str, RelevanceMapping] | None:
    """The mappings of ``--thresholds``: the active mapping with each threshold."""
    if text is None:
        return None
    values = []
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            values.append(float(part))
        except ValueError:
            raise ValueError(f"--thresholds must be numbers such as 3,4,5. Got {part!r}."
                             ) from None
    if not values:
        raise ValueError(f"--thresholds must be numbers such as 3,4,5. Got {text!r}.")
    if mapping.kind == "binary":
        return {f"rating >= {value:g}": RelevanceMapping.binary(value) for value in values}
    return {f"grade >= {value:g}": RelevanceMapping(mapping.kind, value, mapping.table)
            for value in values}
