"""Command line: ``rankmetrics evaluate --truth FILE --run NAME=FILE ...``.

Prints one row per model, metric and cutoff (``model,metric,cutoff,value,users``) or, with
``--per-user``, one row per model, user, metric and cutoff. Bad input ends with one line
naming the file, the row and the problem, and exit code 1; never a traceback.
``rankmetrics report`` writes one HTML report comparing the models.
``rankmetrics metrics`` lists the metrics with what they mean and their formulas.
``rankmetrics k-report`` says whether the verdict depends on K
(:mod:`rankmetrics.choosing_k.report`). ``rankmetrics overlap`` says how much two models'
lists have in common (:mod:`rankmetrics.agreement`). ``rankmetrics plan`` says how many users
it takes to see a difference between two models (:mod:`rankmetrics.stats.power`).
``rankmetrics significance`` prints the paired tests, intervals, ranks and effect sizes of
every pair (:func:`rankmetrics.stats.compare_models`); ``rankmetrics runs`` compares models
trained with several seeds (:mod:`rankmetrics.stats.runs`); ``rankmetrics conventions`` says
why the presets (each a library's conventions) disagree (:mod:`rankmetrics.disagreement`).
``python -m rankmetrics`` is the same command.

Each command is a module of this package (:mod:`~rankmetrics.cli.evaluate`,
:mod:`~rankmetrics.cli.report`, :mod:`~rankmetrics.cli.metrics`,
:mod:`~rankmetrics.cli.k_report`, :mod:`~rankmetrics.cli.agreement`,
:mod:`~rankmetrics.cli.plan`, :mod:`~rankmetrics.cli.significance`,
:mod:`~rankmetrics.cli.runs`, :mod:`~rankmetrics.cli.conventions`) that adds its parser
and runs it; the options several commands take, and their readers, are declared once in
:mod:`rankmetrics.cli.options`.
"""

from __future__ import annotations

import argparse
import os
import sys

from rankmetrics.cli.agreement import add_overlap_parser, run_overlap
from rankmetrics.cli.conventions import add_conventions_parser, run_conventions
from rankmetrics.cli.evaluate import add_evaluate_parser, run_evaluate
from rankmetrics.cli.k_report import add_k_report_parser, run_k_report
from rankmetrics.cli.metrics import add_metrics_parser, run_metrics
from rankmetrics.cli.options import refuse_own_inputs
from rankmetrics.cli.plan import add_plan_parser, run_plan
from rankmetrics.cli.report import add_report_parser, run_report
from rankmetrics.cli.runs import add_runs_parser, run_runs
from rankmetrics.cli.significance import add_significance_parser, run_significance
from rankmetrics.errors import DataError, printable
from rankmetrics.runtime import keep_freed_memory, prefer_ordinary_pages


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankmetrics",
        description="Ranking metrics for recommender and search models.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    add_evaluate_parser(commands)
    add_report_parser(commands)
    add_metrics_parser(commands)
    add_k_report_parser(commands)
    add_overlap_parser(commands)
    add_plan_parser(commands)
    add_significance_parser(commands)
    add_runs_parser(commands)
    add_conventions_parser(commands)
    return parser


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
        refuse_own_inputs(args)
        if args.command == "k-report":
            return run_k_report(args)
        if args.command == "report":
            return run_report(args)
        if args.command == "overlap":
            return run_overlap(args)
        if args.command == "plan":
            return run_plan(args)
        if args.command == "runs":
            return run_runs(args)
        if args.command == "significance":
            return run_significance(args)
        if args.command == "conventions":
            return run_conventions(args)
        return run_evaluate(args)
    except BrokenPipeError:  # the reader stopped early (``| head``): nothing to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit fails quietly
        return 1
    except KeyboardInterrupt:  # Ctrl+C: stopped as asked, in one line, not a traceback
        print("rankmetrics: interrupted", file=sys.stderr)
        return 130
    except (DataError, ValueError, OSError) as error:
        print(f"rankmetrics: error: {printable(str(error))}", file=sys.stderr)
        return 1
