"""Paired significance tests of every pair of models: t-test, Wilcoxon signed-rank test or
sign-flip randomization test, with a bootstrap interval of the mean difference, an effect
size, win / tie / loss counts and a multiple-comparison correction."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int, check_optional_int, check_probability
from rankmetrics.stats.bootstrap import seeded_bootstrap_means
from rankmetrics.stats.corrections import CORRECTIONS, correct_pvalues
from rankmetrics.stats.power import effect_size
from rankmetrics.stats.randomization import randomization_pvalues
from rankmetrics.stats.tukey import randomized_tukey_pvalues, unpaired_tukey_pvalues
from rankmetrics.stats.values import paired_differences, per_user_array, restore_ties

TESTS = ("t", "wilcoxon", "randomization", "tukey", "tukey_unpaired")
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "randomization test",
              "tukey": "randomized Tukey HSD test",
              "tukey_unpaired": "Tukey HSD test (unpaired, as ranx)"}
#: The tests of every pair at once: they bound the chance of any false "significant" among
#: all the pairs themselves, so no correction is applied to their p-values.
FAMILY_TESTS = ("tukey", "tukey_unpaired")
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
    "tukey": "Tests every pair at once: shuffles, many times, each user's values among the "
    "models, and counts how often chance alone spreads the models' means as far apart as a "
    "pair's real difference. It needs no correction for many pairs.",
    "tukey_unpaired": "Tests every pair at once on the spread of the means, treating the "
    "models' values as unrelated groups (it ignores that the same users rate every model), "
    "as ranx does. It needs no correction for many pairs.",
}

COMPARISON_COLUMNS = (
    "model_a", "model_b", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
    "effect_size", "effect_low", "effect_high", "statistic", "p_value", "p_corrected",
    "significant",
    "wins", "ties", "losses", "users",
)


def standard_deviation_is_zero(diffs: np.ndarray, sd: float) -> bool:
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

    - ``difference`` :math:`\bar d = \bar x_B - \bar x_A`, exactly 0 when the two means are
      equal (see *Equal values* below);
    - ``ci_low``, ``ci_high``: percentile bootstrap interval of :math:`\bar d` at level
      ``confidence`` (users resampled with replacement, the same resamples for every pair; see
      :func:`bootstrap_ci`: the interval equals ``bootstrap_ci(d)``'s with the same seed);
    - ``effect_size`` :math:`\bar d / s_d` with :math:`s_d` the sample standard deviation
      (ddof = 1) of the differences (Cohen's :math:`d_z`); 0 when :math:`s_d = 0` up to
      rounding (all users differ by the same amount) and when every difference is 0;
      ``effect_low``, ``effect_high``: its interval at level ``confidence``
      (:func:`~rankmetrics.stats.power.effect_size`: the delta method's standard error,
      which allows for skewed and heavy-tailed differences);
    - ``statistic`` and ``p_value`` of the two-sided ``test``:

      * ``"t"``: paired t-test, ``scipy.stats.ttest_rel(x_B, x_A)``;
        statistic :math:`t = \bar d / (s_d / \sqrt n)`, n - 1 degrees of freedom;
      * ``"wilcoxon"``: Wilcoxon signed-rank test, ``scipy.stats.wilcoxon(d)`` on the
        differences with their ties restored, with scipy's defaults: ``zero_method="wilcox"``
        (users with :math:`d_u = 0` are dropped before ranking) and ``method="auto"`` (for
        at most 50 users, the exact distribution without ties or zeros and a permutation or
        normal approximation with them; the normal approximation for more). Statistic: the
        smaller of the rank sums of the positive and of the negative differences;
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

      * ``"tukey"``: randomized Tukey HSD test of every pair at once
        (:func:`~rankmetrics.stats.tukey.randomized_tukey_pvalues`): each of
        ``n_permutations`` shuffles reorders every user's values among the models; a pair's
        p-value is the share of shuffles whose range of means reaches the pair's difference.
        Statistic: :math:`\bar d`;
      * ``"tukey_unpaired"``: the classic Tukey-Kramer test with the models as independent
        groups, ``scipy.stats.tukey_hsd`` (ranx's ``"tukey"``). Statistic: :math:`\bar d`.

      The Tukey tests bound the chance of any false "significant" among all the pairs
      themselves: their ``p_corrected`` is the p-value, whatever the correction.
      When all differences are 0 the statistic is 0 and the p-value 1 for every test.
    - ``p_corrected``: ``p_value`` adjusted over all the pairs of the table with
      :func:`correct_pvalues`; ``significant``: ``p_corrected < 1 - confidence``;
    - ``wins``, ``ties``, ``losses``: users with :math:`x_B > x_A`, :math:`=`, :math:`<`;
      ``users``: n.

    Equal values: per-user values, differences and means equal in exact arithmetic can be
    different floats (with K = 3, ``1 - 2/3`` and ``1/3 - 0`` differ in the last bit). The
    differences are compared at a relative precision of 1e-12 of the larger absolute per-user
    value of the pair, and the means at 1e-12 of the largest mean
    (:func:`~rankmetrics.stats.values.restore_ties`): a difference that close to 0 is 0 (a
    tie, dropped by the Wilcoxon test), differences that close to each other share one
    Wilcoxon rank, and means that close are equal. Differences already distinct by more
    (every difference exactly representable) are ranked as scipy ranks them. The t-test,
    effect size, interval and randomization test use the differences as computed, unless
    every one of them is 0.

    Parameters
    ----------
    values : pandas.DataFrame
        Index: user ids; one float column per model (at least 2), no NaN.
    test : {"t", "wilcoxon", "randomization", "tukey", "tukey_unpaired"}
        The test.
    correction : {"holm", "bonferroni", "bh"}
        Multiple-comparison correction over the pairs.
    n_permutations : int
        Random sign flips of the randomization test, or shuffles of the randomized Tukey
        test (ignored by the others).
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
    table, _ = compare_pairs(values, test, correction, n_permutations, n_bootstrap,
                              confidence, seed)
    return table


def compare_pairs(
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
    array = per_user_array(values)
    n_users = array.shape[0]
    models = list(values.columns)
    pairs = list(combinations(range(len(models)), 2))
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    diffs = array[:, second] - array[:, first]
    tied = paired_differences(array[:, second], array[:, first])
    means = array.mean(axis=0)
    tied_means = restore_ties(means)

    alpha = 1.0 - confidence
    if boot is None:
        boot = seeded_bootstrap_means(array, n_bootstrap, seed)
    boot_diffs = boot[:, second] - boot[:, first]
    ci_low, ci_high = np.quantile(boot_diffs, [alpha / 2, 1 - alpha / 2], axis=0)

    all_zero = (tied == 0).all(axis=0)
    if test == "randomization":
        stream = np.random.SeedSequence(seed).spawn(1)[0]
        p_values = randomization_pvalues(
            diffs, n_permutations, np.random.default_rng(stream)
        )
        statistics = diffs.mean(axis=0)
    elif test == "tukey":
        stream = np.random.SeedSequence(seed).spawn(1)[0]
        p_values = randomized_tukey_pvalues(array, n_permutations,
                                            np.random.default_rng(stream))
        statistics = diffs.mean(axis=0)
    elif test == "tukey_unpaired":
        statistics, p_values = unpaired_tukey_pvalues(array)
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
                    result = _sps.wilcoxon(tied[:, i], zero_method="wilcox")
            statistics[i] = result.statistic
            p_values[i] = result.pvalue
    statistics[all_zero] = 0.0
    p_values[all_zero] = 1.0

    effect = np.zeros(len(pairs))
    effect_low = np.zeros(len(pairs))
    effect_high = np.zeros(len(pairs))
    for i in range(len(pairs)):
        if not all_zero[i]:
            found = effect_size(diffs[:, i], confidence)
            effect[i], effect_low[i], effect_high[i] = found.value, found.ci_low, found.ci_high

    table = pd.DataFrame(
        {
            "model_a": [models[a] for a in first],
            "model_b": [models[b] for b in second],
            "mean_a": means[first],
            "mean_b": means[second],
            "difference": np.where(tied_means[second] == tied_means[first], 0.0,
                                   means[second] - means[first]),
            "ci_low": ci_low,
            "ci_high": ci_high,
            "effect_size": effect,
            "effect_low": effect_low,
            "effect_high": effect_high,
            "statistic": statistics,
            "p_value": p_values,
            "p_corrected": np.nan,
            "significant": False,
            "wins": (tied > 0).sum(axis=0),
            "ties": (tied == 0).sum(axis=0),
            "losses": (tied < 0).sum(axis=0),
            "users": np.full(len(pairs), n_users),
        },
        columns=list(COMPARISON_COLUMNS),
    )
    return with_corrected_pvalues(table, correction, confidence, test), boot


def with_corrected_pvalues(table: pd.DataFrame, correction: str, confidence: float,
                           test: str | None = None) -> pd.DataFrame:
    """The comparison table with ``p_corrected`` and ``significant`` for ``correction`` (for
    a test of every pair at once, ``FAMILY_TESTS``, ``p_corrected`` is the p-value)."""
    p_values = table["p_value"].to_numpy(dtype=np.float64)
    p_corrected = (p_values.copy() if test in FAMILY_TESTS
                   else correct_pvalues(p_values, correction))
    return table.assign(p_corrected=p_corrected, significant=p_corrected < 1.0 - confidence)
