"""A saved evaluation (a bundle): everything the dashboard shows, without the raw data.

A team with a hundred million users evaluates where its data lives (on one machine or with
Spark, :mod:`rankmetrics.spark`) and opens the result anywhere. A bundle is a folder, or the
same files in one zip archive:

- ``evaluation.json``: the format and its version, the rankmetrics version, the models,
  metrics, cutoffs, relevance mapping and conventions, the user counts of each model, and a
  fingerprint of each input (rows, users and, where cheap, a hash of its content);
- ``means.parquet``: the mean of every metric at every K 1..max_cutoff per model, with the
  users averaged (:meth:`rankmetrics.Evaluation.summary`);
- ``per_user/``: Parquet files of per-user values at a few cutoffs (by default
  1, 3, 5, 10, 20, 50, 100 and the chosen K), one row per model and counted user: the user's
  relevant items, then one column per metric and cutoff (``ndcg@10``; ``r_precision``):
  distributions, significance and head-to-head read these;
- ``sample_truth.parquet``, ``sample_runs.parquet``: the ground truth and every model's rows of
  a sample of users (default 1,000), the same users whichever engine wrote the bundle: those
  whose id hashes lowest (:func:`sample_order`). Pages that need raw lists show these users;
- when the evaluation had beyond-accuracy inputs (training interactions, item attributes, a
  catalogue): ``beyond_means.parquet``, ``beyond_deciles.parquet``,
  ``beyond_exposure.parquet`` (each item group's share of exposure),
  ``beyond_long_tail.parquet``, ``beyond_activity.parquet`` (each user's training
  interactions, to split users by activity), the per-user beyond-accuracy metrics as more
  ``per_user/`` columns, and their options and inputs in ``evaluation.json``
  (:mod:`rankmetrics.bundle.beyond`; format version 2; a version-1 bundle, without them,
  still opens).

:func:`load_bundle` reads one back as a :class:`SavedEvaluation`, which answers the questions
an :class:`~rankmetrics.Evaluation` answers, at the saved cutoffs.
"""

from rankmetrics.bundle._format import (
    BEYOND_ACTIVITY,
    BEYOND_DECILES,
    BEYOND_EXPOSURE,
    BEYOND_LONG_TAIL,
    BEYOND_MEANS,
    DEFAULT_CUTOFFS,
    DEFAULT_SAMPLE_USERS,
    FORMAT,
    FORMAT_VERSION,
    MAX_ARCHIVE_BYTES,
    MEANS,
    METADATA,
    PER_USER,
    SAMPLE_RUNS,
    SAMPLE_SEED,
    SAMPLE_TRUTH,
    USER_ATTRIBUTES,
    bundle_cutoffs,
    metadata,
    per_user_column,
    per_user_columns,
    sample_order,
    sample_users,
)
from rankmetrics.bundle._read import (
    BundleContents,
    BundleFiles,
    bundle_read_memory,
    content_sha256,
    read_bundle,
)
from rankmetrics.bundle._write import archive, saved_in_place, write_bundle, write_or_archive
from rankmetrics.results import Fingerprint

__all__ = [
    "BEYOND_ACTIVITY",
    "BEYOND_DECILES",
    "BEYOND_EXPOSURE",
    "BEYOND_LONG_TAIL",
    "BEYOND_MEANS",
    "DEFAULT_CUTOFFS",
    "DEFAULT_SAMPLE_USERS",
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_ARCHIVE_BYTES",
    "MEANS",
    "METADATA",
    "PER_USER",
    "SAMPLE_RUNS",
    "SAMPLE_SEED",
    "SAMPLE_TRUTH",
    "USER_ATTRIBUTES",
    "BundleContents",
    "BundleFiles",
    "Fingerprint",
    "archive",
    "saved_in_place",
    "bundle_cutoffs",
    "content_sha256",
    "metadata",
    "per_user_column",
    "per_user_columns",
    "read_bundle",
    "bundle_read_memory",
    "sample_order",
    "sample_users",
    "write_bundle",
    "write_or_archive",
]
