"""What ``rankmetrics evaluate`` prints: the table of results (means, or values per user) in
the format asked for, written to ``--output`` or stdout. Both engines print through here."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path

import pandas as pd

from rankmetrics.cli.options import warn
from rankmetrics.evaluation import Evaluation
from rankmetrics.export import to_csv
from rankmetrics.metrics import LIST_METRICS, value_text
from rankmetrics.report.latex import latex_table


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
    table: pd.DataFrame, args: argparse.Namespace, conventions, mapping, evaluation,
    subjects: str = "users",
) -> str:
    """The table of results in ``--format``: CSV, JSON (with the relevance, conventions and
    users averaged), a LaTeX table of the means, or a text table, whose first line counts the
    ``subjects`` averaged (users; queries where every input is TREC's, see
    :func:`rankmetrics.io.subject_word`)."""
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
    return header + "\n" + texts.to_string() + "\n"


def write_output(text: str, args: argparse.Namespace) -> int:
    """Write ``text`` to ``--output``, else to stdout."""
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
