"""Several runs (seeds) of one model: grouping by name, means and spreads across runs, and the
two tests (over users on the per-user means, Welch's over the runs' means), checked against
scipy, statsmodels and the library's own evaluation of each run alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from rankmetrics import evaluate
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.stats import (
    compare_runs,
    describe_runs_pair,
    has_runs,
    run_curves,
    run_groups,
    run_name,
    run_summary,
    runs_method_text,
)


def test_runs_are_grouped_by_the_name_before_the_last_separator():
    groups = run_groups(["als@seed1", "bpr", "als@seed2", "pop@only", "a@b@1", "a@b@2",
                         "@x", "@y", "tail@"])
    assert groups == {"als": ["als@seed1", "als@seed2"], "bpr": ["bpr"],
                      "pop@only": ["pop@only"], "a@b": ["a@b@1", "a@b@2"], "@x": ["@x"],
                      "@y": ["@y"], "tail@": ["tail@"]}
    assert has_runs(groups)
    assert not has_runs(run_groups(["als", "bpr@1"]))
    assert run_name("als", "als@seed1") == "seed1"
    assert run_name("bpr", "bpr") == "bpr"


def _values(seed: int, n_users: int = 200, offsets=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.random(n_users)
    offsets = offsets or {"als": [0.04, 0.05, 0.07], "bpr": [0.0, 0.02], "pop": [-0.1]}
    columns = {}
    for model, shifts in offsets.items():
        for i, shift in enumerate(shifts):
            name = model if len(shifts) == 1 else f"{model}@{i}"
            columns[name] = np.clip(base + shift + rng.normal(0, 0.1, n_users), 0, 1)
    return pd.DataFrame(columns, index=[f"u{i}" for i in range(n_users)])


def test_the_test_over_users_is_scipys_paired_t_on_the_per_user_means_across_runs():
    values = _values(1)
    groups = run_groups(list(values.columns))
    result = compare_runs(values, groups, test="t", correction="holm")
    means = {model: values[runs].to_numpy().mean(axis=1) for model, runs in groups.items()}
    expected_p = []
    for a, b in (("als", "bpr"), ("als", "pop"), ("bpr", "pop")):
        row = result.pairs.set_index(["model_a", "model_b"]).loc[(a, b)]
        reference = stats.ttest_rel(means[b], means[a])
        assert row["statistic"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)
        assert row["mean_a"] == pytest.approx(means[a].mean(), rel=1e-12)
        expected_p.append(reference.pvalue)
    holm = multipletests(expected_p, method="holm")[1]
    np.testing.assert_allclose(result.pairs["p_corrected"], holm, rtol=1e-9, atol=1e-300)


def test_the_test_over_runs_is_welchs_t_on_the_runs_means():
    values = _values(2, offsets={"als": [0.03, 0.05, 0.04], "bpr": [0.0, 0.02, 0.01, 0.0],
                                 "knn": [0.01, 0.03], "pop": [-0.1]})
    groups = run_groups(list(values.columns))
    result = compare_runs(values, groups, correction="bonferroni")
    pairs = result.pairs.set_index(["model_a", "model_b"])
    run_means = {model: values[runs].mean().to_numpy() for model, runs in groups.items()}
    tested = []
    for (a, b), row in pairs.iterrows():
        assert row["runs_a"] == len(groups[a]) and row["runs_b"] == len(groups[b])
        if "pop" in (a, b):
            assert np.isnan(row["runs_p"]) and np.isnan(row["runs_p_corrected"])
            assert not row["runs_significant"]
            continue
        reference = stats.ttest_ind(run_means[b], run_means[a], equal_var=False)
        assert row["runs_t"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["runs_p"] == pytest.approx(reference.pvalue, rel=1e-12)
        assert row["sd_a"] == pytest.approx(np.std(run_means[a], ddof=1), rel=1e-12)
        tested.append((row["runs_p"], row["runs_p_corrected"]))
    assert len(tested) == 3
    raw, corrected = np.array(tested).T
    np.testing.assert_allclose(corrected, multipletests(raw, method="bonferroni")[1],
                               rtol=1e-12)
    models = result.models
    assert models.loc["bpr", "runs"] == 4
    assert models.loc["bpr", "mean"] == pytest.approx(run_means["bpr"].mean(), rel=1e-12)
    assert models.loc["bpr", "lowest"] == run_means["bpr"].min()
    assert np.isnan(models.loc["pop", "sd"])


def test_a_difference_inside_the_runs_spread_is_flagged_in_words():
    spread = _values(3, n_users=2_000, offsets={"als": [0.0, 0.08], "bpr": [0.0, 0.02]})
    result = compare_runs(spread, run_groups(list(spread.columns)))
    row = result.pairs.iloc[0]
    assert row["within_spread"]
    assert row["significant"]  # many users: the users' test alone would call it real
    text = describe_runs_pair(row, "NDCG@10")
    assert "Careful: the runs of one model differ from each other as much as" in text
    assert "2 runs and 2 runs" in text
    clear = _values(4, offsets={"als": [0.20, 0.21, 0.22], "bpr": [0.0, 0.01, 0.02]})
    row = compare_runs(clear, run_groups(list(clear.columns))).pairs.iloc[0]
    assert not row["within_spread"] and row["runs_significant"]
    text = describe_runs_pair(row, "NDCG@10")
    assert "Careful" not in text and "larger than the seeds' own spread" in text
    assert "Welch's t-test" in runs_method_text(compare_runs(clear, run_groups(
        list(clear.columns)), test="wilcoxon"))


def test_the_test_over_runs_holds_its_level_when_only_the_seeds_differ():
    """Two models with the same expected quality whose runs move by the seed: the users'
    test calls most differences real, Welch's over the runs rejects at about the level."""
    rng = np.random.default_rng(7)
    n_sim, users = 400, 300
    rejected_runs = rejected_users = 0
    for _ in range(n_sim):
        base = rng.random(users)
        columns = {f"{m}@{i}": base + rng.normal(0, 0.03) + rng.normal(0, 0.05, users)
                   for m in ("a", "b") for i in range(3)}
        row = compare_runs(pd.DataFrame(columns), run_groups(list(columns)),
                           n_bootstrap=10).pairs.iloc[0]
        rejected_runs += row["runs_p"] < 0.05
        rejected_users += row["p_value"] < 0.05
    rate = rejected_runs / n_sim
    assert abs(rate - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / n_sim)
    assert rejected_users / n_sim > 0.5


def test_summary_and_curves_are_the_means_of_each_run_evaluated_alone():
    rng = np.random.default_rng(5)
    users = [f"u{i}" for i in range(60)]
    items = [f"i{j}" for j in range(40)]
    truth = pd.DataFrame([(u, i, int(rng.integers(1, 6))) for u in users
                          for i in rng.choice(items, 8, replace=False)],
                         columns=["user", "item", "rating"])
    runs = {}
    for name in ("als@1", "als@2", "als@3", "bpr@1", "bpr@2"):
        runs[name] = pd.DataFrame([(u, i, float(rng.random())) for u in users
                                   for i in rng.choice(items, 12, replace=False)],
                                  columns=["user", "item", "score"])
    relevance = RelevanceMapping.binary(4)
    together = evaluate(truth, runs, relevance=relevance, max_cutoff=10)
    alone = {name: evaluate(truth, {name: run}, relevance=relevance, max_cutoff=10)
             .means(["ndcg", "precision"])[name] for name, run in runs.items()}
    groups = run_groups(list(runs))
    table = pd.DataFrame({name: {"NDCG@5": alone[name]["ndcg"][4],
                                 "P@5": alone[name]["precision"][4]} for name in runs}).T
    summary = run_summary(table, groups)
    for model, members in groups.items():
        ndcg = [alone[name]["ndcg"][4] for name in members]
        assert summary.loc[model, "Runs"] == len(members)
        assert summary.loc[model, "NDCG@5"] == pytest.approx(np.mean(ndcg), rel=1e-12)
        assert summary.loc[model, "NDCG@5 SD"] == pytest.approx(np.std(ndcg, ddof=1),
                                                                rel=1e-12)
    curves = {name: {metric: list(values) for metric, values in by_metric.items()}
              for name, by_metric in together.means(["ndcg", "precision"]).items()}
    means, bands = run_curves(curves, groups)
    stacked = np.array([alone[name]["ndcg"] for name in groups["als"]])
    np.testing.assert_allclose(means["als"]["ndcg"], stacked.mean(axis=0), rtol=1e-12)
    als = bands[(bands.model == "als") & (bands.metric == "ndcg")].sort_values("cutoff")
    np.testing.assert_allclose(als["ci_low"], stacked.min(axis=0), rtol=1e-12)
    np.testing.assert_allclose(als["ci_high"], stacked.max(axis=0), rtol=1e-12)
    assert list(als["cutoff"]) == list(range(1, 11))


def test_bad_arguments_say_what_is_wrong():
    values = _values(6)
    with pytest.raises(ValueError, match="at least two models"):
        compare_runs(values, {"als": ["als@0", "als@1"]})
    with pytest.raises(ValueError, match="No per-user values for 'knn@1'"):
        compare_runs(values, {"als": ["als@0"], "knn": ["knn@1"]})
    with pytest.raises(ValueError, match="no row for 'knn@1'"):
        run_summary(pd.DataFrame({"x": [1.0]}, index=["als@0"]), {"knn": ["knn@1"]})
