"""Tests of rankmetrics.stats: paired tests, corrections, bootstrap, letter groups, words.

Reference values come from scipy (t-test, Wilcoxon, Benjamini-Hochberg), from ranx's own
statistical-test functions called on the same per-user arrays, from exact enumeration of all
sign patterns with fractions, and from hand arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from rankmetrics import stats
from rankmetrics.errors import DataError
from rankmetrics.stats import (
    COMPARISON_COLUMNS,
    bootstrap,
    bootstrap_ci,
    comparison_warnings,
    confidence_bands,
    correct_pvalues,
    describe_pair,
    paired_comparison,
    significance_groups,
)

TESTS = ("t", "wilcoxon", "randomization")


def _values(n_users: int = 200, shift: float = 0.02, seed: int = 1) -> pd.DataFrame:
    """Three models on the same users: B a little better than A, C much better."""
    rng = np.random.default_rng(seed)
    base = rng.random(n_users)
    return pd.DataFrame(
        {
            "A": base,
            "B": np.clip(base + rng.normal(shift, 0.15, n_users), 0, 1),
            "C": np.clip(base + rng.normal(0.2, 0.05, n_users), 0, 1),
        },
        index=pd.Index([f"u{i}" for i in range(n_users)], name="user"),
    )


def _mc_tolerance(p: float, *n_draws: int) -> float:
    """Four standard errors of the difference of Monte Carlo p-values, plus one draw."""
    return 4 * math.sqrt(p * (1 - p) * sum(1 / n for n in n_draws)) + 1 / min(n_draws)


def _exact_randomization_p(diffs: list[Fraction]) -> Fraction:
    """p of the sign-flip test by enumerating all 2**n sign patterns in exact arithmetic."""
    observed = abs(sum(diffs))
    patterns = list(product((1, -1), repeat=len(diffs)))
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= observed
        for signs in patterns
    )
    return Fraction(extreme, len(patterns))


# --------------------------------------------------------------------------------------------
# paired_comparison: shape of the table


def test_one_row_per_pair_in_column_order_with_all_columns():
    table = paired_comparison(_values(50), n_bootstrap=50)
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    pairs = list(zip(table.model_a, table.model_b, strict=True))
    assert pairs == [("A", "B"), ("A", "C"), ("B", "C")]
    assert (table.users == 50).all()
    assert ((table.wins + table.ties + table.losses) == 50).all()


def test_means_differences_counts_and_effect_size_by_hand():
    values = pd.DataFrame({"A": [0.0, 0.0, 0.0, 0.5], "B": [1.0, 2.0, 3.0, 0.5]})
    row = paired_comparison(values, n_bootstrap=20).iloc[0]
    d = np.array([1.0, 2.0, 3.0, 0.0])
    assert row.mean_a == 0.5 / 4
    assert row.mean_b == 6.5 / 4
    assert row.difference == pytest.approx(6 / 4)
    # effect size = mean(d) / sd(d, ddof=1): 1.5 / sqrt(((-.5)^2 + .5^2 + 1.5^2 + 1.5^2) / 3)
    assert row.effect_size == pytest.approx(1.5 / math.sqrt(5 / 3))
    assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    assert (row.wins, row.ties, row.losses) == (3, 1, 0)


# --------------------------------------------------------------------------------------------
# paired_comparison: identical and dominated models


@pytest.mark.parametrize("test", TESTS)
def test_identical_models_have_p_one_and_no_wins(test):
    base = _values(40)["A"]
    values = pd.DataFrame({"A": base, "B": base.copy()})
    row = paired_comparison(values, test=test, n_permutations=500, n_bootstrap=50).iloc[0]
    assert row.p_value == 1.0
    assert row.p_corrected == 1.0
    assert not row.significant
    assert (row.wins, row.losses, row.ties) == (0, 0, 40)
    assert row.statistic == 0.0
    assert row.effect_size == 0.0
    assert row.difference == 0.0
    assert row.ci_low == row.ci_high == 0.0


@pytest.mark.parametrize("test", TESTS)
def test_model_better_for_every_user_is_significant(test):
    rng = np.random.default_rng(3)
    a = rng.random(60)
    values = pd.DataFrame({"A": a, "B": a + rng.uniform(0.01, 0.05, 60)})
    row = paired_comparison(values, test=test, n_permutations=2_000, n_bootstrap=200).iloc[0]
    assert row.significant
    assert row.wins == 60 and row.losses == 0
    assert 0 < row.ci_low <= row.difference <= row.ci_high
    if test == "randomization":
        # No random sign pattern reaches the observed sum (probability 2 / 2**60 per draw).
        assert row.p_value == 1 / 2_001


def test_constant_difference_gives_effect_size_zero():
    a = np.linspace(0, 0.5, 20)
    values = pd.DataFrame({"A": a, "B": a + 0.1})
    row = paired_comparison(values, n_bootstrap=20).iloc[0]
    assert row.effect_size == 0.0
    assert row.difference == pytest.approx(0.1)


# --------------------------------------------------------------------------------------------
# paired_comparison: agreement with scipy and ranx


def test_t_test_equals_scipy_ttest_rel_exactly():
    values = _values(150)
    table = paired_comparison(values, test="t", n_bootstrap=20)
    for row in table.itertuples():
        expected = sps.ttest_rel(values[row.model_b], values[row.model_a])
        assert row.p_value == expected.pvalue
        assert row.statistic == expected.statistic


def test_wilcoxon_equals_scipy_exactly_with_zero_differences_dropped():
    values = _values(150)
    values.loc[values.index[:30], "B"] = values.loc[values.index[:30], "A"]  # 30 ties
    table = paired_comparison(values, test="wilcoxon", n_bootstrap=20)
    for row in table.itertuples():
        expected = sps.wilcoxon(values[row.model_b], values[row.model_a])  # zero_method="wilcox"
        assert row.p_value == expected.pvalue
        assert row.statistic == expected.statistic
    assert table.iloc[0].ties == 30


def test_t_test_agrees_with_ranx():
    from ranx import statistical_tests as ranx_tests
    values = _values(80, shift=0.03)
    table = paired_comparison(values, test="t", n_bootstrap=20)
    for row in table.itertuples():
        p_ranx, _ = ranx_tests.paired_student_t_test(
            values[row.model_a].to_numpy(), values[row.model_b].to_numpy()
        )
        assert row.p_value == pytest.approx(p_ranx, rel=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_randomization_agrees_with_ranx_within_sampling_error(seed):
    from ranx import statistical_tests as ranx_tests
    values = _values(60, shift=0.04, seed=seed)[["A", "B"]]
    ours, theirs = 20_000, 5_000
    row = paired_comparison(
        values, test="randomization", n_permutations=ours, n_bootstrap=20, seed=seed
    ).iloc[0]
    p_ranx, _ = ranx_tests.fisher_randomization_test(
        values["A"].to_numpy(), values["B"].to_numpy(), theirs, 0.05, seed
    )
    p = (row.p_value + p_ranx) / 2
    assert abs(row.p_value - p_ranx) < _mc_tolerance(p, ours, theirs)


@pytest.mark.parametrize(
    "diffs",
    [
        ["1", "2", "3"],  # only all-plus / all-minus reach |6|: p = 2/8
        ["0.2", "-0.3", "-0.1", "0.4"],  # ties that float64 rounding would break: p = 7/8
        ["0.25", "-0.5", "0.25", "0", "0.625"],  # a zero difference and exact ties: p = 5/8
    ],
)
def test_randomization_matches_exact_enumeration(diffs):
    exact = float(_exact_randomization_p([Fraction(d) for d in diffs]))
    d = np.array([float(x) for x in diffs])
    values = pd.DataFrame({"A": np.zeros(len(d)), "B": d})
    n = 40_000
    row = paired_comparison(values, test="randomization", n_permutations=n, n_bootstrap=20)
    assert abs(row.p_value.iloc[0] - exact) < _mc_tolerance(exact, n)


def test_randomization_counts_exact_ties_after_rounding():
    # 0.2 - 0.3 - 0.1 + 0.4 and 0.2 + 0.3 + 0.1 - 0.4 are both 0.2 exactly, not in float64.
    assert 0.2 + -0.3 + -0.1 + 0.4 > 0.2 + 0.3 + 0.1 + -0.4
    decimals = ("0.2", "-0.3", "-0.1", "0.4")
    exact = float(_exact_randomization_p([Fraction(x) for x in decimals]))
    d = np.array([[float(x)] for x in decimals])
    p = stats.randomization_pvalues(d, 20_000, np.random.default_rng(0))[0]
    assert abs(p - exact) < _mc_tolerance(exact, 20_000)


def test_randomization_on_decimal_grid_counts_like_exact_integers():
    # Differences on a 0.1 grid (precision@10-like) tie often and are rounded in float32 and
    # float64; the same differences times 10 are integers, summed exactly. The same seed draws
    # the same signs, so the counts, hence the p-values, must be equal.
    rng = np.random.default_rng(9)
    k = rng.integers(-2, 3, size=(3_000, 3)).astype(float)
    k[:, 2] = rng.choice([-1.0, 0.0, 1.0], size=3_000, p=[0.31, 0.33, 0.36])  # p near 0.05
    on_grid = stats.randomization_pvalues(k * 0.1, 3_000, np.random.default_rng(1))
    exact = stats.randomization_pvalues(k, 3_000, np.random.default_rng(1))
    np.testing.assert_array_equal(on_grid, exact)
    assert exact.min() < 0.2


def test_randomization_p_value_is_never_zero_and_counts_the_observed():
    values = pd.DataFrame({"A": np.zeros(300), "B": np.full(300, 0.5)})
    row = paired_comparison(values, test="randomization", n_permutations=999, n_bootstrap=10)
    assert row.p_value.iloc[0] == 1 / 1_000


def test_randomization_is_reproducible_with_a_seed_and_varies_without():
    values = _values(40, shift=0.03)
    run = dict(test="randomization", n_permutations=1_000, n_bootstrap=100)
    first = paired_comparison(values, seed=7, **run)
    pd.testing.assert_frame_equal(first, paired_comparison(values, seed=7, **run))
    other = paired_comparison(values, seed=8, **run)
    assert not first[["p_value", "ci_low"]].equals(other[["p_value", "ci_low"]])


def test_confidence_interval_does_not_depend_on_the_test():
    values = _values(40)
    tables = [paired_comparison(values, test=t, n_permutations=200, n_bootstrap=100) for t in TESTS]
    for table in tables[1:]:
        pd.testing.assert_frame_equal(
            table[["ci_low", "ci_high"]], tables[0][["ci_low", "ci_high"]]
        )


def test_comparison_interval_equals_bootstrap_of_the_differences():
    values = _values(70)
    table = paired_comparison(values, n_bootstrap=300, confidence=0.9, seed=4)
    for row in table.itertuples():
        diffs = (values[row.model_b] - values[row.model_a]).to_numpy()
        mean, low, high = bootstrap_ci(diffs, n_bootstrap=300, confidence=0.9, seed=4)
        assert mean == pytest.approx(row.difference, abs=1e-12)
        assert low == pytest.approx(row.ci_low, abs=1e-12)
        assert high == pytest.approx(row.ci_high, abs=1e-12)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh"])
def test_table_applies_the_correction_over_all_pairs(correction):
    table = paired_comparison(_values(30), correction=correction, n_bootstrap=20)
    np.testing.assert_array_equal(
        table.p_corrected, correct_pvalues(table.p_value.to_numpy(), correction)
    )
    assert (table.significant == (table.p_corrected < 1 - 0.95)).all()


# --------------------------------------------------------------------------------------------
# paired_comparison: bad input


def test_missing_value_names_the_model_and_the_user():
    values = _values(20)
    values.loc["u3", "B"] = np.nan
    with pytest.raises(DataError, match=r"column 'B'.*missing \(NaN\).*'u3'"):
        paired_comparison(values)
    with pytest.raises(ValueError):  # DataError is a ValueError
        comparison_warnings(values)


def test_fewer_than_two_models_is_an_error():
    with pytest.raises(ValueError, match="at least 2 model columns.*has 1"):
        paired_comparison(_values(20)[["A"]])


@pytest.mark.parametrize(
    ("option", "bad", "pattern"),
    [
        ("test", "ttest", "'test'.*'ttest'"),
        ("correction", "fdr", "'correction'.*'fdr'"),
        ("confidence", 95, "'confidence'.*95"),
        ("n_permutations", 0, "'n_permutations'.*0"),
        ("n_bootstrap", 2.5, "'n_bootstrap'.*2.5"),
        ("seed", "abc", "'seed'.*'abc'"),
    ],
)
def test_bad_option_names_the_argument_and_value(option, bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        paired_comparison(_values(20), **{option: bad})


# --------------------------------------------------------------------------------------------
# correct_pvalues


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03]
    # Bonferroni: 3 * p. Holm: sorted 0.01, 0.03, 0.04 get 3*0.01, 2*0.03, max(1*0.04, 0.06).
    np.testing.assert_allclose(correct_pvalues(p, "bonferroni"), [3 * 0.01, 3 * 0.04, 3 * 0.03])
    np.testing.assert_allclose(correct_pvalues(p, "holm"), [3 * 0.01, 2 * 0.03, 2 * 0.03])
    # Clipped at 1.
    np.testing.assert_array_equal(correct_pvalues([0.5, 0.6], "bonferroni"), [1.0, 1.0])
    np.testing.assert_array_equal(correct_pvalues([0.5, 0.6], "holm"), [1.0, 1.0])
    np.testing.assert_allclose(correct_pvalues([0.5, 0.01], "holm"), [0.5, 2 * 0.01])
    assert correct_pvalues([], "holm").shape == (0,)


def test_bh_by_hand():
    # Sorted 0.01, 0.02, 0.5 get 3*0.01/1, 3*0.02/2, 3*0.5/3; then a running minimum from the top.
    np.testing.assert_allclose(correct_pvalues([0.5, 0.01, 0.02], "bh"), [0.5, 0.03, 0.03])


p_vectors = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(p_vectors)
def test_corrections_properties(p):
    raw = np.array(p)
    holm = correct_pvalues(raw, "holm")
    bonferroni = correct_pvalues(raw, "bonferroni")
    bh = correct_pvalues(raw, "bh")
    for adjusted in (holm, bonferroni, bh):
        assert (adjusted >= raw).all()
        assert (adjusted <= 1.0).all()
        # The adjusted p-values keep the order of the raw ones.
        order = np.argsort(raw, kind="stable")
        assert (np.diff(adjusted[order]) >= 0).all()
    assert (holm <= bonferroni).all()
    assert (bh <= holm + 1e-15).all()
    np.testing.assert_allclose(bh, sps.false_discovery_control(raw, method="bh"), rtol=1e-12)


def test_correct_pvalues_rejects_bad_input():
    with pytest.raises(ValueError, match="'method'.*'sidak'"):
        correct_pvalues([0.1], "sidak")
    with pytest.raises(ValueError, match="'p'.*1.5"):
        correct_pvalues([0.1, 1.5])
    with pytest.raises(ValueError, match="'p'.*nan"):
        correct_pvalues([np.nan])


# --------------------------------------------------------------------------------------------
# bootstrap_ci and confidence_bands


def test_bootstrap_contains_the_mean_and_narrows_with_more_users():
    rng = np.random.default_rng(5)
    widths = []
    for n_users in (100, 10_000):
        per_user = rng.random((n_users, 3)) * np.array([0.2, 0.5, 1.0])
        mean, low, high = bootstrap_ci(per_user, n_bootstrap=400)
        np.testing.assert_allclose(mean, per_user.mean(axis=0))
        assert (low < mean).all() and (mean < high).all()
        widths.append(high - low)
    # The width shrinks like 1 / sqrt(n): 100 times the users, about a tenth of the width.
    assert (widths[1] < widths[0] / 5).all()


def test_bootstrap_spread_matches_the_standard_error():
    rng = np.random.default_rng(6)
    x = rng.random(2_000)
    mean, low, high = bootstrap_ci(x, n_bootstrap=2_000, confidence=0.95)
    standard_error = x.std() / math.sqrt(x.size)
    assert (high - low) == pytest.approx(2 * 1.959964 * standard_error, rel=0.1)
    assert np.ndim(mean) == 0


def test_bootstrap_is_reproducible_and_chunking_keeps_it_valid(monkeypatch):
    rng = np.random.default_rng(7)
    per_user = rng.random((300, 2))
    first = bootstrap_ci(per_user, n_bootstrap=250, seed=3)
    np.testing.assert_array_equal(first, bootstrap_ci(per_user, n_bootstrap=250, seed=3))
    assert not np.array_equal(first, bootstrap_ci(per_user, n_bootstrap=250, seed=4))
    monkeypatch.setattr(bootstrap, "_CHUNK_ENTRIES", 7 * 300)  # 7 resamples per chunk, 36 chunks
    mean, low, high = bootstrap_ci(per_user, n_bootstrap=250, seed=3)
    np.testing.assert_allclose(low, first[1], rtol=0.05)
    np.testing.assert_allclose(high, first[2], rtol=0.05)


def test_bootstrap_constant_column_has_zero_width():
    mean, low, high = bootstrap_ci(np.column_stack([np.full(9, 0.3), np.arange(9.0)]))
    assert mean[0] == pytest.approx(0.3)
    assert low[0] == pytest.approx(0.3, abs=1e-12) and high[0] == pytest.approx(0.3, abs=1e-12)
    assert low[1] < 4 < high[1]


def test_bootstrap_rejects_bad_input():
    with pytest.raises(ValueError, match="'per_user'.*nan"):
        bootstrap_ci(np.array([[0.1], [np.nan]]))
    with pytest.raises(ValueError, match="'per_user'.*shape"):
        bootstrap_ci(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="'confidence'.*1.0"):
        bootstrap_ci(np.zeros(3), confidence=1.0)


def test_confidence_bands_long_table():
    rng = np.random.default_rng(8)
    per_model = {"A": rng.random((50, 3)), "B": rng.random((50, 3)) + 1}
    bands = confidence_bands(per_model, cutoffs=[1, 5, 10], n_bootstrap=100)
    assert list(bands.columns) == ["model", "cutoff", "mean", "ci_low", "ci_high"]
    assert bands.cutoff.tolist() == [1, 5, 10, 1, 5, 10]
    mean, low, high = bootstrap_ci(per_model["B"], n_bootstrap=100)
    # one pass over both models' columns: the same resamples as bootstrap_ci's, the means of
    # a matrix product of another width (which BLAS may sum in another order)
    np.testing.assert_allclose(bands[bands.model == "B"].ci_low, low, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="'cutoffs'.*2 cutoffs.*3 columns"):
        confidence_bands(per_model, cutoffs=[1, 5])


def test_confidence_bands_resample_each_model_as_bootstrap_ci_does():
    # eighths: every sum of resampled values is exact, in any order of summation, so the
    # bands of models resampled together equal bootstrap_ci's exactly on any BLAS kernel
    rng = np.random.default_rng(8)
    per_model = {"A": rng.integers(0, 8, (50, 3)) / 8, "B": rng.integers(0, 8, (50, 3)) / 8}
    bands = confidence_bands(per_model, cutoffs=[1, 5, 10], n_bootstrap=100)
    for model, per_user in per_model.items():
        mean, low, high = bootstrap_ci(per_user, n_bootstrap=100)
        band = bands[bands.model == model]
        np.testing.assert_array_equal(band["mean"], mean)
        np.testing.assert_array_equal(band["ci_low"], low)
        np.testing.assert_array_equal(band["ci_high"], high)


# --------------------------------------------------------------------------------------------
# significance_groups


def test_letters_for_the_textbook_case():
    means = pd.Series({"B": 0.25, "C": 0.20, "A": 0.30})
    groups = significance_groups(means, lambda a, b: {a, b} == {"A", "C"})
    assert groups.to_dict() == {"A": "a", "B": "ab", "C": "b"}
    assert list(groups.index) == ["A", "B", "C"]  # highest mean first


def test_letters_from_a_comparison_table_and_a_square_matrix():
    means = pd.Series({"A": 0.30, "B": 0.25, "C": 0.20})
    table = pd.DataFrame(
        {"model_a": ["A", "A", "B"], "model_b": ["B", "C", "C"], "significant": [0, 1, 0]}
    )
    square = pd.DataFrame(False, index=list("ABC"), columns=list("ABC"))
    square.loc["C", "A"] = True  # one entry of the pair is enough
    for significant in (table, square):
        assert significance_groups(means, significant).tolist() == ["a", "ab", "b"]


def test_letters_all_alike_and_all_different():
    means = pd.Series({"A": 3.0, "B": 2.0, "C": 1.0})
    assert significance_groups(means, lambda a, b: False).tolist() == ["a", "a", "a"]
    assert significance_groups(means, lambda a, b: True).tolist() == ["a", "b", "c"]


def test_letters_from_paired_comparison():
    values = _values(200)
    table = paired_comparison(values, n_bootstrap=20)
    groups = significance_groups(values.mean(), table)
    for row in table.itertuples():
        shares = bool(set(groups[row.model_a]) & set(groups[row.model_b]))
        assert shares == (not row.significant)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 6).flatmap(
    lambda m: st.tuples(
        st.just(m),
        st.lists(st.booleans(), min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2),
        st.lists(st.floats(0, 1), min_size=m, max_size=m),
    )
))
def test_letters_share_a_letter_exactly_when_not_significant(case):
    m, flags, means = case
    names = [f"M{i}" for i in range(m)]
    different = {
        frozenset(pair) for pair, flag in zip(combinations(names, 2), flags, strict=True) if flag
    }
    groups = significance_groups(
        pd.Series(means, index=names), lambda a, b: frozenset((a, b)) in different
    )
    for a, b in combinations(names, 2):
        assert bool(set(groups[a]) & set(groups[b])) == (frozenset((a, b)) not in different)
    assert groups.iloc[0].startswith("a")


def test_letters_reject_an_incomplete_table():
    means = pd.Series({"A": 0.3, "B": 0.2, "C": 0.1})
    table = pd.DataFrame({"model_a": ["A"], "model_b": ["B"], "significant": [True]})
    with pytest.raises(ValueError, match="no row comparing"):
        significance_groups(means, table)


# --------------------------------------------------------------------------------------------
# describe_pair and comparison_warnings


def _row(**changes):
    row = {
        "model_a": "Model A", "model_b": "Model B", "difference": 0.021, "ci_low": 0.012,
        "ci_high": 0.030, "p_corrected": 0.003, "significant": True, "wins": 612, "ties": 87,
        "losses": 401, "users": 1100,
    }
    row.update(changes)
    return pd.Series(row)


def test_describe_significant_pair():
    assert describe_pair(_row()) == (
        "Model B is better than Model A on NDCG@10: its mean is higher by 0.021 [0.012, 0.030], "
        "significant after Holm correction (p = 0.003). Model B serves 612 users better, "
        "Model A 401 (87 users the same)."
    )


def test_describe_not_significant_pair_names_the_higher_mean_first():
    # B's mean is lower: A leads, by 0.004 [-0.005, 0.012], and A serves 3 users better
    row = _row(difference=-0.004, ci_low=-0.012, ci_high=0.005, p_corrected=0.41,
               significant=False, wins=1, losses=3, ties=2)
    text = describe_pair(row, "Recall@20", correction="bh")
    assert text == (
        "No real difference between Model A and Model B on Recall@20: Model A has the higher "
        "mean, by 0.004 [-0.005, 0.012], which is not significant after Benjamini-Hochberg "
        "correction (p = 0.410). Model A serves 3 users better, Model B 1 (2 users the same)."
    )
    assert "beats" not in text and "better than" not in text


def test_not_significant_higher_mean_serving_fewer_users_is_no_winner():
    # the movies demo's Recall@10: the higher mean serves 656 users better and 873 worse
    row = _row(difference=0.0053, ci_low=-0.003, ci_high=0.014, p_corrected=0.217,
               significant=False, wins=656, losses=873, ties=411)
    text = describe_pair(row, "Recall@10")
    assert text.startswith("No real difference between Model B and Model A on Recall@10")
    assert "Higher mean, fewer users served better: Model B serves 656 users better, " \
        "Model A 873 (411 users the same)." in text
    assert "beats" not in text and "better than" not in text


def test_significant_mean_but_fewer_users_served_better_says_so():
    row = _row(wins=401, losses=612)
    assert describe_pair(row) == (
        "Model B has a significantly higher mean NDCG@10 than Model A, by 0.021 "
        "[0.012, 0.030] (Holm correction, p = 0.003), but serves fewer users better: its "
        "lead comes from large gains for fewer users. Model B serves 401 users better, "
        "Model A 612 (87 users the same)."
    )


def test_describe_small_difference_tiny_p_and_identical_models():
    row = _row(difference=0.0004, ci_low=-0.0002, ci_high=0.0011, p_corrected=1e-5)
    assert "0.0004 [-0.0002, 0.0011]" in describe_pair(row)
    assert "(p < 0.001)." in describe_pair(row)
    same = _row(difference=0.0, ci_low=0.0, ci_high=0.0, p_corrected=1.0, significant=False,
                wins=0, losses=0, ties=1100)
    assert describe_pair(same) == (
        "Model B and Model A give the same NDCG@10 for all 1,100 users; there is no difference "
        "to test (p = 1.000 after Holm correction)."
    )
    equal_means = _row(difference=0.0, ci_low=-0.01, ci_high=0.01, p_corrected=1.0,
                       significant=False, wins=3, losses=3, ties=4)
    assert describe_pair(equal_means).startswith(
        "No real difference between Model B and Model A on NDCG@10: their means are equal")


def test_describe_real_row():
    row = paired_comparison(_values(100), n_bootstrap=50).iloc[1]
    text = describe_pair(row)
    higher = row["model_b"] if row["difference"] > 0 else row["model_a"]
    verdict = "is better than" if row["significant"] else "No real difference between"
    assert verdict in text and text.index(str(higher)) < text.index("NDCG@10")


def test_warnings_for_few_users_and_identical_models():
    tiny = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.1, 0.2, 0.3]})
    messages = comparison_warnings(tiny)
    assert messages[0].startswith("Only 3 users: with fewer than 10 users")
    assert any("same value for every user: there is no difference" in m for m in messages)
    small = _values(20)
    assert comparison_warnings(small)[0].startswith("Only 20 users: with fewer than 30 users")
    assert comparison_warnings(_values(100)) == []


def test_warnings_for_a_constant_model_and_few_differing_users():
    values = _values(100)
    values["Empty"] = 0.0
    values["A2"] = values["A"]
    values.loc[values.index[:4], "A2"] += 0.1
    messages = comparison_warnings(values)
    assert any("'Empty' has the same value (0) for every user" in m for m in messages)
    assert any("'A' and 'A2' differ for only 4 users" in m for m in messages)
