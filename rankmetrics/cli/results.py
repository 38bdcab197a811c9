"""What ``rankmetrics evaluate`` prints: the table of results (means, or values per user) in
the format asked for, written to ``--output`` or stdout. Both engines print through here.

``--format table`` is for people: above the means, the decision in one sentence
(:func:`rankmetrics.report.decision.headline`) at K = ``DECISION_CUTOFF`` (or the table's
largest K); in it, the marks of the dashboard's Compare table (★ significantly best, ≈ the
leaders the data cannot tell apart, from the same paired test, its work bounded the same
way); below it, what the marks mean and which test made them. CSV, JSON and LaTeX are read by
programs and stay as they are."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from functools import partial
from pathlib import Path

import pandas as pd

from rankmetrics.cli.options import DEFAULT_CUTOFFS, warn
from rankmetrics.evaluation import Evaluation
from rankmetrics.export import to_csv
from rankmetrics.metrics import LIST_METRICS, METRICS, value_text
from rankmetrics.report.decision import MetricDecision, headline, leader_by_cutoff, verdict
from rankmetrics.report.latex import latex_table
from rankmetrics.report.verdict import (
    BEST_MARK,
    TIED_MARK,
    how_tested,
    leader_marks,
    leader_verdict,
    quick_test,
)
from rankmetrics.stats import TEST_NAMES, ModelComparison, compare_models_together

#: The K of the decision above ``--format table``, when the table has it (else its largest K):
#: the K the report and the dashboard decide at by default.
DECISION_CUTOFF = 10
#: A table of more cutoffs than this is tested at the default cutoffs and the decision's K.
MOST_TESTED_CUTOFFS = 20
#: The randomization test's sign flips (the dashboard's); the marks need no interval, so a
#: few resamples do (as for the LaTeX table).
PERMUTATIONS, RESAMPLES = 10_000, 200

#: (metric, cutoff) of one row of the table; the cutoff None for a metric without one.
Row = tuple[str, int | None]


def results_table(evaluation: Evaluation, metrics: tuple[str, ...],
                  beyond: tuple[str, ...], cutoffs: list[int], per_user: bool) -> pd.DataFrame:
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


def render_results(
    table: pd.DataFrame, args: argparse.Namespace, conventions, mapping, evaluation, *,
    tested: bool = True, subjects: str = "users",
) -> str:
    """The table of results in ``--format``: CSV, JSON (with the relevance, conventions and
    users averaged), a LaTeX table of the means, or a text table (the means with the
    decision and the significance marks, unless ``tested`` is False: an evaluation without
    per-user values), whose first line counts the ``subjects`` averaged (users; queries
    where every input is TREC's, see :func:`rankmetrics.io.subject_word`)."""
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
    header = f"{subjects} averaged: " + ", ".join(f"{m} {users[m]}" for m in evaluation.models)
    # four decimals; fewer where a metric declares fewer (popularity), none for whole counts
    texts = wide.apply(lambda row: row.map(partial(value_text, row.name[0])), axis=1)
    rows = list(dict.fromkeys(
        (str(metric), None if pd.isna(cutoff) else int(cutoff))
        for metric, cutoff in zip(table["metric"], table["cutoff"], strict=True)
        if metric in METRICS and METRICS[metric].higher is None))  # tested: higher is better
    if not rows or len(evaluation.models) < 2:
        return header + "\n" + texts.to_string() + "\n"
    if not tested:
        return (header + "\n" + texts.to_string() + "\nNo significance marks: --engine spark "
                "keeps no per-user values to test (--engine local tests them).\n")
    decided_at = _decision_cutoff(rows)
    comparisons = _row_comparisons(evaluation, _tested_rows(rows, decided_at), args)
    if not comparisons:
        return (header + "\n" + texts.to_string() + "\nNo significance marks: the paired "
                "tests need at least two users every model counts.\n")
    for (metric, cutoff), comparison in comparisons.items():
        marks = leader_marks(leader_verdict(comparison))
        where = (metric, "-" if cutoff is None else str(cutoff))
        texts.loc[where] = [f"{text} {marks[model]}" if model in marks else f"{text}  "
                            for model, text in texts.loc[where].items()]
    texts = texts.map(lambda text: text if text.endswith((BEST_MARK, TIED_MARK, "  "))
                      else f"{text}  ")
    decisions = [MetricDecision(verdict(comparisons[metric, cutoff], metric, cutoff),
                                tuple(leader_by_cutoff(evaluation, metric, _cutoffs(rows)))
                                if cutoff is not None else (), evaluation.max_cutoff)
                 for metric, cutoff in rows
                 if cutoff in (decided_at, None) and (metric, cutoff) in comparisons]
    return (headline(decisions) + "\n\n" + header + "\n" + texts.to_string() + "\n"
            + _legend(comparisons, rows, args.test) + "\n")


def _cutoffs(rows: list[Row]) -> list[int]:
    return sorted({cutoff for _, cutoff in rows if cutoff is not None})


def _decision_cutoff(rows: list[Row]) -> int | None:
    """The K of the decision: ``DECISION_CUTOFF`` when the table has it, else its largest."""
    cutoffs = _cutoffs(rows)
    if not cutoffs:
        return None
    return DECISION_CUTOFF if DECISION_CUTOFF in cutoffs else cutoffs[-1]


def _tested_rows(rows: list[Row], decided_at: int | None) -> list[Row]:
    """The rows tested: every row, or in a table of more than ``MOST_TESTED_CUTOFFS``
    cutoffs those at the default cutoffs and the decision's K."""
    if len(_cutoffs(rows)) <= MOST_TESTED_CUTOFFS:
        return rows
    kept = {*DEFAULT_CUTOFFS, decided_at, None}
    return [(metric, cutoff) for metric, cutoff in rows if cutoff in kept]


def _row_comparisons(evaluation: Evaluation, rows: list[Row],
                     args: argparse.Namespace) -> dict[Row, ModelComparison]:
    """Every pair's test on each row, on the users every model counts (none with fewer than
    two such users), the users resampled once; the test bounded as :func:`quick_test`
    says."""
    named = {f"{metric}@{cutoff}": (metric, cutoff) for metric, cutoff in rows}
    tables = {name: evaluation.paired(*row) for name, row in named.items()}
    tables = {name: values for name, values in tables.items() if len(values) >= 2}
    if not tables:
        return {}
    n_users = max(len(values) for values in tables.values())
    found = compare_models_together(
        tables, test=quick_test(args.test, n_users, PERMUTATIONS), correction=args.correction,
        n_permutations=PERMUTATIONS, n_bootstrap=RESAMPLES, confidence=args.confidence)
    return {named[name]: comparison for name, comparison in found.items()}


def _legend(comparisons: dict[Row, ModelComparison], rows: list[Row], asked: str) -> str:
    """What the marks mean, the test that made them, on which users, at which rows."""
    first = next(iter(comparisons.values()))
    users = sorted({int(comparison.models["users"].iloc[0])
                    for comparison in comparisons.values()})
    counted = (f"the {users[0]:,} users every model counts" if len(users) == 1 else
               f"the users every model counts ({users[0]:,} to {users[-1]:,}, by row)")
    text = (f"{BEST_MARK} significantly better than every other model on that row; "
            f"{TIED_MARK} the leaders the data cannot tell apart ({how_tested(first)}, on "
            f"{counted}).")
    if first.test != asked:
        text += (f" With {users[-1]:,} users, to keep the table quick, the paired t-test "
                 f"stands in for the {TEST_NAMES[asked]}; --format latex runs it in full.")
    tested = _cutoffs(list(comparisons))
    if tested != _cutoffs(rows):
        text += (f" Tested at K = {', '.join(map(str, tested))} (a table of more than "
                 f"{MOST_TESTED_CUTOFFS} cutoffs is tested at these).")
    return text


def write_output(text: str, args: argparse.Namespace) -> int:
    """Write ``text`` to ``--output``, else to stdout. A file is written beside itself and
    then renamed into place, so a failed or interrupted write leaves the old file (or none)
    rather than half of the new one; a device (``/dev/null``) is written directly."""
    if not args.output:
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    try:
        if target.exists() and not target.is_file():
            with open(target, "w", encoding="utf-8") as device:
                device.write(text)
            return 0
        scratch = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            scratch.write_text(text, encoding="utf-8")
            os.replace(scratch, target)
        finally:
            scratch.unlink(missing_ok=True)
    except OSError as error:
        reason = ("there is no space left on the device: free some space or write "
                  "elsewhere" if error.errno == errno.ENOSPC else
                  error.strerror or str(error))
        raise ValueError(f"Could not write --output {args.output}: {reason}.") from None
    return 0
