"""The files of a bundle, their names and the columns of its per-user values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd
import pyarrow as pa

from rankmetrics.checks import check_int
from rankmetrics.conventions import Conventions
from rankmetrics.io import hash_text
from rankmetrics.metrics import declared
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.results import Fingerprint
from rankmetrics.version import __version__

FORMAT = "rankmetrics-evaluation"
#: The bundle layout this version writes and the newest it reads (2: beyond-accuracy results).
FORMAT_VERSION = 2
DEFAULT_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)
DEFAULT_SAMPLE_USERS = 1_000
#: The seed of the hash that orders users for the sample (any engine, the same users).
SAMPLE_SEED = 0x5A3D_11E5
METADATA = "evaluation.json"
MEANS = "means.parquet"
PER_USER = "per_user"
SAMPLE_TRUTH = "sample_truth.parquet"
SAMPLE_RUNS = "sample_runs.parquet"
#: The folder holding the user-attributes file given at save time (as it was, any format
#: rankmetrics.io.read_attributes reads), for the dashboard's segments.
USER_ATTRIBUTES = "user_attributes"
#: Most bytes a bundle archive may hold once unpacked (an upload must not fill the memory).
MAX_ARCHIVE_BYTES = 8 << 30


BEYOND_MEANS = "beyond_means.parquet"
BEYOND_DECILES = "beyond_deciles.parquet"
BEYOND_LONG_TAIL = "beyond_long_tail.parquet"
#: Each item group's share of exposure at the saved cutoffs (``groups, cutoff, source, group,
#: share``), as ``BeyondAccuracy.exposure`` gives it.
BEYOND_EXPOSURE = "beyond_exposure.parquet"
#: Each ground-truth user's number of training interactions (``user, interactions``).
BEYOND_ACTIVITY = "beyond_activity.parquet"


def bundle_cutoffs(max_cutoff: int, chosen: Iterable[int] = (),
                   base: Iterable[int] = DEFAULT_CUTOFFS) -> list[int]:
    """The cutoffs per-user values are saved at: ``base`` and ``chosen``, up to max_cutoff.

    >>> bundle_cutoffs(30, chosen=[7])
    [1, 3, 5, 7, 10, 20]
    """
    wanted = {check_int("cutoff", cutoff) for cutoff in [*base, *chosen]}
    kept = sorted(cutoff for cutoff in wanted if cutoff <= max_cutoff)
    return kept or [max_cutoff]


def per_user_column(metric: str, cutoff: int | None) -> str:
    """The column of a metric's per-user values at a cutoff (``ndcg@10``; ``r_precision``)."""
    return metric if cutoff is None or not declared(metric).has_cutoff else f"{metric}@{cutoff}"


def per_user_columns(metrics: Sequence[str], cutoffs: Sequence[int]) -> list[str]:
    return [per_user_column(metric, cutoff) for metric in metrics
            for cutoff in (cutoffs if declared(metric).has_cutoff else [None])]


def sample_order(users: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Each user's place in the sampling order: a 63-bit hash of its id (ties, which a 63-bit
    hash all but never has, are broken by id). The sample is the first users in this order."""
    return (hash_text(users, SAMPLE_SEED) >> np.uint64(1)).astype(np.int64)


def sample_users(users: Sequence[str] | pa.Array, count: int) -> list[str]:
    """The ``count`` users first in the sampling order (:func:`sample_order`)."""
    check_int("count", count, low=0)
    array = pa.array(users, type=pa.string()) if not isinstance(users, pa.Array) else users
    keys = sample_order(array)
    ids = np.asarray(array.to_pylist(), dtype=object)
    order = np.lexsort((ids, keys))[:count]
    return [str(user) for user in ids[order]]


def metadata(
    *,
    engine: str,
    models: Sequence[str],
    metrics: Sequence[str],
    relevance: RelevanceMapping,
    conventions: Conventions,
    max_cutoff: int,
    cutoffs: Sequence[int],
    user_counts: pd.DataFrame,
    sample_users: int,
    inputs: Mapping[str, Fingerprint],
    beyond: Mapping[str, object] | None = None,
    max_grade: float | None = None,
) -> dict[str, object]:
    """The content of ``evaluation.json`` (``beyond``: :func:`beyond_metadata`, when the
    evaluation had beyond-accuracy inputs; ``max_grade``: ERR's g_max over the whole ground
    truth, which the sampled users' rows alone may not reach)."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rankmetrics_version": __version__,
        "engine": engine,
        "models": list(models),
        "metrics": list(metrics),
        "relevance": relevance.as_dict(),
        "conventions": conventions.as_dict(),
        "max_cutoff": int(max_cutoff),
        "per_user_cutoffs": [int(cutoff) for cutoff in cutoffs],
        "user_counts": [{key: (int(value) if isinstance(value, (int, np.integer)) else value)
                         for key, value in row.items()}
                        for row in user_counts.to_dict("records")],
        "sample_users": int(sample_users),
        "inputs": {name: asdict(fingerprint) for name, fingerprint in inputs.items()},
        **({"beyond": dict(beyond)} if beyond is not None else {}),
        **({"max_grade": float(max_grade)} if max_grade is not None else {}),
    }
