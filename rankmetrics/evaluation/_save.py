"""An evaluation written as a bundle (:mod:`rankmetrics.bundle`): its means at every K, its
per-user values at a few cutoffs, the raw rows of a sample of users and, with beyond-accuracy
inputs, what cannot be computed from those later (the system metrics at every K, the
popularity deciles, the long-tail accuracy per user, each user's activity)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from rankmetrics.bundle import (
    BEYOND_ACTIVITY,
    BEYOND_DECILES,
    BEYOND_EXPOSURE,
    BEYOND_LONG_TAIL,
    BEYOND_MEANS,
    DEFAULT_CUTOFFS,
    DEFAULT_SAMPLE_USERS,
    bundle_cutoffs,
    metadata,
    sample_users,
    write_or_archive,
)
from rankmetrics.checks import check_int
from rankmetrics.metrics import LONG_TAIL_METRICS, METRICS, check_metrics
from rankmetrics.results import Fingerprint

if TYPE_CHECKING:
    from rankmetrics.evaluation._beyond import BeyondAccuracy
    from rankmetrics.evaluation._evaluation import Evaluation


def save_evaluation(
    evaluation: Evaluation,
    path: str | Path,
    *,
    cutoffs: Iterable[int] | None = None,
    chosen_cutoff: int | None = None,
    sample: int = DEFAULT_SAMPLE_USERS,
    metrics: Iterable[str] | None = None,
    inputs: Mapping[str, Fingerprint] | None = None,
    user_attributes: str | Path | None = None,
    beyond_inputs: Mapping[str, Fingerprint] | None = None,
) -> Path:
    """Write ``evaluation`` as a bundle folder, or a zip archive when ``path`` ends in
    ``.zip`` (see :meth:`rankmetrics.Evaluation.save`)."""
    check_int("sample", sample, low=0)
    metrics = check_metrics(list(metrics) if metrics is not None else list(METRICS))
    chosen = bundle_cutoffs(evaluation.max_cutoff, [] if chosen_cutoff is None
                            else [chosen_cutoff], DEFAULT_CUTOFFS if cutoffs is None
                            else cutoffs)
    truth_rows, run_rows = evaluation.raw_rows(
        sample_users(pa.array(evaluation.truth.users, type=pa.string()), sample))
    beyond = evaluation.beyond
    beyond_info = beyond_files = None
    if beyond is not None:
        beyond_files = beyond_tables(beyond, chosen)
        beyond_info = beyond_metadata(beyond, beyond_fingerprints(beyond)
                                      if beyond_inputs is None else beyond_inputs)
    info = metadata(
        engine="single machine", models=evaluation.models, metrics=metrics,
        relevance=evaluation.relevance, conventions=evaluation.conventions,
        max_cutoff=evaluation.max_cutoff, cutoffs=chosen,
        user_counts=evaluation.user_counts(), sample_users=sample,
        inputs=dict(inputs) if inputs is not None else evaluation_fingerprints(evaluation),
        beyond=beyond_info, max_grade=evaluation.max_grade,
    )
    per_user_metrics = [*metrics, *(beyond.per_user_metrics if beyond is not None else ())]
    files = {
        "means": evaluation.summary(metrics),
        "per_user": evaluation.saved_per_user(per_user_metrics, chosen),
        "sample_truth": truth_rows,
        "sample_runs": run_rows,
        "user_attributes": user_attributes,
        "beyond_tables": beyond_files,
    }
    return write_or_archive(path, info, **files)


def evaluation_fingerprints(evaluation: Evaluation) -> dict[str, Fingerprint]:
    """Rows and users evaluated of the ground truth and of each model (no content hash: the
    files' own are taken where the files are known, as by the command line)."""
    truth = evaluation.truth
    prints = {"ground_truth": Fingerprint(len(truth.user_index), truth.n_users)}
    for model, run in evaluation.runs.items():
        prints[model] = Fingerprint(int(run.lengths.sum()), int(np.count_nonzero(run.present)))
    return prints


def beyond_tables(beyond: BeyondAccuracy, cutoffs: Sequence[int]) -> dict[str, pd.DataFrame]:
    """The files of the beyond-accuracy results, by name: the means at every K and (with
    training interactions) the popularity deciles and the long-tail accuracy's per-user
    values at ``cutoffs``."""
    tables = {BEYOND_MEANS: beyond.summary(beyond.metrics)}
    if beyond.exposure_groups:
        tables[BEYOND_EXPOSURE] = pd.concat(
            [beyond.exposure(cutoff, groups).assign(groups=groups, cutoff=cutoff)
             for groups in beyond.exposure_groups for cutoff in cutoffs], ignore_index=True)
    if beyond.facts.popularity is None:
        return tables
    activity = beyond.inputs.activity
    if activity is not None:
        tables[BEYOND_ACTIVITY] = activity.rename("interactions").reset_index()
    tables[BEYOND_DECILES] = pd.concat([beyond.popularity_deciles(cutoff).assign(cutoff=cutoff)
                                        for cutoff in cutoffs], ignore_index=True)
    long_tail = beyond.long_tail.saved_per_user(list(LONG_TAIL_METRICS.values()), cutoffs)
    named = {f"{metric}@": f"{name}@" for name, metric in LONG_TAIL_METRICS.items()}
    tables[BEYOND_LONG_TAIL] = long_tail.rename(columns=lambda column: next(
        (column.replace(old, new, 1) for old, new in named.items()
         if column.startswith(old)), column))
    return tables


def beyond_metadata(beyond: BeyondAccuracy, inputs: Mapping[str, Fingerprint]
                    ) -> dict[str, object]:
    """What ``evaluation.json`` says of the beyond-accuracy results."""
    return {
        "metrics": list(beyond.metrics),
        "per_user_metrics": list(beyond.per_user_metrics),
        "options": beyond.options.as_dict(),
        "choices": beyond.choices(),
        "inputs": {name: asdict(fingerprint) for name, fingerprint in inputs.items()},
    }


def beyond_fingerprints(beyond: BeyondAccuracy) -> dict[str, Fingerprint]:
    """Rows and users of the beyond-accuracy inputs as read (no content hash: the files'
    own are taken where the files are known, as by the command line)."""
    return {name: Fingerprint(rows, users)
            for name, (rows, users) in beyond.inputs.described.items()}
