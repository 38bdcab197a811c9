"""Bootstrap confidence bands of the means, and the cutoffs they are computed at.

A band resamples every counted user's values at once (users x models x metrics x cutoffs), so
:func:`band_cutoffs` keeps that within :data:`BAND_VALUES` by spreading the cutoffs when every K
would not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.metrics import declared

#: Most per-user values :meth:`Evaluation.confidence_bands` resamples at once by default
#: (users x models x metrics x cutoffs; 2**24 float64 values are 128 MiB).
BAND_VALUES = 2**24


def band_table(per_series: Mapping[tuple[str, str], np.ndarray], cutoffs: Sequence[int], *,
               n_bootstrap: int, confidence: float, seed: int | None,
               has_cutoff: Callable[[str], bool] = lambda metric: declared(metric).has_cutoff,
               ) -> pd.DataFrame:
    """:func:`rankmetrics.stats.confidence_bands` of each (model, metric)'s per-user values
    (users x cutoffs, one column for a metric without a cutoff) as the long table
    ``model, metric, cutoff, mean, ci_low, ci_high``."""
    from rankmetrics.stats import confidence_bands

    if not per_series:
        return pd.DataFrame(columns=["model", "metric", "cutoff", "mean", "ci_low", "ci_high"])
    # users without a value at some cutoff (NaN): each cutoff resampled over those with one
    gaps = {key: values for key, values in per_series.items() if np.isnan(values).any()}
    whole = {key: values for key, values in per_series.items() if key not in gaps}
    parts = [confidence_bands(whole, n_bootstrap=n_bootstrap, confidence=confidence,
                              seed=seed)] if whole else []
    for key, values in gaps.items():
        parts.append(_bands_of_columns(key, values, n_bootstrap=n_bootstrap,
                                       confidence=confidence, seed=seed))
    bands = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    order = {key: position for position, key in enumerate(per_series)}
    bands = bands.sort_values("model", key=lambda keys: keys.map(order), kind="stable"
                              ).reset_index(drop=True)
    series = bands.pop("model")
    labels = {metric: list(cutoffs) if has_cutoff(metric) else [None]
              for _, metric in per_series}
    bands.insert(0, "model", [model for model, _ in series])
    bands.insert(1, "metric", [metric for _, metric in series])
    bands["cutoff"] = pd.array(
        [labels[metric][position] for (_, metric), position
         in zip(series, bands["cutoff"], strict=True)], dtype="Int64")
    return bands



def _bands_of_columns(key: tuple[str, str], values: np.ndarray, *, n_bootstrap: int,
                      confidence: float, seed: int | None) -> pd.DataFrame:
    """The bands of one series whose users lack a value (NaN) at some cutoffs: each cutoff
    resampled over the users with a value there (NaN where none has)."""
    from rankmetrics.stats import bootstrap_ci

    rows = []
    for position in range(values.shape[1]):
        column = values[:, position]
        column = column[~np.isnan(column)]
        if not len(column):
            rows.append((key, position, np.nan, np.nan, np.nan))
            continue
        mean, low, high = bootstrap_ci(column[:, None], n_bootstrap=n_bootstrap,
                                       confidence=confidence, seed=seed)
        rows.append((key, position, float(mean[0]), float(low[0]), float(high[0])))
    return pd.DataFrame(rows, columns=["model", "cutoff", "mean", "ci_low", "ci_high"])


def band_cutoffs(
    max_cutoff: int,
    *,
    n_values_per_cutoff: int,
    keep: Iterable[int] = (),
    max_values: int = BAND_VALUES,
) -> list[int]:
    """The cutoffs to compute confidence bands at: every K = 1..max_cutoff when their
    per-user values fit in ``max_values``, otherwise evenly spaced cutoffs, at most as many
    as fit (a step above 5 is rounded up to a multiple of 5), plus 1, ``max_cutoff`` and the
    cutoffs in ``keep``.

    ``n_values_per_cutoff`` is the values one cutoff brings: users x models x metrics.

    >>> band_cutoffs(10, n_values_per_cutoff=100)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> band_cutoffs(50, n_values_per_cutoff=100, keep=[12], max_values=500)
    [1, 12, 15, 30, 45, 50]
    """
    check_int("max_cutoff", max_cutoff)
    fits = max(2, max_values // max(1, n_values_per_cutoff))
    if fits >= max_cutoff:
        return list(range(1, max_cutoff + 1))
    step = -(-max_cutoff // (fits - 1))
    if step > 5:
        step = -(-step // 5) * 5  # multiples of 5 read better on an axis
    kept = [int(k) for k in keep if 1 <= k <= max_cutoff]
    return sorted({1, *range(step, max_cutoff, step), max_cutoff, *kept})
