"""Choosing K on a saved evaluation: the tests over K at the cutoffs a bundle holds.

A bundle keeps the means at every K but per-user values only at its saved cutoffs (1, 3, 5,
10, 20, 50, 100 and the chosen K by default). What needs only the means (the order of the
models, the crossings, the values of the table at several cutoffs) is read at every K; what
needs every user's values (the paired tests, the winner maps, the difference band, the
significance marks of the table) runs at the saved cutoffs, through the same functions the
evaluation's analyses use (:mod:`rankmetrics.choosing_k.significance`).

Each test is :func:`rankmetrics.stats.paired_comparison` on the users every model counts, the
correction over each cutoff's pairs, as
:func:`rankmetrics.choosing_k.significance.significance_over_k` does on an evaluation: the same
t-test and Wilcoxon p-values. The randomization test's random sign flips follow the users'
order, which a bundle keeps sorted by id, so its p-values are those of the same users taken in
that order (they differ from the evaluation's by Monte Carlo error only).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from rankmetrics.bundle import SavedEvaluation
from rankmetrics.checks import check_int
from rankmetrics.choosing_k.significance import TEST_COLUMNS, difference_band_of, marked_best
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.stats import paired_comparison


def saved_significance_over_k(
    saved: SavedEvaluation,
    metric: str,
    *,
    cutoffs: Iterable[int] | None = None,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Every pair of models tested at each saved cutoff (:attr:`SavedEvaluation.cutoffs`),
    or at those of ``cutoffs`` (each must be a saved one).

    Returns one row per cutoff and pair, with the columns of
    :func:`rankmetrics.choosing_k.significance.significance_over_k`.
    """
    metric = check_metrics([metric])[0]
    if not METRICS[metric].has_cutoff:
        raise ValueError(f"{metric!r} has no cutoff: its tests do not change with K.")
    parts = []
    for cutoff in _saved_cutoffs(saved, cutoffs):
        table = paired_comparison(saved.paired(metric, cutoff), test=test,
                                  correction=correction, n_permutations=n_permutations,
                                  n_bootstrap=1, confidence=confidence, seed=seed)
        parts.append(table.assign(cutoff=cutoff)[TEST_COLUMNS])
    return pd.concat(parts, ignore_index=True)


def _saved_cutoffs(saved: SavedEvaluation, cutoffs: Iterable[int] | None) -> list[int]:
    if cutoffs is None:
        return list(saved.cutoffs)
    chosen = sorted({check_int("cutoff", cutoff) for cutoff in cutoffs})
    outside = [cutoff for cutoff in chosen if cutoff not in saved.cutoffs]
    if outside or not chosen:
        raise ValueError(f"The bundle holds per-user values at K = "
                         f"{', '.join(map(str, saved.cutoffs))}; got cutoffs={chosen!r}.")
    return chosen


def saved_difference_band(saved: SavedEvaluation, metric: str, model_a: str, model_b: str,
                          *, confidence: float = 0.95) -> pd.DataFrame:
    """The difference ``model_b - model_a`` at each saved cutoff with its confidence
    interval, on the users every model counts (as
    :func:`rankmetrics.choosing_k.significance.difference_band` at those cutoffs).

    Returns ``cutoff, difference, ci_low, ci_high``.
    """
    (metric,) = check_metrics([metric])
    for name, model in (("model_a", model_a), ("model_b", model_b)):
        if model not in saved.models:
            raise ValueError(f"The {name!r} argument names {model!r}, which is not a model of "
                             f"the saved evaluation ({', '.join(saved.models)}).")
    if model_a == model_b:
        raise ValueError(f"Choose two different models; both are {model_a!r}.")
    columns = []
    for cutoff in saved.cutoffs:
        paired = saved.paired(metric, cutoff)
        columns.append((paired[model_b] - paired[model_a]).to_numpy(dtype=np.float64))
    return difference_band_of(np.column_stack(columns), saved.cutoffs, confidence=confidence)


def saved_cutoff_table(
    saved: SavedEvaluation,
    metrics: Iterable[str],
    cutoffs: Iterable[int],
    *,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """:func:`rankmetrics.choosing_k.significance.cutoff_table` on a saved evaluation: the means at
    any cutoffs up to its largest K, the best model of a column marked where it is
    significantly best, which is tested at the saved cutoffs only (a column at another K is
    marked nowhere).

    Returns ``model, metric, cutoff, value, significantly_best``.
    """
    metrics = check_metrics(list(metrics))
    chosen = sorted({check_int("cutoff", cutoff, high=saved.max_cutoff) for cutoff in cutoffs})
    if not chosen:
        raise ValueError("Give at least one cutoff.")
    tested = [cutoff for cutoff in chosen if cutoff in saved.cutoffs]
    testable = (len(saved.models) >= 2 and bool(tested)
                and len(saved.paired(metrics[0], tested[0])) >= 2)
    by_metric = {metric: saved_significance_over_k(
        saved, metric, cutoffs=tested, test=test, correction=correction,
        confidence=confidence, n_permutations=n_permutations, seed=seed)
        for metric in metrics if METRICS[metric].has_cutoff} if testable else {}
    return marked_best(saved.summary(metrics, chosen), by_metric)
