"""Choosing K on a saved evaluation: the tests over K at the cutoffs a bundle holds.

A bundle keeps the means at every K but per-user values only at its saved cutoffs (1, 3, 5,
10, 20, 50, 100 and the chosen K by default), so the paired tests that tell models apart run
at those cutoffs. Each is :func:`rankmetrics.stats.paired_comparison` on the users every model
counts, the correction over each cutoff's pairs, as
:func:`rankmetrics.k_significance.significance_over_k` does on an evaluation: the same
t-test and Wilcoxon p-values. The randomization test's random sign flips follow the users'
order, which a bundle keeps sorted by id, so its p-values are those of the same users taken in
that order (they differ from the evaluation's by Monte Carlo error only).
"""

from __future__ import annotations

import pandas as pd

from rankmetrics.bundle import SavedEvaluation
from rankmetrics.k_significance import TEST_COLUMNS
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.stats import paired_comparison


def saved_significance_over_k(
    saved: SavedEvaluation,
    metric: str,
    *,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Every pair of models tested at each saved cutoff (:attr:`SavedEvaluation.cutoffs`).

    Returns one row per cutoff and pair, with the columns of
    :func:`rankmetrics.k_significance.significance_over_k`.
    """
    metric = check_metrics([metric])[0]
    if not METRICS[metric].has_cutoff:
        raise ValueError(f"{metric!r} has no cutoff: its tests do not change with K.")
    parts = []
    for cutoff in saved.cutoffs:
        table = paired_comparison(saved.paired(metric, cutoff), test=test,
                                  correction=correction, n_permutations=n_permutations,
                                  n_bootstrap=1, confidence=confidence, seed=seed)
        parts.append(table.assign(cutoff=cutoff)[TEST_COLUMNS])
    return pd.concat(parts, ignore_index=True)
