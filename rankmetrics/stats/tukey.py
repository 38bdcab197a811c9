"""Tukey's honestly significant difference for every pair of models at once: the randomized,
paired form that information-retrieval studies use, and the classic, unpaired form.

Both control the chance of any false "significant" among all the pairs themselves, so no
further correction applies to their p-values.

- :func:`randomized_tukey_pvalues` (``test="tukey"``): each user's values are shuffled among
  the models at random, many times; a pair's p-value is the share of shuffles whose range of
  model means (highest minus lowest) is at least the pair's observed difference (Carterette,
  2012, "Multiple testing in statistical analysis of systems-based information retrieval
  experiments"; Sakai, 2014). It keeps each user's values together, as the paired tests do.
- :func:`unpaired_tukey_pvalues` (``test="tukey_unpaired"``): the classic Tukey-Kramer test on
  the studentized range, with the models as independent groups (``scipy.stats.tukey_hsd``),
  which is what ranx runs for its ``"tukey"`` test.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations

import numpy as np

# Entries (users x models) of one chunk of shuffles (32 MiB as float64).
_CHUNK_ENTRIES = 2**22
# With at most this many models every ordering of a user's values is listed, and a shuffle
# draws one ordering per user (6! = 720 orderings).
_LISTED_ORDERINGS = 6


def pair_indices(n_models: int) -> list[tuple[int, int]]:
    """The pairs (a, b), a < b, in the order of the comparison table."""
    return list(combinations(range(n_models), 2))


def randomized_tukey_pvalues(values: np.ndarray, n_permutations: int,
                             rng: np.random.Generator) -> np.ndarray:
    """Randomized Tukey HSD p-values of every pair of columns of ``values`` (n users x m
    models), in :func:`pair_indices` order.

    Each of ``n_permutations`` shuffles reorders every user's m values at random (each of the
    m! orderings equally likely, independently for each user), and takes the range of the
    shuffled column means. A pair's p-value is
    :math:`(1 + \\#\\{\\text{shuffles}: \\text{range} \\ge |\\bar x_a - \\bar x_b|\\}) /
    (1 + \\text{n\\_permutations})`, counting the observed assignment among the shuffles as the
    randomization test does. Ranges equal to the observed difference up to rounding (m * n *
    eps of the sum of absolute values) count as "as extreme", so exact ties on a grid count.
    """
    x = np.asarray(values, dtype=np.float64)
    n, m = x.shape
    pairs = pair_indices(m)
    means = x.mean(axis=0)
    observed = np.array([abs(means[a] - means[b]) for a, b in pairs])
    tolerance = (m * n * np.finfo(np.float64).eps * np.abs(x).sum(axis=0).max() / n
                 if n else 0.0)
    threshold = observed - tolerance
    ranges = _shuffled_ranges(x, n_permutations, rng)
    extreme = (ranges[:, None] >= threshold[None, :]).sum(axis=0)
    return (extreme + 1) / (n_permutations + 1)


def _shuffled_ranges(x: np.ndarray, n_permutations: int, rng: np.random.Generator
                     ) -> np.ndarray:
    """The range of the column means after each of ``n_permutations`` shuffles of every
    row."""
    n, m = x.shape
    ranges = np.empty(n_permutations)
    chunk = max(1, _CHUNK_ENTRIES // max(1, n * m))
    rows = np.arange(n)[None, :, None]
    orderings = (np.array(list(permutations(range(m))), dtype=np.intp)
                 if m <= _LISTED_ORDERINGS else None)
    for start in range(0, n_permutations, chunk):
        size = min(chunk, n_permutations - start)
        if orderings is not None:
            chosen = orderings[rng.integers(0, len(orderings), size=(size, n))]
        else:
            chosen = np.argsort(rng.random((size, n, m)), axis=2)
        sums = x[rows, chosen].sum(axis=1)  # (size, m): the shuffled column sums
        ranges[start:start + size] = (sums.max(axis=1) - sums.min(axis=1)) / n
    return ranges


def unpaired_tukey_pvalues(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The classic Tukey-Kramer test of every pair of columns, as independent groups
    (``scipy.stats.tukey_hsd``): the statistics (difference of means, b minus a) and
    p-values, in :func:`pair_indices` order."""
    from scipy import stats as _sps

    x = np.asarray(values, dtype=np.float64)
    result = _sps.tukey_hsd(*(x[:, j] for j in range(x.shape[1])))
    pairs = pair_indices(x.shape[1])
    statistic = np.array([result.statistic[b, a] for a, b in pairs])
    p_values = np.array([result.pvalue[a, b] for a, b in pairs])
    return statistic, p_values


def tukey_by_column(by_model: Sequence[np.ndarray], test: str, n_permutations: int,
                    seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Tukey's HSD of every pair of models at each column (a cutoff, say): ``by_model`` holds
    each model's values (users x columns); the differences of the means (b minus a) and the
    p-values, pairs x columns. The randomized test (``test="tukey"``) draws each column's shuffles
    afresh from the stream :func:`~rankmetrics.stats.paired_comparison` uses, so each
    column's p-values are that function's on the column alone; ``"tukey_unpaired"`` is
    :func:`unpaired_tukey_pvalues`."""
    values = np.stack(list(by_model), axis=1)  # users x models x columns
    n_models, n_columns = values.shape[1], values.shape[2]
    pairs = pair_indices(n_models)
    statistic = np.empty((len(pairs), n_columns))
    p_value = np.empty((len(pairs), n_columns))
    for k in range(n_columns):
        x = values[:, :, k]
        means = x.mean(axis=0)
        statistic[:, k] = [means[b] - means[a] for a, b in pairs]
        if test == "tukey":
            stream = np.random.SeedSequence(seed).spawn(1)[0]
            p_value[:, k] = randomized_tukey_pvalues(x, n_permutations,
                                                     np.random.default_rng(stream))
        else:
            _, p_value[:, k] = unpaired_tukey_pvalues(x)
    return statistic, p_value
