"""Evaluate Spark DataFrames: the same numbers as one machine, computed where the data lives.

``pip install 'rankmetrics[spark]'`` adds pyspark. Users are the unit of parallelism: the
ground truth and every model's output are co-partitioned by a hash of the user id (each user's
rows, from whichever input file, in one group), each group is evaluated by
:func:`rankmetrics.partition.partition_output` (the single-machine code, on Arrow tables), and
the sums at every cutoff are added on the driver and divided once. The results equal
:func:`rankmetrics.evaluate` on the same data to rounding (1e-12).

Example (``spark`` is a SparkSession)::

    from rankmetrics.spark import evaluate_spark

    result = evaluate_spark(spark.read.parquet("truth/"), {"als": spark.read.parquet("als/")})
    result.summary(["ndcg"], [10])
    result.save("evaluation.zip")  # open it in the dashboard
"""

from rankmetrics.spark._engine import (
    SparkEvaluation,
    distinct_ratings,
    evaluate_spark,
    spark_session,
)

__all__ = ["SparkEvaluation", "distinct_ratings", "evaluate_spark", "spark_session"]
