"""Tukey's HSD for every pair at once: the randomized, paired test against its exact
permutation distribution on tiny grids, and the unpaired test against ranx's own output."""

from __future__ import annotations

import math
from itertools import permutations, product

import numpy as np
import pandas as pd
import pytest
from ranx import Qrels, Run, compare
from ranx import evaluate as ranx_evaluate

from rankmetrics.report.verdict import quick_test
from rankmetrics.stats import compare_models, paired_comparison
from rankmetrics.stats.tukey import (
    pair_indices,
    randomized_tukey_pvalues,
    unpaired_tukey_pvalues,
)


def exact_tukey(values: np.ndarray) -> np.ndarray:
    """Every assignment of orderings to users, counted: the exact randomized Tukey p-value
    (the share of all (m!)^n shuffles whose range of means reaches each pair's difference)."""
    n, m = values.shape
    means = values.mean(axis=0)
    orderings = list(permutations(range(m)))
    observed = np.array([abs(means[a] - means[b]) for a, b in pair_indices(m)])
    count = np.zeros(len(observed))
    total = 0
    for chosen in product(orderings, repeat=n):
        shuffled = np.array([values[u, list(order)] for u, order in enumerate(chosen)])
        column = shuffled.mean(axis=0)
        count += column.max() - column.min() >= observed - 1e-12
        total += 1
    return count / total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomized_tukey_is_the_exact_permutation_distribution_on_tiny_grids(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, size=(4, 3)) / 3  # 4 users, 3 models, values on a grid
    exact = exact_tukey(values)
    draws = 40_000
    found = randomized_tukey_pvalues(values, draws, np.random.default_rng(10 + seed))
    for p_exact, p_found in zip(exact, found, strict=True):
        se = math.sqrt(max(p_exact * (1 - p_exact), 1e-4) / draws)
        assert abs(p_found - p_exact) < 4.5 * se + 1 / draws, (exact, found)


def test_more_than_six_models_shuffle_by_sorting_random_keys():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 3, size=(2, 7)) / 2.0
    found = randomized_tukey_pvalues(values, 20_000, np.random.default_rng(4))
    # with 2 users and 7 models the exact distribution has (7!)^2 = 25 million shuffles: the
    # largest pair difference is reached exactly when both users' maxima land on one model
    # and both minima on another
    means = values.mean(axis=0)
    widest = np.argmax([abs(means[a] - means[b]) for a, b in pair_indices(7)])
    assert found[widest] <= found.min() + 1e-12
    assert (found > 0).all() and (found <= 1).all()


def test_no_correction_is_applied_to_a_family_test():
    rng = np.random.default_rng(5)
    base = rng.uniform(size=200)
    values = pd.DataFrame({"A": base, "B": base + rng.normal(0.02, 0.1, 200),
                           "C": base + rng.normal(0.05, 0.1, 200)})
    for test in ("tukey", "tukey_unpaired"):
        for correction in ("holm", "bonferroni", "bh"):
            table = paired_comparison(values, test=test, correction=correction,
                                      n_permutations=500, n_bootstrap=50)
            assert (table["p_corrected"] == table["p_value"]).all()
        result = compare_models(values, test=test, n_permutations=500, n_bootstrap=50)
        again = result.with_correction("bonferroni")
        assert (again.pairs["p_corrected"] == result.pairs["p_value"]).all()


def test_tukey_is_more_cautious_than_uncorrected_randomization():
    """A pair's randomized Tukey p-value is at least its sign-flip p-value would be with a
    single pair, up to sampling: the range over all models is at least any one pair's
    difference."""
    rng = np.random.default_rng(6)
    base = rng.uniform(size=300)
    values = pd.DataFrame({name: base + rng.normal(shift, 0.15, 300)
                           for name, shift in (("A", 0), ("B", 0.01), ("C", 0.02), ("D", 0.03))})
    tukey = paired_comparison(values, test="tukey", n_permutations=4000, n_bootstrap=50)
    flips = paired_comparison(values, test="randomization", correction="holm",
                              n_permutations=4000, n_bootstrap=50)
    assert (tukey["p_value"] >= flips["p_value"] - 0.02).all()


def test_equal_means_on_a_grid_count_as_extreme():
    values = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    found = randomized_tukey_pvalues(values, 1000, np.random.default_rng(0))
    assert found.tolist() == [1.0]  # observed difference 0: every shuffle reaches it


def _ranx_data(seed: int, n_queries: int = 40, n_models: int = 3):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(1, 3)) for d in
                       rng.choice(30, size=5, replace=False)} for q in range(n_queries)}
    runs = {}
    for model in range(n_models):
        runs[f"m{model}"] = {f"q{q}": {f"d{d}": float(rng.random() + 0.1 * model * (d < 10))
                                       for d in rng.choice(30, size=12, replace=False)}
                             for q in range(n_queries)}
    return qrels, runs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unpaired_tukey_is_ranxs_tukey(seed):
    qrels_dict, runs_dict = _ranx_data(seed)
    qrels = Qrels(qrels_dict)
    runs = [Run(run, name=name) for name, run in runs_dict.items()]
    report = compare(qrels, runs, metrics=["ndcg@10"], stat_test="tukey", max_p=0.05)
    scores = pd.DataFrame({run.name: ranx_evaluate(qrels, run, "ndcg@10", return_mean=False)
                           for run in runs})
    table = paired_comparison(scores, test="tukey_unpaired", n_bootstrap=50)
    for row in table.itertuples():
        expected = report.comparisons[row.model_a, row.model_b]["ndcg@10"]["p_value"]
        assert row.p_value == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert row.statistic == pytest.approx(scores[row.model_b].mean()
                                              - scores[row.model_a].mean(), rel=1e-12)
    statistic, p_values = unpaired_tukey_pvalues(scores.to_numpy())
    assert p_values.tolist() == table["p_value"].tolist()


def test_a_table_of_every_metric_bounds_the_randomized_tukey_work():
    assert quick_test("tukey", 1_940, 10_000) == "tukey"
    assert quick_test("tukey", 100_000, 10_000) == "t"
    assert quick_test("tukey_unpaired", 100_000, 10_000) == "tukey_unpaired"


@pytest.mark.parametrize("test", ["tukey", "tukey_unpaired"])
def test_every_cutoff_is_the_comparison_at_that_k(test):
    from rankmetrics import RelevanceMapping, evaluate
    from rankmetrics.choosing_k.significance import significance_over_k
    from tests.helpers import random_data

    truth, run = random_data(3, n_users=60)
    runs = {"A": run, "B": run.assign(score=run["score"].sample(frac=1, random_state=1).to_numpy()),
            "C": run.assign(score=-run["score"])}
    ev = evaluate(truth, runs, relevance=RelevanceMapping.binary(1), max_cutoff=5)
    over_k = significance_over_k(ev, "ndcg", test=test, correction="bonferroni",
                                 n_permutations=300)
    for k in (1, 3, 5):
        expected = paired_comparison(ev.paired("ndcg", k), test=test, correction="bonferroni",
                                     n_permutations=300, n_bootstrap=20)
        found = over_k[over_k["cutoff"] == k].reset_index(drop=True)
        assert found["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(),
                                                          rel=1e-12)
        assert (found["p_corrected"] == found["p_value"]).all()


def test_the_pair_sentence_names_tukey_instead_of_a_correction():
    from rankmetrics.stats import describe_pair

    row = {"model_a": "A", "model_b": "B", "difference": 0.021, "ci_low": 0.012,
           "ci_high": 0.030, "p_corrected": 0.003, "significant": True, "wins": 612,
           "ties": 87, "losses": 401, "users": 1100}
    assert "significant in Tukey's HSD test of every pair at once (p = 0.003)" in describe_pair(
        row, "NDCG@10", "holm", "tukey")
    assert "after Holm correction" in describe_pair(row, "NDCG@10", "holm", "randomization")
