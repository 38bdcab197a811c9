"""The Spark side of :mod:`rankmetrics.spark`: partition by user, map, add up, save.

Spark only moves rows: the ground truth and every model's rows go into one frame (a model
number per row, null for the ground truth), hashed by user id into ``partitions`` groups in
one shuffle, and each group is handed whole to
:func:`rankmetrics.partition.partition_output` as Arrow tables (``mapInArrow``). What comes
back is small: sums at every cutoff, user counts and the problems found, per group. Saving a
bundle keeps the per-user values computed in the same pass
(:func:`rankmetrics.partition.partition_output_and_values`) and lets Spark write the Parquet
files, so per-user values never pass through the driver.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyspark import StorageLevel
from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from rankmetrics.bundle import (
    DEFAULT_CUTOFFS,
    DEFAULT_SAMPLE_USERS,
    PER_USER,
    Fingerprint,
    bundle_cutoffs,
    metadata,
    sample_order,
    saved_in_place,
    write_bundle,
)
from rankmetrics.checks import check_int
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation import MAX_CUTOFF, UserSums
from rankmetrics.io import find_column, resolve_override
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.partition import (
    SUMS_SCHEMA,
    Problem,
    output_schema,
    partition_output,
    partition_output_and_values,
    partition_per_user,
    per_user_schema,
    reduce_output,
)
from rankmetrics.relevance import MAX_GRADE, RelevanceMapping

#: Model rows per partition the default partition count aims at (each partition is one
#: Python call holding its rows as Arrow and NumPy arrays: 5 million rows take about 1 GiB).
ROWS_PER_PARTITION = 5_000_000


def evaluate_spark(
    truth: DataFrame,
    runs: Mapping[str, DataFrame],
    *,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_cutoff: int = 100,
    metrics: Iterable[str] | None = None,
    columns: Mapping[str, str] | None = None,
    partitions: int | None = None,
    per_user_cutoffs: Iterable[int] | None = None,
) -> SparkEvaluation:
    """Evaluate each model's output against the ground truth, on Spark.

    Parameters
    ----------
    truth : pyspark DataFrame with user, item and rating columns
    runs : mapping of model name -> pyspark DataFrame with user, item and score (or rank)
    relevance, conventions, max_cutoff
        As :func:`rankmetrics.evaluate`.
    metrics : the metrics to compute (default every one)
    columns : mapping role -> column name, for columns not found by their usual names
        (roles ``user``, ``item``, ``rating``, ``score``, ``rank``)
    partitions : how many groups of users (default: one per 5 million model rows, at least
        twice Spark's default parallelism)
    per_user_cutoffs : the cutoffs a bundle will be saved with (``save(cutoffs=...)``, with
        the chosen K): their per-user values are computed in the same pass as the means and
        kept by Spark, so :meth:`SparkEvaluation.save` does not evaluate again

    Raises :class:`rankmetrics.DataError` naming users and items when the data has what one
    machine refuses (missing ids, ratings or scores that are not numbers, an item twice in
    one user's list, conflicting ratings): the first few of each, and how many in all.
    """
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    check_int("max_cutoff", max_cutoff, high=MAX_CUTOFF)
    chosen = list(check_metrics(list(metrics) if metrics is not None else list(METRICS)))
    if not runs:
        raise ValueError("Give at least one model output to evaluate.")
    given = dict(columns or {})
    truth_rows = _standard(truth, ("user", "item", "rating"), given, "ground truth")
    ranking = {name: _ranking(run, given) for name, run in runs.items()}
    model_rows = [
        _standard(run, ("user", "item", ranking[name]), given, f"model {name!r}",
                  keep_order=conventions.ties == "input")
        .select(F.lit(number).alias("model"), "user", "item", F.col(ranking[name]).alias("value"),
                *(["order"] if conventions.ties == "input" else []))
        for number, (name, run) in enumerate(runs.items())
    ]
    every_run = model_rows[0]
    for other in model_rows[1:]:
        every_run = every_run.unionByName(other)
    count = partitions or _partition_count(every_run)
    check_int("partitions", count)
    # every partition divides ERR by the g_max of the whole ground truth, not of its own users
    options = {"relevance": relevance, "conventions": _whole_max_grade(truth_rows, relevance,
                                                                      conventions),
               "max_cutoff": max_cutoff, "metrics": chosen}
    grouped = _Grouped(truth_rows, every_run, ranking, count)
    if per_user_cutoffs is None:
        output = grouped.map(lambda t, r: partition_output(t, r, **options), SUMS_SCHEMA)
        kept = None
    else:
        cutoffs = bundle_cutoffs(max_cutoff, (), per_user_cutoffs)
        output = grouped.map(
            lambda t, r: partition_output_and_values(t, r, cutoffs=cutoffs, **options),
            output_schema(chosen, cutoffs)).persist(StorageLevel.MEMORY_AND_DISK)
        kept = _KeptValues(cutoffs, output.where(F.col("user").isNotNull()))
        output = output.where(F.col("user").isNull()).select(*SUMS_SCHEMA.names)
    sums, warnings = reduce_output(output.toArrow(), list(runs), chosen)
    grouped.count_inputs(sums)
    return SparkEvaluation(grouped, sums, warnings, options, chosen, kept,
                           conventions=conventions)


def _whole_max_grade(truth: DataFrame, relevance: RelevanceMapping,
                     conventions: Conventions) -> Conventions:
    """``conventions`` with g_max (ERR, graded RBP) fixed to the highest grade of the whole
    ground truth where it comes from the ratings (ratings used as grades): a partition's
    users alone may not hold it."""
    if conventions.max_grade is not None or relevance.table:
        return conventions
    rating = F.col("rating").cast("double")
    row = truth.agg(F.max(F.when(~F.isnan(rating), rating))).first()
    top = row[0] if row is not None else None
    if top is None or not 0 < float(top) <= MAX_GRADE:  # (a partition says what is wrong)
        return conventions
    highest = relevance.highest_grade(relevance.grades(np.array([float(top)])))
    if not 0 < highest <= MAX_GRADE:
        return conventions
    return dataclasses.replace(conventions, max_grade=highest)


class _KeptValues:
    """Per-user values computed with the means, at ``cutoffs``, kept by Spark."""

    def __init__(self, cutoffs: list[int], rows: DataFrame) -> None:
        self.cutoffs, self.rows = cutoffs, rows


class SparkEvaluation:
    """The result of :func:`evaluate_spark`: means at every cutoff and user counts (the
    summed part), and what saving a bundle needs (the co-partitioned inputs)."""

    def __init__(self, grouped: _Grouped, sums: UserSums, warnings: list[Problem],
                 options: dict, metrics: list[str], kept: _KeptValues | None = None, *,
                 conventions: Conventions | None = None) -> None:
        self._grouped = grouped
        self._kept = kept
        self.sums = sums
        self.warnings = warnings
        self._options = options
        self.metrics = metrics
        self.models = grouped.models
        self.relevance: RelevanceMapping = options["relevance"]
        #: The conventions asked for (the partitions' carry the whole ground truth's g_max).
        self.conventions: Conventions = conventions or options["conventions"]
        self.max_cutoff: int = options["max_cutoff"]

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """As :meth:`rankmetrics.Evaluation.summary`."""
        chosen = check_metrics(list(metrics) if metrics is not None else self.metrics)
        every = range(1, self.max_cutoff + 1) if cutoffs is None else [
            check_int("cutoff", cutoff, high=self.max_cutoff) for cutoff in cutoffs]
        table = self.sums.summary(every)
        table = table[table["metric"].isin(chosen)]
        order = {metric: position for position, metric in enumerate(chosen)}
        table = table.assign(_order=table["metric"].map(order),
                             _model=table["model"].map(self.models.index))
        return (table.sort_values(["_model", "_order", "cutoff"], kind="stable")
                .drop(columns=["_order", "_model"]).reset_index(drop=True))

    def user_counts(self) -> pd.DataFrame:
        """As :meth:`rankmetrics.Evaluation.user_counts`."""
        return pd.DataFrame([{
            "model": model,
            "users": counts["users"],
            "ground_truth_users": counts["ground_truth_users"],
            "no_relevant_items": counts["no_relevant_items"],
            "no_relevant_items_policy": self.conventions.empty_users,
            "missing_from_model": counts["missing_from_model"],
            "missing_policy": self.conventions.missing_users,
            "unknown_to_ground_truth": counts["unknown_to_ground_truth"],
        } for model, counts in self.sums.counts.items()])

    def save(self, path: str | Path, *, cutoffs: Iterable[int] | None = None,
             chosen_cutoff: int | None = None, sample: int = DEFAULT_SAMPLE_USERS,
             user_attributes: str | Path | None = None) -> Path:
        """Write a bundle (see :meth:`rankmetrics.Evaluation.save`): Spark writes the
        per-user values; the driver writes the means, the sample, the metadata and the
        user-attributes file (a local file) when given."""
        check_int("sample", sample, low=0)
        saved_cutoffs = bundle_cutoffs(self.max_cutoff, [] if chosen_cutoff is None
                                       else [chosen_cutoff],
                                       DEFAULT_CUTOFFS if cutoffs is None else cutoffs)
        return saved_in_place(path, lambda folder: self._write(folder, saved_cutoffs, sample,
                                                               user_attributes))

    def _write(self, folder: Path, cutoffs: list[int], sample: int,
               user_attributes: str | Path | None) -> Path:
        values = self._per_user(cutoffs)
        folder.mkdir(parents=True, exist_ok=True)
        values.write.mode("overwrite").parquet(str((folder / PER_USER).resolve()))
        truth_rows, run_rows = self._grouped.sample(sample)
        info = metadata(
            engine="spark", models=self.models, metrics=self.metrics,
            relevance=self.relevance, conventions=self.conventions,
            max_cutoff=self.max_cutoff, cutoffs=cutoffs, user_counts=self.user_counts(),
            sample_users=sample, inputs=self._grouped.fingerprints,
        )
        return write_bundle(folder, metadata=info, means=self.summary(), per_user=None,
                            sample_truth=truth_rows, sample_runs=run_rows,
                            user_attributes=user_attributes)


    def _per_user(self, cutoffs: list[int]) -> DataFrame:
        """The per-user values at ``cutoffs``: those kept with the means when they hold these
        cutoffs, else computed in a pass of their own."""
        schema = per_user_schema(self.metrics, cutoffs)
        if self._kept is not None and set(cutoffs) <= set(self._kept.cutoffs):
            return self._kept.rows.select(*schema.names)
        options = dict(self._options)
        return self._grouped.map(
            lambda t, r: partition_per_user(t, r, cutoffs=cutoffs, **options), schema)


class _Grouped:
    """The ground truth and every model's rows in one frame, spread over ``partitions`` by a
    hash of the user id in one shuffle for the pass that evaluates.

    Only what the partitions read is moved: the user and item ids, one ``value`` column (a
    rating, score or rank) and the model's number (null for the ground truth), plus ``order``
    when ties keep the input order. The fingerprints of the inputs are observed on the way
    into that shuffle (rows and the XOR of Spark's xxhash64 of each row) and completed with
    the user counts the partitions return, so they cost no pass of their own. The sample
    reads the inputs as they are: keeping the shuffled rows for it cost more than reading
    again."""

    def __init__(self, truth: DataFrame, runs: DataFrame, ranking: dict[str, str],
                 partitions: int):
        self.ranking = ranking
        self.models = list(ranking)
        self.partitions = partitions
        self.every = truth.select(F.lit(None).cast("int").alias("model"), "user", "item",
                                  F.col("rating").alias("value")).unionByName(
            runs, allowMissingColumns=True)
        self._observed = Observation()
        self.rows = self.every.observe(self._observed, *_row_hashes(len(self.models))
                                       ).repartition(partitions, "user")
        self.fingerprints: dict[str, Fingerprint] = {}

    def map(self, function, schema: pa.Schema) -> DataFrame:
        """``function(truth_table, {model: run_table})`` over every partition of users."""
        ranking = self.ranking
        ordered = "order" in self.rows.columns
        empty = pa.schema([pa.field("model", pa.int32()), pa.field("user", pa.string()),
                           pa.field("item", pa.string()), pa.field("value", pa.float64()),
                           *([pa.field("order", pa.int64())] if ordered else [])])

        def per_partition(batches: Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
            rows = pa.Table.from_batches(list(batches), empty)
            truth = rows.filter(pc.is_null(rows["model"])).select(["user", "item", "value"])
            split = {model: _rows_of(rows, number, value, ordered)
                     for number, (model, value) in enumerate(ranking.items())}
            output = function(truth.rename_columns(["user", "item", "rating"]), split)
            yield from output.select(schema.names).cast(schema).to_batches()

        return self.rows.mapInArrow(per_partition, _spark_schema(schema))

    def count_inputs(self, sums: UserSums) -> None:
        """The fingerprints of the inputs, once the pass that evaluates has run: rows and
        hashes observed on the way in, distinct users from the partitions' counts (a model's
        users are the ground truth's users it has a list for and the users it alone has)."""
        kind = "xor of Spark xxhash64 over every row"
        seen = self._observed.get
        first = next(iter(sums.counts.values()))
        users = {"ground_truth": first["ground_truth_users"]} | {
            model: counts["ground_truth_users"] - counts["missing_from_model"]
            + counts["unknown_to_ground_truth"] for model, counts in sums.counts.items()}
        self.fingerprints = {
            name: Fingerprint(int(seen[f"rows_{key}"]), int(users[name]),
                              format(int(seen[f"hash_{key}"] or 0) & (2**64 - 1), "016x"), kind)
            for key, name in [("truth", "ground_truth"), *enumerate(self.models)]}

    def sample(self, count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The ground-truth rows and every model's rows of the sampled users (the users
        first in :func:`rankmetrics.bundle.sample_order`, as on one machine)."""
        def keys(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                yield pa.record_batch({"user": batch["user"],
                                       "key": pa.array(sample_order(batch["user"]))})

        users = (self.every.where(F.col("model").isNull()).select("user").distinct()
                 .mapInArrow(keys, "user string, key long")
                 .orderBy("key", "user").limit(count).select("user"))
        chosen = [row["user"] for row in users.collect()]
        model = F.lit(None).cast("string")
        score = F.col("value")
        for number, (name, value) in enumerate(self.ranking.items()):
            model = F.when(F.col("model") == number, F.lit(name)).otherwise(model)
            if value == "rank":  # a rank r is the score -r, as on one machine
                score = F.when(F.col("model") == number, -F.col("value")).otherwise(score)
        rows = self.every.where(F.col("user").isin(chosen)).select(
            model.alias("model"), "user", "item",
            F.when(F.col("model").isNull(), F.col("value")).alias("rating"),
            F.when(F.col("model").isNotNull(), score).alias("score")).toArrow()
        is_truth = pc.is_null(rows["model"])
        truth = rows.filter(is_truth).select(["user", "item", "rating"])
        runs = rows.filter(pc.invert(is_truth)).select(["model", "user", "item", "score"])
        return truth.to_pandas(), runs.to_pandas()


def _row_hashes(models: int) -> list:
    """Rows and the XOR of Spark's xxhash64 of (user, item, value) of the ground truth and
    of each model, as aggregates a Spark observation computes while the rows pass."""
    hashed = F.xxhash64("user", "item", "value")
    found = []
    for key, of in [("truth", F.col("model").isNull()),
                    *((number, F.col("model") == number) for number in range(models))]:
        found += [F.count(F.when(of, 1)).alias(f"rows_{key}"),
                  F.bit_xor(F.when(of, hashed)).alias(f"hash_{key}")]
    return found


def spark_session():
    """The active Spark session, or a new one: on this machine (``local[*]``, its Python for
    the workers) unless ``spark-submit`` or the environment chose a master."""
    import os
    import sys

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("rankmetrics")
    if "PYSPARK_SUBMIT_ARGS" not in os.environ and "MASTER" not in os.environ:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = builder.master("local[*]").config("spark.ui.showConsoleProgress", "false")
    return builder.getOrCreate()


def distinct_ratings(truth: DataFrame, columns: Mapping[str, str] | None = None,
                     most: int = 100_000) -> list[float]:
    """The distinct ratings of a ground truth (at most ``most``), to suggest a mapping."""
    rows = _standard(truth, ("user", "item", "rating"), dict(columns or {}), "ground truth")
    found = rows.select("rating").where(F.col("rating").isNotNull()).distinct().limit(most)
    return [float(row["rating"]) for row in found.collect()]


def _rows_of(rows: pa.Table, number: int, value: str, ordered: bool) -> pa.Table:
    """The rows of model ``number`` of a group, with the columns the partition function
    reads (``value`` named ``score`` or ``rank``)."""
    columns = ["user", "item", "value", *(["order"] if ordered else [])]
    mine = rows.filter(pc.fill_null(pc.equal(rows["model"], number), False)).select(columns)
    return mine.rename_columns(["user", "item", value, *(["order"] if ordered else [])])


def _spark_schema(schema: pa.Schema) -> str:
    """An Arrow schema as Spark's DDL (the few types the outputs use)."""
    types = {pa.string(): "string", pa.int64(): "bigint", pa.float64(): "double",
             pa.list_(pa.float64()): "array<double>", pa.list_(pa.string()): "array<string>"}
    return ", ".join(f"`{field.name}` {types[field.type]}" for field in schema)


def _ranking(run: DataFrame, given: Mapping[str, str]) -> str:
    """``score`` or ``rank``: which column orders a model's rows."""
    if "score" in given:
        return "score"
    if "rank" in given:
        return "rank"
    score, _ = find_column(run.columns, "score", set())
    if score is None and find_column(run.columns, "rank", set())[0] is not None:
        return "rank"
    return "score"


def _standard(frame: DataFrame, roles: tuple[str, ...], given: Mapping[str, str], name: str,
              *, keep_order: bool = False) -> DataFrame:
    """The frame with columns named by role: ids as text, numbers as doubles (text that is
    not a number becomes null, which the partitions report)."""
    taken: set[str] = set()
    picked = []
    for role in roles:
        if role in given:
            column = resolve_override(frame.columns, role, given[role], name)
        else:
            found, _ = find_column(frame.columns, role, taken)
            if found is None:
                raise DataError(f"no {role} column found among {', '.join(frame.columns)}; "
                                f"name it with columns={{'{role}': '...'}} (--{role}-column).",
                                file=name)
            column = found
        taken.add(column)
        kind = "string" if role in ("user", "item") else "double"
        picked.append(F.col(f"`{column}`").try_cast(kind).alias(role))
    if keep_order:
        picked.append(F.monotonically_increasing_id().alias("order"))
    return frame.select(*picked)


def _partition_count(runs: DataFrame) -> int:
    """One group per 5 million model rows, at least two per core, rounded up to a whole
    number of rounds of the cores (a last round with fewer groups than cores leaves cores
    idle while it runs)."""
    parallelism = runs.sparkSession.sparkContext.defaultParallelism
    groups = max(2 * parallelism, math.ceil(runs.count() / ROWS_PER_PARTITION))
    return math.ceil(groups / parallelism) * parallelism
