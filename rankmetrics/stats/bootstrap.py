"""Percentile-bootstrap confidence intervals of means over users, and bands over the cutoffs.

Resamples draw users with replacement; the same seed and number of users give the same
resamples whatever the number of columns, so models (and the pairs of
:mod:`rankmetrics.stats.paired`) resampled together share them.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping
from functools import partial
from typing import TypeVar

import numpy as np
import pandas as pd

from rankmetrics.cache import BoundedCache
from rankmetrics.checks import check_int, check_optional_int, check_probability
from rankmetrics.runtime import one_blas_thread

# A model name of any hashable type (Evaluation keys its bands by (model, metric)); a type
# variable, since a Mapping is invariant in its keys.
_Model = TypeVar("_Model", bound=Hashable)

# Largest number of entries of one random matrix of resampling counts held at once:
# 2**22 float64 entries are 32 MiB.
_CHUNK_ENTRIES = 2**22


def bootstrap_means(array: np.ndarray, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """Means over users of ``n_bootstrap`` resamples: an (n_bootstrap, n_columns) array.

    Resample ``b`` draws n users with replacement; ``counts[b, u]`` says how often user u was
    drawn, so the resample's column means are ``counts @ array / n``. The counts come from
    uniform draws of user indices (exactly a multinomial(n, 1/n) vector per resample), drawn
    ``chunk`` resamples at a time with ``chunk * n <= _CHUNK_ENTRIES``. The chunk size depends
    on n only, so a seed gives the same resamples whatever the number of columns.
    """
    n = array.shape[0]
    chunk = max(1, _CHUNK_ENTRIES // n)
    means = np.empty((n_bootstrap, array.shape[1]))
    counts = np.empty((min(chunk, n_bootstrap), n))
    with one_blas_thread():
        for start in range(0, n_bootstrap, chunk):
            rows = min(chunk, n_bootstrap - start)
            drawn = rng.integers(0, n, size=(rows, n))
            for r in range(rows):  # one small bincount per resample stays in cache
                counts[r] = np.bincount(drawn[r], minlength=n)
            means[start : start + rows] = counts[:rows] @ array
    means /= n
    return means


#: Recent bootstraps' resampling counts (uint8), by (users, resamples, seed): a page that
#: tests again after a change of K or of a threshold resamples the same users with the same
#: seed, and drawing the counts is most of a bootstrap's time. Shared by every caller (and
#: every session of the dashboard), so locked and bounded; the counts are read-only.
_RESAMPLE_COUNTS = BoundedCache(max_bytes=64 * 2**20)


def seeded_bootstrap_means(array: np.ndarray, n_bootstrap: int,
                            seed: int | None) -> np.ndarray:
    """:func:`bootstrap_means` with ``default_rng(seed)``: the same numbers, from the
    resampling counts kept in ``_RESAMPLE_COUNTS`` when they are there (or fit there)."""
    n = array.shape[0]
    if seed is None or n_bootstrap * n > _RESAMPLE_COUNTS.max_bytes:
        return bootstrap_means(array, n_bootstrap, np.random.default_rng(seed))
    try:
        counts = _RESAMPLE_COUNTS.get_or_compute(
            (n, n_bootstrap, seed), partial(_resample_counts, n, n_bootstrap, seed))
    except OverflowError:
        return bootstrap_means(array, n_bootstrap, np.random.default_rng(seed))
    chunk = max(1, _CHUNK_ENTRIES // n)
    means = np.empty((n_bootstrap, array.shape[1]))
    with one_blas_thread():
        for start in range(0, n_bootstrap, chunk):  # the chunks of bootstrap_means
            rows = counts[start:start + chunk].astype(np.float64)
            means[start:start + len(rows)] = rows @ array
    means /= n
    return means


def _resample_counts(n: int, n_bootstrap: int, seed: int) -> np.ndarray:
    """How often each of n users is drawn in each resample: the counts
    :func:`bootstrap_means` draws with ``default_rng(seed)``, as uint8 (a user drawn more
    than 255 times in one resample of 1 / n draws does not happen; checked all the same)."""
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_ENTRIES // n)
    counts = np.empty((n_bootstrap, n), dtype=np.uint8)
    for start in range(0, n_bootstrap, chunk):
        rows = min(chunk, n_bootstrap - start)
        drawn = rng.integers(0, n, size=(rows, n))
        for r in range(rows):
            row = np.bincount(drawn[r], minlength=n)
            if row.max(initial=0) > 255:
                raise OverflowError("a user drawn over 255 times in one resample")
            counts[start + r] = row
    return counts


def bootstrap_ci(
    per_user: np.ndarray,
    *,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Mean over users and its percentile-bootstrap confidence interval, at every cutoff.

    Each of the ``n_bootstrap`` resamples draws ``n`` users with replacement (the same users
    for every cutoff, so the band over K is coherent) and takes the mean of each column:
    :math:`\bar x^{*b}_k = \frac1n \sum_u c_{bu} x_{uk}` with :math:`c_{bu}` the number of
    times user u was drawn in resample b. With :math:`\alpha = 1 - \text{confidence}`, the
    interval is the :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles (numpy's default
    linear interpolation) of the resampled means.

    Parameters
    ----------
    per_user : numpy.ndarray, shape (n_users, n_cutoffs) or (n_users,)
        Per-user metric values, one column per cutoff (no NaN).
    n_bootstrap : int
        Number of resamples.
    confidence : float
        Coverage of the interval, strictly between 0 and 1.
    seed : int or None
        Seed of the random resampling (None: fresh randomness).

    Returns
    -------
    mean, low, high : numpy.ndarray
        Each of shape (n_cutoffs,), or scalars for a 1-D ``per_user``.

    Examples
    --------
    >>> x = np.array([[0.0, 0.5], [1.0, 0.5], [0.5, 0.5]])
    >>> mean, low, high = bootstrap_ci(x, n_bootstrap=200, seed=1)
    >>> mean.tolist(), bool(low[0] < 0.5 < high[0]), bool(low[1] == high[1] == 0.5)
    ([0.5, 0.5], True, True)
    """
    n_bootstrap = check_int("n_bootstrap", n_bootstrap)
    confidence = check_probability("confidence", confidence)
    seed = check_optional_int("seed", seed)
    try:
        array = np.asarray(per_user, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"The 'per_user' argument must be an array of numbers. Got {type(per_user).__name__}."
        ) from exc
    if array.ndim not in (1, 2):
        raise ValueError(
            "The 'per_user' argument must have shape (n_users, n_cutoffs) or (n_users,). "
            f"Got shape {array.shape} instead."
        )
    if array.shape[0] < 1:
        raise ValueError("The 'per_user' argument has no users (0 rows).")
    if not np.isfinite(array).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ValueError(
            f"The 'per_user' argument must hold finite numbers; the entry at {where} is "
            f"{float(array[where])!r}."
        )
    matrix = array.reshape(array.shape[0], -1)
    boot = bootstrap_means(matrix, n_bootstrap, np.random.default_rng(seed))
    alpha = 1.0 - confidence
    low, high = np.quantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    mean = matrix.mean(axis=0)
    if array.ndim == 1:
        return mean[0], low[0], high[0]
    return mean, low, high


def confidence_bands(
    per_model: Mapping[_Model, np.ndarray],
    *,
    cutoffs: Collection[object] | None = None,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Bootstrap confidence bands over the cutoffs for several models.

    Applies :func:`bootstrap_ci` to each model's (n_users, n_cutoffs) array with the same
    seed, so models evaluated on the same users are resampled with the same users (and then
    in a single pass over all their columns). Each model's band is then that of
    :func:`bootstrap_ci` up to rounding: the resampled means are one matrix product over all
    the columns, and BLAS may sum a wider matrix in another order (a difference in the last
    digit, depending on the processor).

    Parameters
    ----------
    per_model : mapping of model name to numpy.ndarray, shape (n_users, n_cutoffs)
        Per-user values of each model, one column per cutoff.
    cutoffs : sequence, optional
        Label of each column (e.g. ``[1, 5, 10]``); 0, 1, 2, ... if not given.
    n_bootstrap, confidence, seed
        As for :func:`bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        Long table with columns ``model, cutoff, mean, ci_low, ci_high``.

    Examples
    --------
    >>> bands = confidence_bands({"A": np.ones((5, 2)), "B": np.zeros((5, 2))}, cutoffs=[5, 10])
    >>> bands[["model", "cutoff", "mean", "ci_low"]].values.tolist()
    [['A', 5, 1.0, 1.0], ['A', 10, 1.0, 1.0], ['B', 5, 0.0, 0.0], ['B', 10, 0.0, 0.0]]
    """
    if not isinstance(per_model, Mapping) or not per_model:
        raise ValueError(
            "The 'per_model' argument must be a non-empty dict of model name to "
            f"(n_users, n_cutoffs) array. Got {per_model!r} instead."
        )
    matrices = {
        model: np.asarray(per_user, dtype=np.float64).reshape(len(per_user), -1)
        for model, per_user in per_model.items()
    }
    if len({matrix.shape[0] for matrix in matrices.values()}) == 1:
        # One resampling for all models: the same resamples as separate calls with this seed
        # (they depend on the number of users only), at the cost of one.
        widths = np.cumsum([matrix.shape[1] for matrix in matrices.values()])[:-1]
        stacked = bootstrap_ci(np.hstack(list(matrices.values())), n_bootstrap=n_bootstrap,
                               confidence=confidence, seed=seed)
        results: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]] = zip(
            *(np.split(part, widths) for part in stacked), strict=True
        )
    else:
        results = (
            bootstrap_ci(matrix, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)
            for matrix in matrices.values()
        )
    rows = []
    for model, (mean, low, high) in zip(matrices, results, strict=True):
        labels = list(range(mean.size)) if cutoffs is None else list(cutoffs)
        if len(labels) != mean.size:
            raise ValueError(
                f"The 'cutoffs' argument names {len(labels)} cutoffs but model {model!r} has "
                f"{mean.size} columns."
            )
        for k, m, lo, hi in zip(labels, mean, low, high, strict=True):
            rows.append((model, k, float(m), float(lo), float(hi)))
    return pd.DataFrame(rows, columns=["model", "cutoff", "mean", "ci_low", "ci_high"])
