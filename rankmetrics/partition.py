"""Evaluate one partition of the users: the function every engine maps, Spark or another.

Users are the unit of parallelism. An engine splits the ground truth and every model's output
by user (each user's rows, wherever they came from, in one partition), calls
:func:`partition_sums` on each partition, adds the results with
:func:`rankmetrics.sums.add_sums` and divides once (:meth:`rankmetrics.sums.UserSums.means`).
Each partition runs the single-machine code (:func:`rankmetrics.evaluate`) on its users, so the
numbers are the single machine's, to rounding. Nothing here imports an engine: the inputs and
outputs are Arrow tables, which Spark's ``applyInArrow``, Dask and Ray all hand over.

Tables: the ground truth has columns ``user``, ``item``, ``rating``; a model's output ``user``,
``item`` and ``score`` (or ``rank``), and ``order`` when the rows' input order matters (the
``ties="input"`` convention: rows are taken in ``order``). Other columns are ignored.

Rows have no line numbers here: :func:`partition_problems` reports what the single-machine
checks refuse (missing ids, ratings and scores that are not numbers, a repeated item in one
user's list, conflicting ratings) with the user and item ids, and :func:`reduce_output` turns
the problems of every partition into one message: the first few, and how many in all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.bundle import per_user_columns
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation import COUNTS, Evaluation, UserSums, evaluate, extend_values
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.relevance import RelevanceMapping

#: The Arrow schema :func:`sums_to_arrow` and :func:`partition_output` write: a row per model
#: and metric (sums), a row per model (counts, metric null) and a row per problem found
#: (``problem`` set: its kind, what, how many and a few examples).
SUMS_SCHEMA = pa.schema(
    [pa.field("model", pa.string()), pa.field("metric", pa.string()),
     pa.field("width", pa.int64()), pa.field("sums", pa.list_(pa.float64()))]
    + [pa.field(name, pa.int64()) for name in COUNTS]
    + [pa.field("problem", pa.string()), pa.field("severity", pa.string()),
       pa.field("problem_count", pa.int64()), pa.field("examples", pa.list_(pa.string()))]
)
#: Examples of each problem a partition reports (and a message shows).
EXAMPLES = 5



def evaluate_partition(
    truth: pa.Table,
    runs: Mapping[str, pa.Table],
    *,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_cutoff: int = 100,
) -> Evaluation | None:
    """:func:`rankmetrics.evaluate` on the users of one partition (None when the partition has
    no ground-truth user)."""
    if truth.num_rows == 0:
        return None
    runs = {name: table.sort_by("order") if "order" in table.column_names else table
            for name, table in runs.items()}
    frames = {name: _frame(table, ("user", "item", _value_column(table, name)))
              for name, table in runs.items()}
    return evaluate(_frame(truth, ("user", "item", "rating")), frames, relevance=relevance,
                    conventions=conventions, max_cutoff=max_cutoff)


def partition_sums(
    truth: pa.Table,
    runs: Mapping[str, pa.Table],
    *,
    metrics: Iterable[str] | None = None,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_cutoff: int = 100,
) -> UserSums:
    """Sums over the partition's counted users of each metric at every cutoff, and the user
    counts, per model (see :mod:`rankmetrics.sums`).

    Parameters
    ----------
    truth : pa.Table (user, item, rating)
        Every ground-truth row of the partition's users (none: the partition has no user).
    runs : mapping model name -> pa.Table (user, item, score or rank)
        Each model's rows for the partition's users (and for users the ground truth lacks,
        which are counted as unknown).
    metrics, relevance, conventions, max_cutoff
        As :func:`rankmetrics.evaluate` and :meth:`rankmetrics.Evaluation.sums` take them.

    Examples
    --------
    >>> truth = pa.table({"user": ["u", "v"], "item": ["a", "b"], "rating": [1, 1]})
    >>> run = pa.table({"user": ["u", "v"], "item": ["a", "c"], "score": [1.0, 1.0]})
    >>> halves = [partition_sums(truth.slice(i, 1), {"m": run.slice(i, 1)}, metrics=["ndcg"])
    ...           for i in (0, 1)]
    >>> from rankmetrics.evaluation import add_sums
    >>> float(add_sums(halves).means()["m"]["ndcg"][0])
    0.5
    """
    metrics = check_metrics(list(metrics) if metrics is not None else list(METRICS))
    evaluation = evaluate_partition(truth, runs, relevance=relevance, conventions=conventions,
                                    max_cutoff=max_cutoff)
    if evaluation is None:
        return _no_user_sums(runs, metrics)
    return evaluation.sums(metrics)


def partition_per_user(
    truth: pa.Table,
    runs: Mapping[str, pa.Table],
    *,
    cutoffs: Sequence[int],
    metrics: Iterable[str] | None = None,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_cutoff: int = 100,
) -> pa.Table:
    """Per-user values of the partition's counted users at the given cutoffs: a row per
    model and user, a column per metric and cutoff (``ndcg@10``; ``r_precision``), as a
    bundle holds them (:meth:`rankmetrics.Evaluation.saved_per_user`)."""
    metrics = check_metrics(list(metrics) if metrics is not None else list(METRICS))
    evaluation = evaluate_partition(truth, runs, relevance=relevance, conventions=conventions,
                                    max_cutoff=max_cutoff)
    schema = per_user_schema(metrics, cutoffs)
    if evaluation is None:
        return schema.empty_table()
    return pa.Table.from_pandas(evaluation.saved_per_user(metrics, cutoffs), schema=schema,
                                preserve_index=False)


def sums_to_arrow(sums: UserSums) -> pa.Table:
    """A :class:`UserSums` as an Arrow table (:data:`SUMS_SCHEMA`), for an engine to move:
    a row per model and metric with the sums, and a row per model with the counts (metric
    null)."""
    zero = dict.fromkeys(COUNTS, 0)
    rows = [
        {"model": model, "metric": metric, "width": sums.width, "sums": values.tolist(), **zero}
        for model, by_metric in sums.sums.items()
        for metric, values in by_metric.items()
    ] + [
        {"model": model, "metric": None, "width": sums.width, "sums": [], **counts}
        for model, counts in sums.counts.items()
    ]
    return pa.Table.from_pylist(rows, schema=SUMS_SCHEMA)


def add_arrow_sums(table: pa.Table, models: Sequence[str], metrics: Sequence[str]) -> UserSums:
    """The sum of every :class:`UserSums` that :func:`sums_to_arrow` wrote into ``table``
    (the rows of many partitions, in any order), with the models and metrics in the order
    given."""
    rows = table.to_pylist()
    if not rows:
        raise ValueError("The table of sums is empty: no partition was evaluated.")
    width = max(row["width"] for row in rows)
    every = range(1, width + 1)
    sums: dict[str, dict[str, np.ndarray]] = {}
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        model, metric = row["model"], row["metric"]
        if metric is None:
            into = counts.setdefault(model, dict.fromkeys(COUNTS, 0))
            for name in COUNTS:
                into[name] += row[name]
            continue
        values = np.array(row["sums"], dtype=np.float64)
        if METRICS[metric].has_cutoff:
            values = extend_values(values, every, row["width"],
                                   divided_by_cutoff=METRICS[metric].divided_by_cutoff)
        by_metric = sums.setdefault(model, {})
        by_metric[metric] = by_metric[metric] + values if metric in by_metric else values
    return UserSums(width, {model: {metric: sums[model][metric] for metric in metrics}
                            for model in models},
                    {model: counts[model] for model in models})


@dataclass(frozen=True)
class Problem:
    """One kind of problem in one input: ``severity`` is ``error`` (the evaluation stops) or
    ``warning``; ``examples`` name users and items."""

    source: str
    severity: str
    what: str
    count: int
    examples: tuple[str, ...]

    def describe(self) -> str:
        more = self.count - len(self.examples)
        listing = "; ".join(self.examples) + (f" ... and {more} more" if more > 0 else "")
        return f"{self.source}: {self.what} ({self.count:,}): {listing}."


def partition_problems(truth: pa.Table, runs: Mapping[str, pa.Table]) -> list[Problem]:
    """What the single-machine checks would refuse or warn about in one partition, named by
    user and item ids."""
    return _problems(truth, runs, repeats=True)


def _problems(truth: pa.Table, runs: Mapping[str, pa.Table], *, repeats: bool
              ) -> list[Problem]:
    """The problems found; ``repeats=False`` leaves out repeated items and conflicting
    ratings (a grouping of every row by user and item, the costly part: the single-machine
    code refuses them too, so they are looked for by id when it does)."""
    problems = [*_missing_ids(truth, "ground truth"),
                *_not_numbers(truth, "rating", "ground truth"),
                *(_conflicting_ratings(truth) if repeats else [])]
    truth_users = pc.unique(truth["user"])
    for name, table in runs.items():
        source = f"model {name!r}"
        problems += _missing_ids(table, source)
        problems += _not_numbers(table, _value_column(table, name), source)
        problems += _repeated_items(table, source) if repeats else []
        run_users = pc.unique(table["user"])
        missing = pc.filter(truth_users, pc.invert(pc.is_in(truth_users, value_set=run_users)))
        problems += _found(source, "warning", "ground-truth users it has no list for",
                           [f"user {user!r}" for user in missing.to_pylist()])
    return [problem for problem in problems if problem.count]


def partition_output(
    truth: pa.Table,
    runs: Mapping[str, pa.Table],
    **options,
) -> pa.Table:
    """What an engine collects from one partition: its problems and, when none is an error,
    its sums (:func:`partition_sums` with ``options``), as one Arrow table
    (:data:`SUMS_SCHEMA`)."""
    return _output(truth, runs, None, **options)


def output_schema(metrics: Sequence[str], cutoffs: Sequence[int]) -> pa.Schema:
    """What :func:`partition_output_and_values` writes: the rows of :data:`SUMS_SCHEMA`
    (``user`` null) and a row per model and user with its values (``user`` set)."""
    taken = set(SUMS_SCHEMA.names)
    return pa.schema(list(SUMS_SCHEMA) + [
        field for field in per_user_schema(metrics, cutoffs) if field.name not in taken])


def per_user_schema(metrics: Sequence[str], cutoffs: Sequence[int]) -> pa.Schema:
    """The columns of per-user values (:func:`partition_per_user`)."""
    return pa.schema([pa.field("model", pa.string()), pa.field("user", pa.string()),
                      pa.field("relevant", pa.int64())]
                     + [pa.field(name, pa.float64())
                        for name in per_user_columns(metrics, cutoffs)])


def partition_output_and_values(
    truth: pa.Table,
    runs: Mapping[str, pa.Table],
    *,
    cutoffs: Sequence[int],
    **options,
) -> pa.Table:
    """:func:`partition_output` and :func:`partition_per_user` at ``cutoffs`` from one
    evaluation of the partition, as one table (:func:`output_schema`): an engine that saves a
    bundle keeps it and reads the sums (``user`` null) and the values (``user`` set) apart."""
    return _output(truth, runs, list(cutoffs), **options)


def _output(truth: pa.Table, runs: Mapping[str, pa.Table], cutoffs: list[int] | None, *,
            metrics: Iterable[str] | None = None, relevance: RelevanceMapping | None = None,
            conventions: Conventions | None = None, max_cutoff: int = 100) -> pa.Table:
    chosen = check_metrics(list(metrics) if metrics is not None else list(METRICS))
    schema = SUMS_SCHEMA if cutoffs is None else output_schema(chosen, cutoffs)
    problems = _problems(truth, runs, repeats=False)
    if _has_error(problems):
        return _widened(_problem_rows(partition_problems(truth, runs)), schema)
    try:
        evaluation = evaluate_partition(truth, runs, relevance=relevance,
                                        conventions=conventions, max_cutoff=max_cutoff)
    except DataError as error:  # repeated items, conflicting ratings, ranks below 1, ...
        problems = partition_problems(truth, runs)  # named by user and item ids
        if not _has_error(problems):
            problems.append(Problem("data", "error", f"in one partition of the users: {error}",
                                    1, ()))
        return _widened(_problem_rows(problems), schema)
    sums = _no_user_sums(runs, chosen) if evaluation is None else evaluation.sums(chosen)
    parts = [sums_to_arrow(sums), _problem_rows(problems)]
    if cutoffs is not None and evaluation is not None:
        parts.append(pa.Table.from_pandas(evaluation.saved_per_user(chosen, cutoffs),
                                          schema=per_user_schema(chosen, cutoffs),
                                          preserve_index=False))
    return pa.concat_tables([_widened(part, schema) for part in parts])


def _widened(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with the columns of ``schema`` it lacks, null."""
    return pa.table({field.name: table[field.name] if field.name in table.column_names
                     else pa.nulls(table.num_rows, field.type) for field in schema},
                    schema=schema)


def _has_error(problems: list[Problem]) -> bool:
    return any(problem.severity == "error" for problem in problems)


def _problem_rows(problems: list[Problem]) -> pa.Table:
    return pa.Table.from_pylist([
        {"model": problem.source, "problem": problem.what, "severity": problem.severity,
         "problem_count": problem.count, "examples": list(problem.examples), "width": 0,
         "sums": [], **dict.fromkeys(COUNTS, 0)}
        for problem in problems
    ], schema=SUMS_SCHEMA)


def reduce_output(table: pa.Table, models: Sequence[str], metrics: Sequence[str]
                  ) -> tuple[UserSums, list[Problem]]:
    """The summed :func:`partition_output` of every partition and the warnings found; the
    errors found raise one :class:`rankmetrics.DataError` listing them."""
    is_problem = pc.is_valid(table["problem"])
    problems = _merged(pc.filter(table, is_problem).to_pylist())
    errors = [problem for problem in problems if problem.severity == "error"]
    if errors:
        raise DataError(" ".join(problem.describe() for problem in errors)
                        + " Correct these rows and evaluate again.")
    sums = add_arrow_sums(pc.filter(table, pc.invert(is_problem)), models, metrics)
    return sums, problems


def _merged(rows: list[dict]) -> list[Problem]:
    """The problems of every partition, each kind once: counts added, the first examples."""
    merged: dict[tuple[str, str, str], Problem] = {}
    for row in rows:
        key = (row["model"], row["severity"], row["problem"])
        seen = merged.get(key)
        examples = (seen.examples if seen else ()) + tuple(row["examples"])
        merged[key] = Problem(*key, (seen.count if seen else 0) + row["problem_count"],
                              examples[:EXAMPLES])
    return list(merged.values())


def _found(source: str, severity: str, what: str, examples: list[str]) -> list[Problem]:
    return [Problem(source, severity, what, len(examples), tuple(examples[:EXAMPLES]))]


def _missing_ids(table: pa.Table, source: str) -> list[Problem]:
    missing = pc.or_(pc.is_null(table["user"]), pc.is_null(table["item"]))
    rows = pc.filter(table, missing).slice(0, EXAMPLES).to_pylist()
    count = int(pc.sum(missing).as_py() or 0)
    return [Problem(source, "error", "rows without a user or item id", count,
                    tuple(f"user {row['user']!r}, item {row['item']!r}" for row in rows))]


def _not_numbers(table: pa.Table, column: str, source: str) -> list[Problem]:
    values = pc.cast(table[column], pa.float64())
    bad = pc.invert(pc.fill_null(pc.is_finite(values), False))
    rows = pc.filter(table, bad).slice(0, EXAMPLES).to_pylist()
    count = int(pc.sum(bad).as_py() or 0)
    return [Problem(source, "error", f"{column} missing or not a number", count,
                    tuple(f"user {row['user']!r}, item {row['item']!r}: {row[column]!r}"
                          for row in rows))]


def _repeated_items(table: pa.Table, source: str) -> list[Problem]:
    counts = table.group_by(["user", "item"]).aggregate([("item", "count")])
    repeated = pc.filter(counts, pc.greater(counts["item_count"], 1))
    return [Problem(source, "error", "items listed more than once for one user (keep one "
                    "row per user and item)", repeated.num_rows,
                    tuple(f"user {row['user']!r}, item {row['item']!r} "
                          f"({row['item_count']} times)"
                          for row in repeated.slice(0, EXAMPLES).to_pylist()))]


def _conflicting_ratings(truth: pa.Table) -> list[Problem]:
    ratings = truth.group_by(["user", "item"]).aggregate([("rating", "count_distinct")])
    conflicts = pc.filter(ratings, pc.greater(ratings["rating_count_distinct"], 1))
    return [Problem("ground truth", "error", "different ratings for the same user and item "
                    "(keep one rating per user and item)", conflicts.num_rows,
                    tuple(f"user {row['user']!r}, item {row['item']!r}"
                          for row in conflicts.slice(0, EXAMPLES).to_pylist()))]


def _no_user_sums(runs: Mapping[str, pa.Table], metrics: Sequence[str]) -> UserSums:
    """The sums of a partition without ground-truth users: zero, every user of a model's
    output unknown."""
    sums = {model: {metric: np.zeros(1) for metric in metrics} for model in runs}
    counts = {model: dict.fromkeys(COUNTS, 0) for model in runs}
    for model, table in runs.items():
        if table.num_rows:
            counts[model]["unknown_to_ground_truth"] = int(pc.count_distinct(table["user"])
                                                           .as_py())
    return UserSums(1, sums, counts)


def _value_column(table: pa.Table, model: str) -> str:
    for name in ("score", "rank"):
        if name in table.column_names:
            return name
    raise ValueError(f"The output of {model!r} needs a 'score' or a 'rank' column; it has "
                     f"{', '.join(table.column_names)}.")


def _frame(table: pa.Table, columns: tuple[str, ...]) -> pd.DataFrame:
    """The named columns as a DataFrame (what :func:`rankmetrics.evaluate` checks and reads)."""
    return table.select(list(columns)).to_pandas()
