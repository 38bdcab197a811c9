"""Paired significance tests, confidence intervals and letter groups for comparing models.

Every function here works on *per-user* metric values at one metric and cutoff, paired by
user: a :class:`pandas.DataFrame` ``values`` whose index holds the user ids and which has one
float column per model (the same users for every model, no missing values). Model A and model B
of a pair are compared through the per-user differences ``d_u = value_B(u) - value_A(u)``.

- :func:`paired_comparison` runs a paired test (t-test, Wilcoxon signed-rank or a sign-flip
  randomization test) on every pair of models, with a bootstrap confidence interval of the mean
  difference, an effect size, win / tie / loss counts and multiple-comparison correction;
- :func:`correct_pvalues` is the Holm, Bonferroni or Benjamini-Hochberg correction;
- :func:`bootstrap_ci` gives bootstrap confidence bands of a mean over users at every cutoff,
  and :func:`confidence_bands` does so for several models at once;
- :func:`significance_groups` is the compact letter display ("a", "ab", "b");
- :func:`compare_models` puts it all together for one metric and cutoff (every model's mean
  and interval, letters and every pair's test) from a single bootstrap;
- :func:`describe_pair` and :func:`comparison_warnings` put results and caveats into words.

Randomness comes from :func:`numpy.random.default_rng` seeded by the ``seed`` argument, so the
same inputs and seed give the same numbers. Large random matrices are generated in chunks of at
most about four million entries, so memory stays bounded whatever the number of users.
"""

from __future__ import annotations

import math
import string
import warnings
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from itertools import combinations
from typing import TypeVar

import numpy as np
import pandas as pd

from rankmetrics.cache import BoundedCache
from rankmetrics.checks import check_choice, check_int, check_optional_int, check_probability, plain
from rankmetrics.errors import DataError
from rankmetrics.runtime import one_blas_thread

TESTS = ("t", "wilcoxon", "randomization")
CORRECTIONS = ("holm", "bonferroni", "bh")
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "randomization test"}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}
#: What each test does, in one sentence for a reader who is not a statistician.
TEST_HELP = {
    "randomization": "Flips, at random and many times, which of the two models each user's "
    "values came from, and counts how often chance alone gives a difference as large as the "
    "real one; it assumes nothing about how the scores are spread.",
    "t": "Compares the mean per-user difference with its standard error; it assumes that mean "
    "is roughly normally distributed, which holds with many users.",
    "wilcoxon": "Ranks the per-user differences by size and compares the ranks of gains with "
    "those of losses; it ignores users with no difference and is about the typical user "
    "rather than the mean.",
}
#: What each multiple-comparison correction guards against, in one sentence.
CORRECTION_HELP = {
    "holm": "Keeps the chance of calling any pair significant by mistake below the "
    "significance level, and finds more real differences than Bonferroni.",
    "bonferroni": "Multiplies each p-value by the number of pairs: the simplest and most "
    "cautious.",
    "bh": "Keeps the expected share of mistaken \"significant\" pairs below the significance "
    "level: finds the most differences when there are many pairs.",
}

#: A value in a row of the comparison table: a model name, a number or a yes/no flag.
TableValue = str | float | np.number | np.bool_

# A model name of any hashable type (Evaluation keys its bands by (model, metric)); a type
# variable, since a Mapping is invariant in its keys.
_Model = TypeVar("_Model", bound=Hashable)

COMPARISON_COLUMNS = (
    "model_a", "model_b", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
    "effect_size", "statistic", "p_value", "p_corrected", "significant",
    "wins", "ties", "losses", "users",
)

#: Fewer users than this and no significance test is meaningful.
MIN_USERS = 10
#: Fewer users than this and the t-test's normal approximation is rough.
MIN_USERS_T = 30

# Largest number of entries of one random matrix (signs or resampling counts) held at once:
# 2**22 float64 entries are 32 MiB.
_CHUNK_ENTRIES = 2**22

# Row b of _SIGN_TABLE holds the 8 bits of the byte b (most significant first) as -1.0 / +1.0:
# np.take(_SIGN_TABLE, random_bytes, axis=0) turns random bytes into random signs, 8 at a time.
_SIGN_TABLE = (2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1) - 1.0).astype(
    np.float32
)

# The randomization test sums float32 signs times float32 differences in blocks of _BLOCK
# users (numpy's einsum, single-threaded and predictable on a busy machine), then adds the block
# sums in float64. Any float32 sum of _BLOCK terms is within (_BLOCK - 1) * eps32/2 of the
# exact one, relative to the sum of the terms' absolute values, and rounding the differences to
# float32 adds eps32/2, so the whole statistic is within (_BLOCK + 1) * eps32/2 * sum|d| of its
# exact value. Permutations closer than that to the observed statistic are recomputed in
# float64, so the float32 shortcut never changes a count.
_BLOCK = 256
_FLOAT32_ERROR = (_BLOCK + 1) * float(np.finfo(np.float32).eps) / 2
# Entries of one chunk of random signs for the randomization test (4 MiB as float32).
_SIGN_CHUNK_ENTRIES = 2**20


# --------------------------------------------------------------------------------------------
# The table of per-user values


def _check_values(values: object) -> np.ndarray:
    """The per-user values as a float (n_users, n_models) array, or a DataError saying why not."""
    if not isinstance(values, pd.DataFrame):
        raise DataError(
            "The per-user values must be a table (pandas DataFrame) with one row per user and "
            f"one column per model. Got {type(values).__name__} instead."
        )
    if values.shape[1] < 2:
        raise DataError(
            f"Comparing models needs at least 2 model columns; the values table has "
            f"{values.shape[1]} ({', '.join(map(str, values.columns)) or 'none'})."
        )
    duplicated = values.columns[values.columns.duplicated()]
    if len(duplicated):
        raise DataError(
            f"Model column {plain(duplicated[0])!r} appears more than once in the values table; "
            "give every model a distinct name."
        )
    if values.shape[0] < 2:
        raise DataError(
            f"Comparing models needs the values of at least 2 users; the values table has "
            f"{values.shape[0]}."
        )
    for column in values.columns:
        if not pd.api.types.is_numeric_dtype(values[column]):
            raise DataError(
                f"the per-user values must be numbers, but the column has type "
                f"{values[column].dtype}.",
                column=str(column),
            )
    array = values.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(array)
    if bad.any():
        col = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, col])
        kind = "missing (NaN)" if np.isnan(array[rows[0], col]) else "infinite"
        raise DataError(
            f"{len(rows)} user(s) have a {kind} value, the first being user "
            f"{plain(values.index[rows[0]])!r}. Every model needs a value for every user: "
            "drop those users or fill in their values (e.g. 0 for a model that returned "
            "nothing).",
            column=str(values.columns[col]),
        )
    return array


# --------------------------------------------------------------------------------------------
# Multiple-comparison correction


def correct_pvalues(p: object, method: str = "holm") -> np.ndarray:
    r"""Adjust p-values for multiple comparisons.

    All the p-values given are one family of ``m`` hypotheses. With the raw p-values sorted
    ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`, the adjusted values are

    - Bonferroni: :math:`\tilde p_i = \min(1, m\,p_i)`;
    - Holm (step-down): :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\,p_{(j)})`;
    - Benjamini-Hochberg (step-up, controls the false discovery rate, valid for independent
      or positively dependent tests): :math:`\tilde p_{(i)} = \min_{j \ge i}
      \min(1, m\,p_{(j)} / j)`.

    The running maximum / minimum makes the adjusted values keep the order of the raw ones.
    Adjusted values are never below the raw ones and never above 1; Holm's are never above
    Bonferroni's. Rejecting the hypotheses with :math:`\tilde p < \alpha` controls the
    family-wise error rate (Holm, Bonferroni) or the false discovery rate (BH) at
    :math:`\alpha`.

    Parameters
    ----------
    p : array_like of float
        Raw p-values in [0, 1], any shape; all of them form one family.
    method : {"holm", "bonferroni", "bh"}
        The correction.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the shape and order of ``p``.

    Examples
    --------
    >>> correct_pvalues([0.01, 0.04, 0.03], "holm").tolist()  # 3*0.01, max(2*0.03, .03), ...
    [0.03, 0.06, 0.06]
    >>> correct_pvalues([0.01, 0.04, 0.03], "bonferroni").round(2).tolist()
    [0.03, 0.12, 0.09]
    >>> correct_pvalues([0.01, 0.04, 0.03], "bh").round(2).tolist()  # 3*.01/1, 3*.04/3, ...
    [0.03, 0.04, 0.04]
    """
    check_choice("method", method, CORRECTIONS)
    try:
        raw = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The 'p' argument must be numbers. Got {p!r} instead.") from exc
    flat = raw.ravel()
    if np.isnan(flat).any() or ((flat < 0) | (flat > 1)).any():
        bad = flat[np.isnan(flat) | (flat < 0) | (flat > 1)][0]
        raise ValueError(
            f"The 'p' argument must hold p-values in [0, 1]. Got {float(bad)!r} in it."
        )
    m = flat.size
    if m == 0:
        return raw.copy()
    if method == "bonferroni":
        return np.minimum(1.0, m * raw)
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ranked))
    else:  # bh
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ranked / rank)[::-1])[::-1]
        # m * p / m can round to just below p; the exact value is never below p.
        adjusted = np.maximum(adjusted, ranked)
    out = np.empty(m)
    out[order] = adjusted
    return out.reshape(raw.shape)


# --------------------------------------------------------------------------------------------
# Bootstrap


def _bootstrap_means(array: np.ndarray, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
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


def _seeded_bootstrap_means(array: np.ndarray, n_bootstrap: int,
                            seed: int | None) -> np.ndarray:
    """:func:`_bootstrap_means` with ``default_rng(seed)``: the same numbers, from the
    resampling counts kept in ``_RESAMPLE_COUNTS`` when they are there (or fit there)."""
    n = array.shape[0]
    if seed is None or n_bootstrap * n > _RESAMPLE_COUNTS.max_bytes:
        return _bootstrap_means(array, n_bootstrap, np.random.default_rng(seed))
    try:
        counts = _RESAMPLE_COUNTS.get_or_compute(
            (n, n_bootstrap, seed), partial(_resample_counts, n, n_bootstrap, seed))
    except OverflowError:
        return _bootstrap_means(array, n_bootstrap, np.random.default_rng(seed))
    chunk = max(1, _CHUNK_ENTRIES // n)
    means = np.empty((n_bootstrap, array.shape[1]))
    with one_blas_thread():
        for start in range(0, n_bootstrap, chunk):  # the chunks of _bootstrap_means
            rows = counts[start:start + chunk].astype(np.float64)
            means[start:start + len(rows)] = rows @ array
    means /= n
    return means


def _resample_counts(n: int, n_bootstrap: int, seed: int) -> np.ndarray:
    """How often each of n users is drawn in each resample: the counts
    :func:`_bootstrap_means` draws with ``default_rng(seed)``, as uint8 (a user drawn more
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
    boot = _bootstrap_means(matrix, n_bootstrap, np.random.default_rng(seed))
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
    in a single pass over all their columns).

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


# --------------------------------------------------------------------------------------------
# Paired tests


def randomization_pvalues(
    diffs: np.ndarray, n_permutations: int, rng: np.random.Generator
) -> np.ndarray:
    """Two-sided sign-flip randomization p-values, one per column of ``diffs`` (n, n_pairs):
    the test behind :func:`paired_comparison`'s ``test="randomization"``, for analyses that
    test many columns at once (every pair at every K) with the same flips.

    Each permutation flips the sign of every user's difference with probability 1/2, the same
    flips for every pair; the statistic is the sum of the flipped differences. Signs come as
    random bytes turned into 8 signs each through ``_SIGN_TABLE``, ``chunk`` permutations at a
    time (``chunk * n <= _SIGN_CHUNK_ENTRIES``). The differences are padded with zeros (which
    add nothing) to whole blocks of ``_BLOCK`` users; see ``_FLOAT32_ERROR`` for the float32
    sums and their float64 recheck.
    """
    n, n_pairs = diffs.shape
    n_padded = -(-n // _BLOCK) * _BLOCK
    n_blocks = n_padded // _BLOCK
    padded = np.zeros((n_pairs, n_padded))
    padded[:, :n] = diffs.T
    blocks32 = padded.astype(np.float32).reshape(n_pairs, n_blocks, _BLOCK)
    scale = np.abs(diffs).sum(axis=0)
    # A permuted sum equal to the observed one in exact arithmetic may differ from it by
    # rounding: any float64 sum of n terms is within (n - 1) * eps/2 * sum|d| of the exact one,
    # so float64 statistics within n * eps * sum|d| of the observed one count as "as extreme".
    threshold = np.abs(diffs.sum(axis=0)) - n * np.finfo(np.float64).eps * scale
    band = _FLOAT32_ERROR * scale
    chunk = max(1, _SIGN_CHUNK_ENTRIES // n_padded)
    extreme = np.zeros(n_pairs, dtype=np.int64)
    approx = np.empty((chunk, n_pairs))
    for start in range(0, n_permutations, chunk):
        rows = min(chunk, n_permutations - start)
        random_bytes = rng.integers(0, 256, size=(rows, n_padded // 8), dtype=np.uint8)
        signs = np.take(_SIGN_TABLE, random_bytes, axis=0).reshape(rows, n_blocks, _BLOCK)
        for p in range(n_pairs):
            block_sums = np.einsum("ijk,jk->ij", signs, blocks32[p])
            approx[:rows, p] = np.abs(block_sums.sum(axis=1, dtype=np.float64))
        extreme += (approx[:rows] > threshold + band).sum(axis=0)
        unsure = np.abs(approx[:rows] - threshold) <= band
        for r in np.flatnonzero(unsure.any(axis=1)):
            exact = np.abs(np.einsum("pj,j->p", padded, signs[r].ravel().astype(np.float64)))
            extreme += (exact >= threshold) & unsure[r]
    return (extreme + 1) / (n_permutations + 1)


def _standard_deviation_is_zero(diffs: np.ndarray, sd: float) -> bool:
    """Whether the differences are constant, up to floating-point rounding."""
    return sd <= 16 * np.finfo(np.float64).eps * max(np.abs(diffs).max(), np.finfo(float).tiny)


def paired_comparison(
    values: pd.DataFrame,
    *,
    test: str = "t",
    correction: str = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> pd.DataFrame:
    r"""Paired significance test, confidence interval and effect size for every pair of models.

    For each unordered pair (A, B) of model columns, in column order, with the per-user
    differences :math:`d_u = x_{B,u} - x_{A,u}` over n users:

    - ``difference`` :math:`\bar d = \bar x_B - \bar x_A`;
    - ``ci_low``, ``ci_high``: percentile bootstrap interval of :math:`\bar d` at level
      ``confidence`` (users resampled with replacement, the same resamples for every pair; see
      :func:`bootstrap_ci`: the interval equals ``bootstrap_ci(d)``'s with the same seed);
    - ``effect_size`` :math:`\bar d / s_d` with :math:`s_d` the sample standard deviation
      (ddof = 1) of the differences (Cohen's :math:`d_z`); 0 when :math:`s_d = 0` up to
      rounding (all users differ by the same amount);
    - ``statistic`` and ``p_value`` of the two-sided ``test``:

      * ``"t"``: paired t-test, ``scipy.stats.ttest_rel(x_B, x_A)``;
        statistic :math:`t = \bar d / (s_d / \sqrt n)`, n - 1 degrees of freedom;
      * ``"wilcoxon"``: Wilcoxon signed-rank test, ``scipy.stats.wilcoxon(x_B, x_A)`` with
        scipy's defaults: ``zero_method="wilcox"`` (users with :math:`d_u = 0` are dropped
        before ranking) and ``method="auto"`` (exact distribution for at most 50 non-zero
        differences without ties, normal approximation otherwise). Statistic: the smaller of
        the rank sums of the positive and of the negative differences;
      * ``"randomization"``: paired sign-flip (Fisher) randomization test of the mean
        difference. Under the null hypothesis the labels A / B of each user are exchangeable,
        so each :math:`d_u` is equally likely to have either sign. Each of ``n_permutations``
        random permutations flips every sign with probability 1/2, and
        :math:`p = (1 + \#\{\text{perm} : |\sum_u s_u d_u| \ge |\sum_u d_u|\}) /
        (1 + \text{n\_permutations})`, the Monte Carlo p-value that counts the observed
        assignment among the permutations (Phipson & Smyth 2010); it is never 0, so it stays
        meaningful under Bonferroni / Holm. ranx's ``fisher_randomization_test`` draws the same
        permutations but reports :math:`\#\{\dots\} / \text{n\_permutations}`; the two differ
        by less than 1 / n_permutations plus Monte Carlo error. Statistic: :math:`\bar d`.
        All pairs share the same random flips. Sums are taken in float32 and re-done in
        float64 when close to the observed one, and sums equal to it up to rounding count as
        "as extreme", so exact ties (common for metrics on a grid, e.g. precision@10) count.

      When all differences are 0 the statistic is 0 and the p-value 1 for every test.
    - ``p_corrected``: ``p_value`` adjusted over all the pairs of the table with
      :func:`correct_pvalues`; ``significant``: ``p_corrected < 1 - confidence``;
    - ``wins``, ``ties``, ``losses``: users with :math:`x_B > x_A`, :math:`=`, :math:`<` (exact
      float comparison); ``users``: n.

    Parameters
    ----------
    values : pandas.DataFrame
        Index: user ids; one float column per model (at least 2), no NaN.
    test : {"t", "wilcoxon", "randomization"}
        The paired test.
    correction : {"holm", "bonferroni", "bh"}
        Multiple-comparison correction over the pairs.
    n_permutations : int
        Random sign flips of the randomization test (ignored by the others).
    n_bootstrap : int
        Bootstrap resamples of the confidence interval.
    confidence : float
        Level of the interval; ``1 - confidence`` is the significance level.
    seed : int or None
        Seed: the bootstrap uses ``default_rng(seed)`` and the randomization test an
        independent stream spawned from it, so the interval does not depend on the test.

    Returns
    -------
    pandas.DataFrame
        One row per pair with the columns of ``COMPARISON_COLUMNS``.

    Raises
    ------
    DataError
        (a ValueError) if ``values`` has fewer than 2 models or users, non-numeric columns or
        missing / infinite values.
    ValueError
        For an unknown test or correction or an out-of-range option.

    Examples
    --------
    >>> values = pd.DataFrame({"A": [0.2, 0.4, 0.6, 0.8], "B": [0.3, 0.5, 0.6, 1.0]})
    >>> row = paired_comparison(values, n_bootstrap=100).iloc[0]
    >>> row.model_a, row.model_b, round(float(row.difference), 3), int(row.wins), int(row.ties)
    ('A', 'B', 0.1, 3, 1)
    """
    table, _ = _compare_pairs(values, test, correction, n_permutations, n_bootstrap,
                              confidence, seed)
    return table


def _compare_pairs(
    values: pd.DataFrame,
    test: str,
    correction: str,
    n_permutations: int,
    n_bootstrap: int,
    confidence: float,
    seed: int | None,
    boot: np.ndarray | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`paired_comparison`'s table, and the bootstrap means of each model column
    (n_bootstrap, n_models) its intervals come from (``boot`` when they were drawn
    already: :func:`compare_models_together`)."""
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    test = check_choice("test", test, TESTS)
    correction = check_choice("correction", correction, CORRECTIONS)
    n_permutations = check_int("n_permutations", n_permutations)
    n_bootstrap = check_int("n_bootstrap", n_bootstrap)
    confidence = check_probability("confidence", confidence)
    seed = check_optional_int("seed", seed)
    array = _check_values(values)
    n_users = array.shape[0]
    models = list(values.columns)
    pairs = list(combinations(range(len(models)), 2))
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    diffs = array[:, second] - array[:, first]
    means = array.mean(axis=0)

    alpha = 1.0 - confidence
    if boot is None:
        boot = _seeded_bootstrap_means(array, n_bootstrap, seed)
    boot_diffs = boot[:, second] - boot[:, first]
    ci_low, ci_high = np.quantile(boot_diffs, [alpha / 2, 1 - alpha / 2], axis=0)

    all_zero = ~diffs.any(axis=0)
    if test == "randomization":
        stream = np.random.SeedSequence(seed).spawn(1)[0]
        p_values = randomization_pvalues(
            diffs, n_permutations, np.random.default_rng(stream)
        )
        statistics = diffs.mean(axis=0)
    else:
        p_values = np.empty(len(pairs))
        statistics = np.empty(len(pairs))
        for i, (a, b) in enumerate(pairs):
            if all_zero[i]:
                continue
            with warnings.catch_warnings():
                # Nearly constant differences make scipy warn about precision loss.
                warnings.simplefilter("ignore", RuntimeWarning)
                if test == "t":
                    result = _sps.ttest_rel(array[:, b], array[:, a])
                else:
                    result = _sps.wilcoxon(array[:, b], array[:, a], zero_method="wilcox")
            statistics[i] = result.statistic
            p_values[i] = result.pvalue
    statistics[all_zero] = 0.0
    p_values[all_zero] = 1.0

    sd = diffs.std(axis=0, ddof=1)
    effect = np.zeros(len(pairs))
    for i in range(len(pairs)):
        if not _standard_deviation_is_zero(diffs[:, i], sd[i]):
            effect[i] = diffs[:, i].mean() / sd[i]

    table = pd.DataFrame(
        {
            "model_a": [models[a] for a in first],
            "model_b": [models[b] for b in second],
            "mean_a": means[first],
            "mean_b": means[second],
            "difference": means[second] - means[first],
            "ci_low": ci_low,
            "ci_high": ci_high,
            "effect_size": effect,
            "statistic": statistics,
            "p_value": p_values,
            "p_corrected": np.nan,
            "significant": False,
            "wins": (diffs > 0).sum(axis=0),
            "ties": (diffs == 0).sum(axis=0),
            "losses": (diffs < 0).sum(axis=0),
            "users": np.full(len(pairs), n_users),
        },
        columns=list(COMPARISON_COLUMNS),
    )
    return _corrected(table, correction, confidence), boot


def _corrected(table: pd.DataFrame, correction: str, confidence: float) -> pd.DataFrame:
    """The comparison table with ``p_corrected`` and ``significant`` for ``correction``."""
    p_corrected = correct_pvalues(table["p_value"].to_numpy(dtype=np.float64), correction)
    return table.assign(p_corrected=p_corrected, significant=p_corrected < 1.0 - confidence)


# --------------------------------------------------------------------------------------------
# Compact letter display


def _significance_lookup(
    significant: object, models: list[object]
) -> Callable[[object, object], bool]:
    if callable(significant) and not isinstance(significant, pd.DataFrame):
        return lambda a, b: bool(significant(a, b))
    if not isinstance(significant, pd.DataFrame):
        raise ValueError(
            "The 'significant' argument must be a function (model_a, model_b) -> bool, the "
            "table of paired_comparison, or a square table of booleans. Got "
            f"{type(significant).__name__} instead."
        )
    if {"model_a", "model_b", "significant"} <= set(significant.columns):
        found = {
            frozenset((a, b)): bool(s)
            for a, b, s in zip(
                significant["model_a"],
                significant["model_b"],
                significant["significant"],
                strict=True,
            )
        }

        def from_table(a: object, b: object) -> bool:
            try:
                return found[frozenset((a, b))]
            except KeyError:
                raise ValueError(
                    f"The 'significant' table has no row comparing {a!r} and {b!r}."
                ) from None

        return from_table
    missing = [m for m in models if m not in significant.index or m not in significant.columns]
    if missing:
        raise ValueError(
            f"The 'significant' table lacks a row or column for model {missing[0]!r}; it must "
            "have the models as both index and columns."
        )
    # The models are labels of `significant` (checked above) and pandas looks up any hashable
    # label; pandas-stubs accepts only its scalar types as labels.
    return lambda a, b: (
        bool(significant.loc[a, b])  # type: ignore[index]
        or bool(significant.loc[b, a])  # type: ignore[index]
    )


def _letter(i: int) -> str:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    return alphabet[i] if i < len(alphabet) else f"[{i + 1}]"


def significance_groups(means: pd.Series, significant: object) -> pd.Series:
    """Compact letter display: models sharing a letter are not significantly different.

    Models are sorted by mean, highest first (ties keep the input order). Letters come from
    the *insert-and-absorb* algorithm (Piepho 2004, Comput. Stat. Data Anal. 46):

    1. start with one group holding every model;
    2. for each significantly different pair (i, j), split every group holding both into a
       copy without i and a copy without j; then *absorb*: drop every group that is a subset
       of (or equal to) another group;
    3. drop a group whose every member pair, and every member, is also covered by another
       group (redundant letter), trying the lowest-ranked groups first;
    4. order the groups by their highest-ranked member and name them "a", "b", ...

    Two models then share a letter if and only if they are not significantly different, and
    the best model gets "a". Unlike a simple sweep over sorted means, this stays correct when
    significance is not monotone in the mean difference (as happens with paired tests).

    Parameters
    ----------
    means : pandas.Series
        Mean metric value of each model (index: model names).
    significant : callable, or pandas.DataFrame
        ``significant(model_a, model_b) -> bool``; or the table of :func:`paired_comparison`
        (columns ``model_a``, ``model_b``, ``significant``); or a square boolean table with the
        models as index and columns (a pair is significant if either entry is true).

    Returns
    -------
    pandas.Series
        The letters of each model (e.g. "a", "ab", "b"), indexed by model, highest mean first.

    Examples
    --------
    >>> means = pd.Series({"A": 0.30, "B": 0.25, "C": 0.20})
    >>> significance_groups(means, lambda a, b: {a, b} == {"A", "C"}).to_dict()
    {'A': 'a', 'B': 'ab', 'C': 'b'}
    """
    if not isinstance(means, pd.Series) or means.empty:
        raise ValueError(
            "The 'means' argument must be a non-empty pandas Series of model -> mean. Got "
            f"{means!r} instead."
        )
    if not means.index.is_unique:
        twice = plain(means.index[means.index.duplicated()][0])
        raise ValueError(f"The 'means' argument names model {twice!r} twice.")
    numeric = pd.to_numeric(means, errors="coerce").astype(float)
    if numeric.isna().any():
        raise ValueError(
            f"The 'means' argument must hold numbers; model "
            f"{plain(numeric.index[numeric.isna()][0])!r} has "
            f"{plain(means[numeric.isna()].iloc[0])!r}."
        )
    order = numeric.sort_values(ascending=False, kind="stable")
    models = list(order.index)
    is_significant = _significance_lookup(significant, models)
    m = len(models)
    different = [
        (i, j) for i, j in combinations(range(m), 2) if is_significant(models[i], models[j])
    ]

    groups: list[frozenset[int]] = [frozenset(range(m))]
    for i, j in different:
        split: set[frozenset[int]] = set()
        for group in groups:
            if i in group and j in group:
                split.add(group - {i})
                split.add(group - {j})
            else:
                split.add(group)
        groups = [g for g in split if not any(g < other for other in split)]

    def key(group: frozenset[int]) -> tuple[int, ...]:
        return tuple(sorted(group))

    groups.sort(key=key)
    for group in sorted(groups, key=key, reverse=True):
        others = [g for g in groups if g is not group]
        members_covered = all(any(u in g for g in others) for u in group)
        pairs_covered = all(
            any(u in g and v in g for g in others) for u, v in combinations(sorted(group), 2)
        )
        if members_covered and pairs_covered:
            groups = others
    groups.sort(key=key)

    letters = ["".join(_letter(k) for k, g in enumerate(groups) if u in g) for u in range(m)]
    return pd.Series(letters, index=order.index, name="group")


# --------------------------------------------------------------------------------------------
# The whole comparison


@dataclass(frozen=True)
class ModelComparison:
    """Every model's mean with its confidence interval and letter group, and every pair's
    paired test, on one metric at one cutoff (made by :func:`compare_models`).

    Attributes
    ----------
    models : pandas.DataFrame
        One row per model, highest mean first (ties keep the column order): ``model``,
        ``mean``, ``ci_low`` and ``ci_high`` (percentile bootstrap interval of the mean),
        ``group`` (letters of :func:`significance_groups`: models sharing a letter are not
        significantly different) and ``users``.
    pairs : pandas.DataFrame
        The table of :func:`paired_comparison`, one row per pair in column order.
    test : str
        The paired test, one of ``TESTS``.
    correction : str
        The multiple-comparison correction, one of ``CORRECTIONS``.
    confidence : float
        Level of the intervals; ``1 - confidence`` is the significance level.
    warnings : tuple of str
        :func:`comparison_warnings` of the values.
    """

    models: pd.DataFrame
    pairs: pd.DataFrame
    test: str
    correction: str
    confidence: float
    warnings: tuple[str, ...]

    def with_correction(self, correction: str) -> ModelComparison:
        """The same comparison under another correction. Nothing is resampled: the raw
        p-values do not depend on the correction, only ``p_corrected``, ``significant`` and
        the letters change."""
        correction = check_choice("correction", correction, CORRECTIONS)
        pairs = _corrected(self.pairs, correction, self.confidence)
        models = self.models.assign(group=_letters(self.models, pairs))
        return replace(self, models=models, pairs=pairs, correction=correction)

    def leaders(self) -> tuple[list[Hashable], bool]:
        """The models that share the top spot, and whether a single model is best.

        The model with the highest mean is *significantly best* when its paired test against
        every other model is significant (after this comparison's correction) and it has the
        higher mean in each. Otherwise the leaders are the highest-mean model and every model
        not significantly different from it: a group the data cannot tell apart, highest mean
        first.

        Returns
        -------
        (list of model names, bool)
            ``([best], True)`` when one model is significantly best; otherwise
            ``([best, tied, ...], False)`` (a single model with ``False`` can only happen
            when there is nothing to compare it with).

        Examples
        --------
        >>> values = pd.DataFrame({"A": np.linspace(0, 0.5, 40), "B": np.linspace(0.3, 0.8, 40),
        ...                        "C": np.linspace(0.3, 0.8, 40)[::-1]})
        >>> compare_models(values, test="t", n_bootstrap=100).leaders()
        (['B', 'C'], False)
        """
        best = self.models["model"].iloc[0]
        tied = [best]
        for other in self.models["model"].iloc[1:]:
            row = self.pair(best, other)
            if not bool(row["significant"]) or float(row["difference"]) >= 0:
                tied.append(other)
        return tied, len(tied) == 1 and len(self.models) > 1

    def pair(self, model_a: object, model_b: object) -> pd.Series:
        """The row comparing ``model_b`` with ``model_a`` (``difference = mean_b - mean_a``,
        ``wins``: users for whom B is better), whichever order the table holds them in.

        Reversing a pair negates the difference, its interval, the effect size and the t or
        randomization statistic (Wilcoxon's, the smaller rank sum, stays), and swaps wins and
        losses; the p-values stay.
        """
        table = self.pairs
        forward = (table["model_a"] == model_a) & (table["model_b"] == model_b)
        if forward.any():
            return table.loc[forward].iloc[0]
        backward = (table["model_a"] == model_b) & (table["model_b"] == model_a)
        if not backward.any():
            raise ValueError(
                f"No pair compares {model_a!r} with {model_b!r}; the models are "
                f"{', '.join(map(repr, self.models['model']))}."
            )
        row = table.loc[backward].iloc[0].copy()
        flipped = row.copy()
        flipped["model_a"], flipped["model_b"] = row["model_b"], row["model_a"]
        flipped["mean_a"], flipped["mean_b"] = row["mean_b"], row["mean_a"]
        flipped["difference"] = -row["difference"]
        flipped["ci_low"], flipped["ci_high"] = -row["ci_high"], -row["ci_low"]
        flipped["effect_size"] = -row["effect_size"]
        if self.test != "wilcoxon":
            flipped["statistic"] = -row["statistic"]
        flipped["wins"], flipped["losses"] = row["losses"], row["wins"]
        return flipped


def compare_models(
    values: pd.DataFrame,
    *,
    test: str = "randomization",
    correction: str = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> ModelComparison:
    """Each model's mean with a confidence interval, letter groups and every paired test.

    The pairs are :func:`paired_comparison`'s (same arguments, same numbers). Each model's
    interval is the percentile interval of the same bootstrap resamples' means, so it equals
    ``bootstrap_ci(values[model], seed=seed)`` and the users are resampled once for the
    whole comparison. Letters come from :func:`significance_groups` on the corrected tests.

    Parameters
    ----------
    values : pandas.DataFrame
        Index: user ids; one float column per model (at least 2), no NaN.
    test, correction, n_permutations, n_bootstrap, confidence, seed
        As for :func:`paired_comparison`; the randomization test by default, as it makes no
        assumption about how per-user values are spread (they are bounded, often 0, and
        rarely normal).

    Returns
    -------
    ModelComparison

    Examples
    --------
    >>> values = pd.DataFrame({"A": np.linspace(0, 0.5, 40), "B": np.linspace(0.3, 0.8, 40)})
    >>> result = compare_models(values, n_permutations=500, n_bootstrap=200)
    >>> result.models[["model", "group", "users"]].values.tolist()
    [['B', 'a', 40], ['A', 'b', 40]]
    >>> float(result.pair("A", "B").difference.round(3)), int(result.pair("B", "A").losses)
    (0.3, 40)
    """
    return _compare_models(values, test, correction, n_permutations, n_bootstrap, confidence,
                           seed)


def compare_models_together(
    tables: Mapping[str, pd.DataFrame],
    *,
    test: str = "randomization",
    correction: str = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> dict[str, ModelComparison]:
    """:func:`compare_models` on each of several tables (one per metric, say), drawing the
    bootstrap resamples once for every table of the same users.

    Tables whose index is the same users in the same order are resampled together: their
    columns side by side go through one bootstrap, which draws the same resamples as
    :func:`compare_models` on each table with the same seed (the draws depend on the number
    of users only). The numbers are :func:`compare_models`' up to rounding (the resampled
    means are summed in another order, a difference of about 1e-16); drawing the resamples,
    most of the bootstrap's time, is paid once instead of once per table.

    Parameters
    ----------
    tables : mapping of name -> pandas.DataFrame
        Each as ``values`` of :func:`compare_models`.
    test, correction, n_permutations, n_bootstrap, confidence, seed
        As for :func:`compare_models`, the same for every table.

    Returns
    -------
    dict of name -> ModelComparison

    Examples
    --------
    >>> users = pd.Index(range(40), name="user")
    >>> tables = {"ndcg": pd.DataFrame({"A": np.linspace(0, 0.5, 40),
    ...                                 "B": np.linspace(0.3, 0.8, 40)}, index=users),
    ...           "recall": pd.DataFrame({"A": np.linspace(0.1, 0.6, 40),
    ...                                   "B": np.linspace(0.1, 0.6, 40)}, index=users)}
    >>> together = compare_models_together(tables, n_permutations=500, n_bootstrap=200)
    >>> alone = compare_models(tables["ndcg"], n_permutations=500, n_bootstrap=200)
    >>> bool(np.allclose(together["ndcg"].models[["mean", "ci_low", "ci_high"]],
    ...                  alone.models[["mean", "ci_low", "ci_high"]], rtol=0, atol=1e-12))
    True
    """
    n_bootstrap = check_int("n_bootstrap", n_bootstrap)
    out: dict[str, ModelComparison] = {}
    for names in _same_users(tables):
        arrays = [_check_values(tables[name]) for name in names]
        boot = _seeded_bootstrap_means(np.hstack(arrays), n_bootstrap, seed)
        edges = np.cumsum([0, *(array.shape[1] for array in arrays)])
        for name, low, high in zip(names, edges[:-1], edges[1:], strict=True):
            out[name] = _compare_models(tables[name], test, correction, n_permutations,
                                        n_bootstrap, confidence, seed, boot[:, low:high])
    return {name: out[name] for name in tables}


def _same_users(tables: Mapping[str, pd.DataFrame]) -> list[list[str]]:
    """The names of ``tables`` in groups whose index is the same users in the same order."""
    groups: list[list[str]] = []
    for name, table in tables.items():
        group = next((group for group in groups
                      if tables[group[0]].index.equals(table.index)), None)
        if group is None:
            groups.append([name])
        else:
            group.append(name)
    return groups


def _compare_models(
    values: pd.DataFrame, test: str, correction: str, n_permutations: int, n_bootstrap: int,
    confidence: float, seed: int | None, boot: np.ndarray | None = None,
) -> ModelComparison:
    """:func:`compare_models`, with the bootstrap means of the columns when they were drawn
    already."""
    pairs, boot = _compare_pairs(values, test, correction, n_permutations, n_bootstrap,
                                 confidence, seed, boot)
    alpha = 1.0 - float(confidence)
    low, high = np.quantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    means = values.to_numpy(dtype=np.float64).mean(axis=0)
    order = np.argsort(-means, kind="stable")
    models = pd.DataFrame({
        "model": [values.columns[i] for i in order],
        "mean": means[order],
        "ci_low": low[order],
        "ci_high": high[order],
        "group": "",
        "users": len(values),
    })
    models["group"] = _letters(models, pairs)
    return ModelComparison(models, pairs, test, correction, float(confidence),
                           tuple(comparison_warnings(values)))


def _letters(models: pd.DataFrame, pairs: pd.DataFrame) -> list[str]:
    """The letter groups of the rows of a :class:`ModelComparison`'s model table."""
    groups = significance_groups(pd.Series(models["mean"].to_numpy(), index=models["model"]),
                                 pairs)
    return groups.reindex(models["model"]).tolist()


# --------------------------------------------------------------------------------------------
# Words


def p_text(p: float) -> str:
    """A p-value as every sentence of the product writes it: "p < 0.001" or "p = 0.042"."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _decimals(*numbers: float) -> int:
    largest = max(abs(x) for x in numbers)
    if largest == 0 or largest >= 0.01:
        return 3
    return min(8, 1 - math.floor(math.log10(largest)))


def _users(count: int) -> str:
    return f"{count} user" if count == 1 else f"{count:,} users"


def describe_pair(
    row: Mapping[str, TableValue] | pd.Series,
    metric_label: str = "NDCG@10",
    correction: str = "holm",
) -> str:
    """Plain-language sentences summing up a row of :func:`paired_comparison`.

    The sentences say no more than the test shows. A model is called better only when the
    difference of the means is significant after the correction; otherwise they say there is
    no real difference. They name the model with the higher mean first, give the difference of
    the means (higher minus lower) with its confidence interval and the corrected p-value
    (``p_corrected``), and how many users each model serves better, saying so when the model
    with the higher mean serves fewer users better. Numbers have 3 decimals, more for
    differences below 0.01.

    Parameters
    ----------
    row : pandas.Series or mapping
        A row of the comparison table (needs model_a, model_b, difference, ci_low, ci_high,
        p_corrected, significant, wins, ties, losses, users).
    metric_label : str
        The metric as shown to the reader, e.g. "NDCG@10".
    correction : {"holm", "bonferroni", "bh"}
        The correction the table was computed with.

    Examples
    --------
    >>> row = {"model_a": "Model A", "model_b": "Model B", "difference": 0.021,
    ...        "ci_low": 0.012, "ci_high": 0.030, "p_corrected": 0.003, "significant": True,
    ...        "wins": 612, "ties": 87, "losses": 401, "users": 1100}
    >>> describe_pair(row)  # doctest: +NORMALIZE_WHITESPACE
    'Model B is better than Model A on NDCG@10: its mean is higher by 0.021 [0.012, 0.030],
    significant after Holm correction (p = 0.003). Model B serves 612 users better, Model A
    401 (87 users the same).'
    >>> describe_pair({**row, "significant": False, "p_corrected": 0.217, "wins": 401,
    ...                "losses": 612})  # doctest: +NORMALIZE_WHITESPACE
    'No real difference between Model B and Model A on NDCG@10: Model B has the higher mean,
    by 0.021 [0.012, 0.030], which is not significant after Holm correction (p = 0.217).
    Higher mean, fewer users served better: Model B serves 401 users better, Model A 612
    (87 users the same).'
    """
    correction = check_choice("correction", correction, CORRECTIONS)
    needed = ("model_a", "model_b", "difference", "ci_low", "ci_high", "p_corrected",
              "significant", "wins", "ties", "losses")
    missing = [k for k in needed if k not in row]
    if missing:
        raise ValueError(
            f"The 'row' argument lacks {', '.join(missing)}; pass a row of the table of "
            "paired_comparison."
        )
    diff, low, high = float(row["difference"]), float(row["ci_low"]), float(row["ci_high"])
    wins, ties, losses = int(row["wins"]), int(row["ties"]), int(row["losses"])
    p = f"{p_text(float(row['p_corrected']))}"
    name = CORRECTION_NAMES[correction]
    if wins == 0 and losses == 0:
        return (
            f"{row['model_b']} and {row['model_a']} give the same {metric_label} for all "
            f"{_users(ties)}; there is no difference to test ({p} after {name} correction)."
        )
    # The model with the higher mean first; the difference is higher minus lower.
    if diff >= 0:
        high_model, low_model, more, fewer = row["model_b"], row["model_a"], wins, losses
    else:
        high_model, low_model, more, fewer = row["model_a"], row["model_b"], losses, wins
        diff, low, high = -diff, -high, -low
    places = _decimals(diff, low, high)
    gap = f"{diff:.{places}f} [{low:.{places}f}, {high:.{places}f}]"
    served = (f"{high_model} serves {_users(more)} better, {low_model} {fewer:,} "
              f"({_users(ties)} the same).")
    if diff == 0:
        return (f"No real difference between {high_model} and {low_model} on {metric_label}: "
                f"their means are equal ({p} after {name} correction). {served}")
    if not bool(row["significant"]):
        fewer_served = "Higher mean, fewer users served better: " if more < fewer else ""
        return (f"No real difference between {high_model} and {low_model} on {metric_label}: "
                f"{high_model} has the higher mean, by {gap}, which is not significant after "
                f"{name} correction ({p}). {fewer_served}{served}")
    if more < fewer:
        return (f"{high_model} has a significantly higher mean {metric_label} than "
                f"{low_model}, by {gap} ({name} correction, {p}), but serves fewer users "
                f"better: its lead comes from large gains for fewer users. {served}")
    return (f"{high_model} is better than {low_model} on {metric_label}: its mean is higher "
            f"by {gap}, significant after {name} correction ({p}). {served}")


def comparison_warnings(values: pd.DataFrame) -> list[str]:
    """Caveats about comparing models on these per-user values, as sentences to show.

    Checks, in this order:

    - fewer than 10 users: no test is meaningful; fewer than 30: the t-test's normal
      approximation is rough (prefer the randomization test);
    - duplicate user ids in the index;
    - a model with the same value for every user (often a model that returned nothing);
    - a pair whose per-user values are all equal (p = 1, nothing to compare), or that differ
      for fewer than 10 users (the Wilcoxon test drops the others), or that differ by the
      same amount for every user (effect size reported as 0).

    Parameters
    ----------
    values : pandas.DataFrame
        As for :func:`paired_comparison`; invalid tables raise the same DataError.

    Returns
    -------
    list of str
        The warnings; empty when there is nothing to say.

    Examples
    --------
    >>> comparison_warnings(pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.1, 0.2, 0.3]}))[0]
    'Only 3 users: with fewer than 10 users significance tests are not meaningful.'
    """
    array = _check_values(values)
    n_users = array.shape[0]
    models = list(values.columns)
    messages = []
    if n_users < MIN_USERS:
        messages.append(
            f"Only {n_users} users: with fewer than {MIN_USERS} users significance tests are "
            "not meaningful."
        )
    elif n_users < MIN_USERS_T:
        messages.append(
            f"Only {n_users} users: with fewer than {MIN_USERS_T} users the t-test's normal "
            "approximation is rough; the randomization test is safer."
        )
    if not values.index.is_unique:
        duplicated = values.index[values.index.duplicated()]
        messages.append(
            f"{len(duplicated)} user id(s) appear more than once (e.g. {plain(duplicated[0])!r}); "
            "each user should be one row."
        )
    for k, model in enumerate(models):
        if (array[:, k] == array[0, k]).all():
            messages.append(
                f"Model {model!r} has the same value ({array[0, k]:g}) for every user; check "
                "that its results were loaded correctly."
            )
    for a, b in combinations(range(len(models)), 2):
        diffs = array[:, b] - array[:, a]
        differing = int(np.count_nonzero(diffs))
        pair = f"{models[a]!r} and {models[b]!r}"
        if differing == 0:
            messages.append(
                f"Models {pair} have the same value for every user: there is no difference "
                "to test (p = 1)."
            )
        elif differing < MIN_USERS:
            messages.append(
                f"Models {pair} differ for only {_users(differing)}; the tests have little "
                "to go on (the Wilcoxon test drops users without a difference)."
            )
        elif _standard_deviation_is_zero(diffs, float(diffs.std(ddof=1))):
            messages.append(
                f"Models {pair} differ by the same amount ({diffs[0]:+g}) for every user; the "
                "effect size is reported as 0."
            )
    return messages
