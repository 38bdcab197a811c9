"""Significance at every cutoff at once: which K separates the models, and which K cannot.

The Significance page tests models at one K (:func:`rankmetrics.stats.compare_models`). Doing
that at each of 100 cutoffs one by one would compute the per-user values 100 times; here they
are computed once for every cutoff, a block of users at a time, on the users every model
counts (as :meth:`~rankmetrics.evaluation.Evaluation.paired` gives them), and the tests give the
same p-values as the single-K path. On a saved evaluation the same functions test at its saved
cutoffs, from the per-user values it holds:

- paired t-test: the mean and variance of each pair's per-user differences at every K are
  combined over blocks of users (Chan's formulas, exact to rounding), then
  :math:`t = \\bar d / (s_d / \\sqrt n)` with n - 1 degrees of freedom, as
  ``scipy.stats.ttest_rel``;
- Wilcoxon signed-rank: the same test as ``scipy.stats.wilcoxon`` on each cutoff's per-user
  differences with their ties restored (scipy itself for at most 50 users, its normal
  approximation computed for every cutoff at once for more);
- randomization: every pair at every cutoff is one column of the same random sign flips,
  drawn from the stream :func:`~rankmetrics.stats.paired_comparison` draws from with the same
  seed, so each p-value is exactly the single-K one;
- Tukey's HSD, randomized or unpaired (:func:`~rankmetrics.stats.tukey.tukey_by_column`):
  each cutoff on its own, from the same stream, so each p-value is the single-K one.

The multiple-comparison correction is applied at each K over that K's pairs, as on the
Significance page (not to Tukey's tests, which cover every pair at once). The module is
longer than 600 lines because the five tests share one pass over the users and one table.
"Significantly best" follows :meth:`ModelComparison.leaders
<rankmetrics.stats.ModelComparison.leaders>` at each K.

Equal values are equal as in :func:`~rankmetrics.stats.paired_comparison`: per-user
differences within 1e-12 of the larger absolute per-user value of the pair at that K are 0,
differences that close to each other share one Wilcoxon rank, and means within 1e-12 of the
largest mean at that K are equal (:func:`~rankmetrics.stats.restore_ties`). So precision@3's
``1 - 2/3`` and ``1/3 - 0`` are one tie, as in exact arithmetic.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int, check_optional_int, check_probability
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.results import EvaluationResults
from rankmetrics.stats import (
    CORRECTIONS,
    FAMILY_TESTS,
    TESTS,
    correct_pvalues,
    equality_tolerance,
    paired_differences,
    randomization_pvalues,
    restore_ties,
)
from rankmetrics.stats.tukey import tukey_by_column

TEST_COLUMNS = ["cutoff", "model_a", "model_b", "mean_a", "mean_b", "difference", "statistic",
                "p_value", "p_corrected", "significant", "users"]


def _cutoffs(ev: EvaluationResults, cutoffs: Iterable[int] | None) -> list[int]:
    """The cutoffs to test at: ``cutoffs`` checked, or every cutoff with per-user values."""
    if cutoffs is None:
        return list(ev.per_user_cutoffs)
    chosen = sorted({check_int("cutoff", k, high=ev.max_cutoff) for k in cutoffs})
    if not chosen:
        raise ValueError("Give at least one cutoff.")
    return chosen


def _paired_values(ev: EvaluationResults, metrics: Sequence[str], cutoffs: list[int]
                   ) -> dict[str, dict[str, np.ndarray]]:
    parts: dict[str, dict[str, list[np.ndarray]]] = {
        metric: {model: [] for model in ev.models} for metric in metrics}
    for block in ev.paired_blocks(metrics, cutoffs):
        for metric, by_model in block.items():
            for model, values in by_model.items():
                parts[metric][model].append(values)
    return {metric: {model: (np.concatenate(values) if values
                             else np.zeros((0, len(cutoffs))))
                     for model, values in by_model.items()}
            for metric, by_model in parts.items()}


def paired_values(ev: EvaluationResults, metric: str, cutoffs: Iterable[int] | None = None
                  ) -> dict[str, np.ndarray]:
    """Model -> (paired users x cutoffs) per-user values, in the order of ``ev.users``
    (column j of model m equals ``ev.paired(metric, cutoffs[j])[m]``)."""
    (metric,) = check_metrics([metric])
    return _paired_values(ev, [metric], _cutoffs(ev, cutoffs))[metric]


def _pairs(models: Sequence[str]) -> list[tuple[int, int]]:
    return list(combinations(range(len(models)), 2))


@dataclass
class _Moments:
    """Running moments of one metric over blocks of users: the sum and the largest absolute
    value of each model's values and, per pair, the mean, the sum of squared deviations
    (Chan's formulas combine the blocks, exact to rounding) and the largest absolute value of
    the differences."""

    model_sums: np.ndarray
    mean: np.ndarray
    squares: np.ndarray
    largest_value: np.ndarray
    largest_difference: np.ndarray

    def add(self, values: list[np.ndarray], pairs: list[tuple[int, int]], seen: int) -> None:
        size = len(values[0])
        for index, model_values in enumerate(values):
            self.model_sums[index] += model_values.sum(axis=0)
            np.maximum(self.largest_value[index], np.abs(model_values).max(axis=0, initial=0.0),
                       out=self.largest_value[index])
        total = seen + size
        for index, (a, b) in enumerate(pairs):
            diffs = values[b] - values[a]
            np.maximum(self.largest_difference[index], np.abs(diffs).max(axis=0, initial=0.0),
                       out=self.largest_difference[index])
            block_sum = diffs.sum(axis=0)
            block_mean = block_sum / size
            # Within a block of a few thousand users, sum(d^2) - sum(d)^2 / n loses digits
            # only when the mean difference dwarfs its spread (then p is ~0 either way).
            block_squares = np.maximum(np.einsum("ij,ij->j", diffs, diffs)
                                       - block_sum * block_mean, 0.0)
            delta = block_mean - self.mean[index]
            self.squares[index] += block_squares + delta**2 * seen * size / total
            self.mean[index] += delta * size / total


def _moments(ev: EvaluationResults, metrics: Sequence[str], cutoffs: list[int],
             models: Sequence[str] | None = None) -> tuple[int, dict[str, _Moments]]:
    """The users every model counts, and each metric's moments over them (of ``models``,
    default every model)."""
    models = list(models or ev.models)
    pairs = _pairs(models)
    shape = (len(pairs), len(cutoffs))
    found = {metric: _Moments(np.zeros((len(models), len(cutoffs))), np.zeros(shape),
                              np.zeros(shape), np.zeros((len(models), len(cutoffs))),
                              np.zeros(shape)) for metric in metrics}
    n = 0
    for block in ev.paired_blocks(metrics, cutoffs, models):
        size = 0
        for metric, by_model in block.items():
            values = [by_model[model] for model in models]
            found[metric].add(values, pairs, n)
            size = len(values[0])
        n += size
    return n, found


def _t_tests(mean: np.ndarray, squares: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Paired t statistics and two-sided p-values from each column's mean and sum of squared
    deviations, as ``scipy.stats.ttest_rel``."""
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    with np.errstate(divide="ignore", invalid="ignore"):
        standard_error = np.sqrt(squares / (n - 1) / n)
        statistic = mean / standard_error
    p_value = 2 * _sps.t.sf(np.abs(statistic), n - 1)
    return statistic, p_value


#: Above this many users, scipy's Wilcoxon test uses its normal approximation (with
#: ``method="auto"``), which :func:`_wilcoxon_normal` computes for many cutoffs at once.
WILCOXON_EXACT_USERS = 50


def _wilcoxon(values: dict[str, np.ndarray], models: Sequence[str]
              ) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank statistic and p-value of each pair (rows) at each cutoff
    (columns), as ``scipy.stats.wilcoxon(d, zero_method="wilcox")`` gives them one cutoff
    at a time on the differences with their ties restored
    (:func:`~rankmetrics.stats.paired_differences`): its normal approximation above
    :data:`WILCOXON_EXACT_USERS` users, scipy itself, cutoff by cutoff, for fewer (exact or
    permutation distributions)."""
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    pairs = _pairs(models)
    n_users, n_cutoffs = values[models[0]].shape
    statistic = np.empty((len(pairs), n_cutoffs))
    p_value = np.empty_like(statistic)
    for index, (a, b) in enumerate(pairs):
        diffs = paired_differences(values[models[b]], values[models[a]])
        if n_users > WILCOXON_EXACT_USERS:
            statistic[index], p_value[index] = _wilcoxon_normal(diffs)
            continue
        for column in range(n_cutoffs):
            if not diffs[:, column].any():
                statistic[index, column], p_value[index, column] = 0.0, 1.0
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                result = _sps.wilcoxon(diffs[:, column], zero_method="wilcox")
            statistic[index, column], p_value[index, column] = result.statistic, result.pvalue
    return statistic, p_value


def _wilcoxon_normal(diffs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The two-sided Wilcoxon signed-rank test of each column of ``diffs`` (users x
    cutoffs, their ties restored: :func:`~rankmetrics.stats.paired_differences`) by the
    normal approximation, as scipy computes it: users with no difference are
    dropped, the n others ranked by :math:`|d|` (tied values share their average rank),
    :math:`R_+` is the sum of the ranks of the positive differences,
    :math:`z = (R_+ - n(n+1)/4) / \sqrt{(n(n+1)(2n+1) - \sum (t^3 - t)/2) / 24}` over
    the groups of t tied values, :math:`p = 2\,\Phi(-|z|)`; the statistic is
    :math:`\min(R_+, R_-)`.

    Each column is sorted once (and its positive differences once), and the ranks are
    counted per distinct value, without ranking every user."""
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    magnitude = np.sort(np.abs(diffs), axis=0)
    positive = np.sort(np.where(diffs > 0, diffs, np.inf), axis=0)
    statistic = np.zeros(diffs.shape[1])
    p_value = np.ones(diffs.shape[1])
    for column in range(diffs.shape[1]):
        sorted_values = magnitude[:, column]
        values = sorted_values[np.searchsorted(sorted_values, 0.0, side="right"):]
        n = len(values)
        if n == 0:
            continue
        starts = np.concatenate([[0], np.flatnonzero(values[1:] != values[:-1]) + 1])
        counts = np.diff(np.append(starts, n)).astype(np.float64)
        distinct = values[starts]
        column_positive = positive[:, column]
        positives = (np.searchsorted(column_positive, distinct, side="right")
                     - np.searchsorted(column_positive, distinct, side="left"))
        average_rank = starts + (counts + 1.0) / 2.0
        r_plus = float(np.sum(positives * average_rank))
        r_minus = n * (n + 1.0) / 2.0 - r_plus
        spread = np.sqrt((n * (n + 1.0) * (2.0 * n + 1.0)
                          - np.sum(counts**3 - counts) / 2.0) / 24.0)
        z = (r_plus - n * (n + 1.0) * 0.25) / spread if spread > 0 else 0.0
        statistic[column] = min(r_plus, r_minus)
        p_value[column] = min(1.0, 2.0 * _sps.norm.sf(abs(z)))
    return statistic, p_value


def _randomization(values: dict[str, np.ndarray], models: Sequence[str], n_permutations: int,
                   seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    pairs = _pairs(models)
    n_cutoffs = values[models[0]].shape[1]
    diffs = np.concatenate([values[models[b]] - values[models[a]] for a, b in pairs], axis=1)
    stream = np.random.SeedSequence(seed).spawn(1)[0]  # paired_comparison's stream
    p_value = randomization_pvalues(diffs, n_permutations, np.random.default_rng(stream))
    return (diffs.mean(axis=0).reshape(len(pairs), n_cutoffs),
            p_value.reshape(len(pairs), n_cutoffs))


def significance_over_k(
    ev: EvaluationResults,
    metric: str,
    *,
    cutoffs: Iterable[int] | None = None,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Every pair of models tested at every cutoff with per-user values (or at ``cutoffs``;
    a saved evaluation's must be saved ones).

    The users are those every model counts; pairs are in the evaluation's model order, B
    compared with A (``difference = mean_b - mean_a``). ``statistic``, ``p_value`` and
    ``p_corrected`` equal those of :func:`rankmetrics.stats.paired_comparison` on
    ``ev.paired(metric, K)`` with the same test, correction and seed (t and Wilcoxon to
    about 1e-13; randomization exactly); the correction runs over each cutoff's pairs.

    Returns one row per cutoff and pair: ``cutoff, model_a, model_b, mean_a, mean_b,
    difference, statistic, p_value, p_corrected, significant, users``.
    """
    return significance_by_metric(ev, [metric], cutoffs=cutoffs, test=test,
                                  correction=correction, confidence=confidence,
                                  n_permutations=n_permutations, seed=seed)[metric]


def significance_by_metric(
    ev: EvaluationResults,
    metrics: Iterable[str],
    *,
    cutoffs: Iterable[int] | None = None,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> dict[str, pd.DataFrame]:
    """:func:`significance_over_k` for several metrics, their per-user values computed in one
    pass (metric -> table)."""
    metrics = check_metrics(list(metrics))
    test = check_choice("test", test, TESTS)
    correction = check_choice("correction", correction, CORRECTIONS)
    confidence = check_probability("confidence", confidence)
    n_permutations = check_int("n_permutations", n_permutations)
    seed = check_optional_int("seed", seed)
    if len(ev.models) < 2:
        raise ValueError("Testing models against each other needs at least 2 models.")
    for metric in metrics:
        if not METRICS[metric].has_cutoff:
            raise ValueError(f"The metric {metric!r} has no cutoff.")
    chosen = _cutoffs(ev, cutoffs)
    pairs = _pairs(ev.models)
    tables = {}
    if test == "t":
        n, moments = _moments(ev, metrics, chosen)
        _check_users(n)
        for metric, found in moments.items():
            statistic, p_value = _t_tests(found.mean, found.squares, n)
            all_zero = _all_zero(found.largest_difference, found.largest_value, pairs)
            tables[metric] = _finished(ev.models, pairs, chosen, found.model_sums / n,
                                       statistic, p_value, all_zero, n, correction, confidence)
        return tables
    for metric, values in _paired_values(ev, metrics, chosen).items():
        n = len(values[ev.models[0]])
        _check_users(n)
        means = np.array([values[model].mean(axis=0) for model in ev.models])
        largest = np.array([np.abs(values[model]).max(axis=0) for model in ev.models])
        all_zero = _all_zero(np.array([np.abs(values[ev.models[b]] - values[ev.models[a]])
                                       .max(axis=0) for a, b in pairs]), largest, pairs)
        if test == "wilcoxon":
            statistic, p_value = _wilcoxon(values, ev.models)
        elif test in FAMILY_TESTS:
            statistic, p_value = tukey_by_column([values[m] for m in ev.models], test,
                                                 n_permutations, seed)
        else:
            statistic, p_value = _randomization(values, ev.models, n_permutations, seed)
        tables[metric] = _finished(ev.models, pairs, chosen, means, statistic, p_value,
                                   all_zero, n, None if test in FAMILY_TESTS else correction,
                                   confidence)
    return tables


def _all_zero(largest_difference: np.ndarray, largest_value: np.ndarray,
              pairs: list[tuple[int, int]]) -> np.ndarray:
    """Whether every user's difference is 0 for each pair (rows) at each cutoff (columns),
    to the precision of :func:`~rankmetrics.stats.paired_differences`: the largest absolute
    difference is within the tolerance of the larger absolute value of either model."""
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    scale = np.maximum(largest_value[first], largest_value[second])
    return largest_difference <= equality_tolerance(scale)


def _check_users(n: int) -> None:
    if n < 2:
        raise ValueError(f"Only {n} user is counted by every model: paired tests need at "
                         "least 2.")


def _finished(models: Sequence[str], pairs: list[tuple[int, int]], cutoffs: list[int],
              means: np.ndarray, statistic: np.ndarray, p_value: np.ndarray,
              all_zero: np.ndarray, n: int, correction: str | None, confidence: float
              ) -> pd.DataFrame:
    """The table, with statistic 0 and p-value 1 where every user's difference is 0 (as
    :func:`rankmetrics.stats.paired_comparison` reports them, to the same precision)."""
    return _table(models, pairs, cutoffs, means, np.where(all_zero, 0.0, statistic),
                  np.where(all_zero, 1.0, p_value), n, correction, confidence)


def _table(models: Sequence[str], pairs: list[tuple[int, int]], cutoffs: list[int],
           means: np.ndarray, statistic: np.ndarray, p_value: np.ndarray, n: int,
           correction: str | None, confidence: float) -> pd.DataFrame:
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    corrected = p_value.copy() if correction is None else np.column_stack(  # None: Tukey's
        [correct_pvalues(p_value[:, k], correction) for k in range(len(cutoffs))])
    n_pairs, n_cutoffs = len(pairs), len(cutoffs)
    tied = restore_ties(means)  # models x cutoffs: each cutoff's means compared
    difference = np.where(tied[second] == tied[first], 0.0, means[second] - means[first])
    table = pd.DataFrame({
        "cutoff": np.tile(cutoffs, n_pairs),
        "model_a": np.repeat([models[a] for a in first], n_cutoffs),
        "model_b": np.repeat([models[b] for b in second], n_cutoffs),
        "mean_a": means[first].ravel(),
        "mean_b": means[second].ravel(),
        "difference": difference.ravel(),
        "statistic": statistic.ravel(),
        "p_value": p_value.ravel(),
        "p_corrected": corrected.ravel(),
        "significant": (corrected < 1.0 - confidence).ravel(),
        "users": n,
    })
    return table.sort_values(["cutoff"], kind="stable").reset_index(drop=True)


def discriminative_power(tests: pd.DataFrame) -> pd.DataFrame:
    """Per cutoff: how many pairs were tested, how many differ significantly, and the share.

    >>> tests = pd.DataFrame({"cutoff": [1, 1, 2, 2], "significant": [True, False, True, True],
    ...                       "p_corrected": [0.01, 0.2, 0.01, 0.03]})
    >>> power = discriminative_power(tests)
    >>> power["significant_pairs"].tolist(), power["share"].tolist()
    ([1, 2], [0.5, 1.0])
    """
    grouped = tests.groupby("cutoff", sort=True)
    table = pd.DataFrame({
        "pairs": grouped.size(),
        "significant_pairs": grouped["significant"].sum().astype(int),
        "largest_p_corrected": grouped["p_corrected"].max(),
    })
    table["share"] = table["significant_pairs"] / table["pairs"]
    return table.reset_index()


def leaders_over_k(tests: pd.DataFrame) -> pd.DataFrame:
    """Per cutoff: the model with the highest mean (on the paired users), the models the
    data cannot tell apart from it, and whether it is significantly best.

    The rule is :meth:`ModelComparison.leaders <rankmetrics.stats.ModelComparison.leaders>`'s
    (a test checks that they agree at every cutoff), applied to all cutoffs in one pass
    instead of building a comparison per cutoff: the best model is the first of the highest
    mean (model order breaks ties); another model shares the top spot unless its paired test
    against the best is significant and its mean is lower. Means within 1e-12 of the largest
    mean at that cutoff are equal (:func:`~rankmetrics.stats.restore_ties`), as in
    :func:`~rankmetrics.stats.compare_models`.

    Returns ``cutoff, best, leaders (list, best first, then by mean), significantly_best``.
    """
    means: dict[int, dict[Hashable, float]] = {}
    verdict: dict[int, dict[frozenset, bool]] = {}
    for cutoff, a, b, mean_a, mean_b, significant in zip(
            tests["cutoff"], tests["model_a"], tests["model_b"], tests["mean_a"],
            tests["mean_b"], tests["significant"], strict=True):
        at = means.setdefault(int(cutoff), {})
        at.setdefault(a, float(mean_a))
        at.setdefault(b, float(mean_b))
        verdict.setdefault(int(cutoff), {})[frozenset((a, b))] = bool(significant)
    rows = []
    for cutoff in sorted(means):
        tied = dict(zip(means[cutoff], restore_ties(list(means[cutoff].values())).tolist(),
                        strict=True))
        order = sorted(tied, key=lambda model: -tied[model])  # stable: model order breaks ties
        best = order[0]
        leaders = [best] + [other for other in order[1:]
                            if not verdict[cutoff][frozenset((best, other))]
                            or tied[other] >= tied[best]]
        rows.append((cutoff, best, leaders, len(leaders) == 1 and len(order) > 1))
    return pd.DataFrame(rows, columns=["cutoff", "best", "leaders", "significantly_best"])


def difference_band(
    ev: EvaluationResults,
    metric: str,
    model_a: str,
    model_b: str,
    *,
    cutoffs: Iterable[int] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """The difference ``model_b - model_a`` at every cutoff with its confidence interval, on
    the users every model counts.

    The interval is the paired t-test's: :math:`\\bar d \\pm t_{1 - \\alpha/2, n - 1} \\,
    s_d / \\sqrt n`, as ``scipy.stats.ttest_rel(b, a).confidence_interval(confidence)``
    (a test checks it at every K); it excludes 0 exactly where the two-sided t-test of this
    pair alone rejects at level 1 - confidence.

    Returns ``cutoff, difference, ci_low, ci_high``.
    """
    (metric,) = check_metrics([metric])
    confidence = check_probability("confidence", confidence)
    for name, model in (("model_a", model_a), ("model_b", model_b)):
        if model not in ev.models:
            raise ValueError(f"The {name!r} argument names {model!r}, which is not a model of "
                             f"the evaluation ({', '.join(ev.models)}).")
    if model_a == model_b:
        raise ValueError(f"Choose two different models; both are {model_a!r}.")
    chosen = _cutoffs(ev, cutoffs)
    n, moments = _moments(ev, [metric], chosen, [model_a, model_b])
    found = moments[metric]
    return _band(chosen, n, found.mean[0], found.squares[0], confidence)


def difference_band_of(differences: np.ndarray, cutoffs: Sequence[int], *,
                       confidence: float = 0.95) -> pd.DataFrame:
    """:func:`difference_band` from the per-user differences B - A at hand: one row per
    paired user, one column per cutoff of ``cutoffs``.

    Returns ``cutoff, difference, ci_low, ci_high``.

    >>> band = difference_band_of(np.array([[0.0], [0.25], [0.5]]), [5], confidence=0.95)
    >>> int(band["cutoff"].iloc[0]), float(band["difference"].iloc[0])
    (5, 0.25)
    """
    confidence = check_probability("confidence", confidence)
    differences = np.asarray(differences, dtype=np.float64)
    if differences.ndim != 2 or differences.shape[1] != len(cutoffs):
        raise ValueError(f"The 'differences' argument needs one column per cutoff "
                         f"({len(cutoffs)}); got an array of shape {differences.shape}.")
    mean = differences.mean(axis=0) if len(differences) else np.zeros(len(cutoffs))
    squares = ((differences - mean) ** 2).sum(axis=0)
    return _band(list(cutoffs), len(differences), mean, squares, confidence)


def _band(cutoffs: list[int], n: int, mean: np.ndarray, squares: np.ndarray,
          confidence: float) -> pd.DataFrame:
    """The paired t interval of the mean difference at each cutoff, from the n users' mean
    and sum of squared deviations."""
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    _check_users(n)
    half = _sps.t.ppf(0.5 + confidence / 2, n - 1) * np.sqrt(squares / (n - 1) / n)
    return pd.DataFrame({"cutoff": cutoffs, "difference": mean, "ci_low": mean - half,
                         "ci_high": mean + half})


def winner_map(
    evaluations: Mapping[str, EvaluationResults],
    metrics: dict[str, str],
    *,
    cutoffs: Iterable[int] | None = None,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """The best model at each cutoff for each row of a map, and whether it is significantly
    best.

    Each row is named by a key of ``evaluations`` (for example one evaluation per relevance
    threshold, or the same evaluation under several names) and tested on the metric
    ``metrics[row]``. Returns ``row, cutoff, best, leaders, significantly_best``, rows in the
    order given.
    """
    return winners({row: significance_over_k(ev, metrics[row], cutoffs=cutoffs, test=test,
                                             correction=correction, confidence=confidence,
                                             n_permutations=n_permutations, seed=seed)
                    for row, ev in evaluations.items()})


def winners(tests_by_row: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The rows of a winner map from each row's tests over K (tables of
    :func:`significance_over_k`, or of a saved evaluation's tests at its cutoffs):
    :func:`leaders_over_k` of each, rows in the order given.

    Returns ``row, cutoff, best, leaders, significantly_best``.
    """
    table = pd.concat([leaders_over_k(tests).assign(row=row)
                       for row, tests in tests_by_row.items()], ignore_index=True)
    return table[["row", "cutoff", "best", "leaders", "significantly_best"]]


def cutoff_table(
    ev: EvaluationResults,
    metrics: Iterable[str],
    cutoffs: Iterable[int],
    *,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Every model and metric at several cutoffs side by side (the CLI's ``--cutoffs``), with
    the best model of each column marked only where it is significantly best.

    ``value`` is each model's mean over its own counted users (as on the Compare page and
    in :meth:`Evaluation.summary`), at any cutoff up to the largest K; ``significantly_best``
    comes from the paired tests on the users every model counts (:func:`leaders_over_k`), run
    at the cutoffs with per-user values (a saved evaluation's saved cutoffs: a column at
    another K is marked nowhere), and is false everywhere when fewer than 2 users or models
    leave nothing to test.

    Returns ``model, metric, cutoff, value, significantly_best``.
    """
    metrics = check_metrics(list(metrics))
    chosen = _cutoffs(ev, cutoffs)
    summary = ev.summary(metrics, chosen)
    tested = ev.cutoffs_with_values(chosen)
    testable = len(ev.models) >= 2 and bool(tested) and int(ev.paired_mask().sum()) >= 2
    with_cutoff = [metric for metric in metrics if METRICS[metric].has_cutoff]
    by_metric = significance_by_metric(
        ev, with_cutoff, cutoffs=tested, test=test, correction=correction,
        confidence=confidence, n_permutations=n_permutations, seed=seed,
    ) if testable and with_cutoff else {}
    return marked_best(summary, by_metric)


def marked_best(summary: pd.DataFrame, tests_by_metric: Mapping[str, pd.DataFrame]
                ) -> pd.DataFrame:
    """The table of :func:`cutoff_table` from its means (``model, metric, cutoff, value``)
    and each metric's tests at those cutoffs (metric -> a table of
    :func:`significance_over_k`; a metric or cutoff without tests is marked nowhere).

    Returns ``model, metric, cutoff, value, significantly_best``.
    """
    summary = summary.loc[summary["cutoff"].notna()].copy()
    summary["cutoff"] = summary["cutoff"].astype(int)
    marks = []
    for metric, tests in tests_by_metric.items():
        leaders = leaders_over_k(tests)
        best = leaders.loc[leaders["significantly_best"], ["cutoff", "best"]]
        marks.append(best.rename(columns={"best": "model"}).assign(metric=metric))
    table = summary[["model", "metric", "cutoff", "value"]]
    if marks:
        marked = pd.concat(marks).assign(significantly_best=True)
        table = table.merge(marked, on=["model", "metric", "cutoff"], how="left")
        table["significantly_best"] = table["significantly_best"].astype("boolean").fillna(False)
        table["significantly_best"] = table["significantly_best"].astype(bool)
    else:
        table = table.assign(significantly_best=False)
    return table.reset_index(drop=True)
