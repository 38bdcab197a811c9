"""What the Significance page and the Compare page's bands compute: compare_models (every
model's interval and letters with every pair's test, from one bootstrap), another correction
without resampling, a pair read in either direction, and the confidence bands of an
Evaluation at every cutoff or at a spread of cutoffs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.evaluation import band_cutoffs
from rankmetrics.stats import (
    CORRECTIONS,
    TESTS,
    bootstrap_ci,
    compare_models,
    confidence_bands,
    paired_comparison,
    significance_groups,
)


def _values(n_users: int = 300, seed: int = 4) -> pd.DataFrame:
    """Four models: C clearly best, A and B close, D clearly worst."""
    rng = np.random.default_rng(seed)
    base = rng.random(n_users)
    return pd.DataFrame(
        {
            "A": base,
            "B": np.clip(base + rng.normal(0.005, 0.1, n_users), 0, 1),
            "C": np.clip(base + rng.normal(0.2, 0.05, n_users), 0, 1),
            "D": np.clip(base - 0.3, 0, 1),
        },
        index=pd.Index([f"u{i}" for i in range(n_users)], name="user"),
    )


@pytest.mark.parametrize("test", TESTS)
def test_pairs_are_paired_comparison_and_models_are_bootstrap_ci(test):
    values = _values()
    result = compare_models(values, test=test, n_permutations=2_000, n_bootstrap=300, seed=7)
    expected = paired_comparison(values, test=test, n_permutations=2_000, n_bootstrap=300,
                                 seed=7)
    pd.testing.assert_frame_equal(result.pairs, expected)
    order = result.models["model"].tolist()  # highest mean first
    assert order == values.mean().sort_values(ascending=False).index.tolist()
    assert order[0] == "C" and order[-1] == "D"
    for row in result.models.itertuples():
        mean, low, high = bootstrap_ci(values[row.model].to_numpy(), n_bootstrap=300, seed=7)
        assert row.mean == pytest.approx(mean)
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high), abs=1e-12)
        assert row.users == 300
    letters = significance_groups(values.mean(), expected)
    assert result.models.set_index("model")["group"].to_dict() == letters.to_dict()
    assert (result.test, result.correction, result.confidence) == (test, "holm", 0.95)


def test_letters_separate_clear_differences_only():
    result = compare_models(_values(), n_permutations=2_000, n_bootstrap=200)
    groups = result.models.set_index("model")["group"]
    assert groups["C"] == "a" and groups["D"] == "c"
    assert groups["A"] == groups["B"] == "b"  # A and B differ by chance only


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_another_correction_without_resampling(correction):
    values = _values()
    holm = compare_models(values, test="t", n_bootstrap=200)
    other = holm.with_correction(correction)
    direct = paired_comparison(values, test="t", correction=correction, n_bootstrap=200)
    pd.testing.assert_frame_equal(other.pairs, direct)
    assert other.correction == correction
    letters = significance_groups(values.mean(), direct)
    assert other.models.set_index("model")["group"].to_dict() == letters.to_dict()
    pd.testing.assert_frame_equal(other.models.drop(columns="group"),
                                  holm.models.drop(columns="group"))
    with pytest.raises(ValueError, match="correction"):
        holm.with_correction("sidak")


def test_a_pair_reads_in_either_direction():
    result = compare_models(_values(), test="t", n_bootstrap=200)
    forward = result.pair("A", "C")  # stored as A, C
    backward = result.pair("C", "A")
    assert (forward.model_a, forward.model_b) == ("A", "C")
    assert (backward.model_a, backward.model_b) == ("C", "A")
    assert backward.difference == -forward.difference
    assert (backward.ci_low, backward.ci_high) == (-forward.ci_high, -forward.ci_low)
    assert (backward.wins, backward.losses, backward.ties) == (
        forward.losses, forward.wins, forward.ties)
    assert backward.statistic == -forward.statistic
    assert backward.effect_size == -forward.effect_size
    assert (backward.p_value, backward.p_corrected) == (forward.p_value, forward.p_corrected)
    assert (backward.mean_a, backward.mean_b) == (forward.mean_b, forward.mean_a)
    with pytest.raises(ValueError, match="No pair compares 'A' with 'E'"):
        result.pair("A", "E")


def test_wilcoxon_statistic_does_not_change_sign():
    result = compare_models(_values(), test="wilcoxon", n_bootstrap=50)
    assert result.pair("C", "A").statistic == result.pair("A", "C").statistic >= 0


def test_the_interval_of_a_reversed_pair_is_the_bootstrap_of_the_reversed_differences():
    values = _values(200)
    result = compare_models(values, test="t", n_bootstrap=400, seed=3)
    reversed_row = result.pair("B", "A")  # A - B per user
    _, low, high = bootstrap_ci((values["A"] - values["B"]).to_numpy(), n_bootstrap=400, seed=3)
    assert (reversed_row.ci_low, reversed_row.ci_high) == pytest.approx((low, high), abs=1e-12)


def test_warnings_come_along():
    tiny = _values(8)
    assert compare_models(tiny, n_permutations=100, n_bootstrap=50).warnings[0].startswith(
        "Only 8 users")
    assert compare_models(_values(), n_permutations=100, n_bootstrap=50).warnings == ()


# ----- confidence bands of an Evaluation ---------------------------------------------------


@pytest.fixture(scope="module")
def evaluation():
    rng = np.random.default_rng(11)
    truth_rows, runs = [], {"good": [], "poor": []}
    for u in range(120):
        liked = rng.choice(60, size=6, replace=False)
        truth_rows += [(f"u{u}", f"i{i}", int(rng.integers(1, 6))) for i in liked]
        for model, boost in (("good", 2.0), ("poor", 0.2)):
            scores = rng.random(60) + boost * np.isin(np.arange(60), liked)
            top = np.argsort(-scores)[:15]
            runs[model] += [(f"u{u}", f"i{i}", float(scores[i])) for i in top]
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rating"])
    frames = {m: pd.DataFrame(r, columns=["user", "item", "score"]) for m, r in runs.items()}
    return evaluate(truth, frames, relevance=RelevanceMapping.binary(4), max_cutoff=12,
                    conventions=Conventions(empty_users="skip"))


def test_bands_at_every_cutoff_contain_the_curve(evaluation):
    bands = evaluation.confidence_bands(["ndcg", "precision"], n_bootstrap=200)
    assert list(bands.columns) == ["model", "metric", "cutoff", "mean", "ci_low", "ci_high"]
    assert len(bands) == 2 * 2 * 12
    for (model, metric), band in bands.groupby(["model", "metric"]):
        assert band["cutoff"].tolist() == list(range(1, 13))
        np.testing.assert_allclose(band["mean"], evaluation.curve(model, metric))
        assert (band["ci_low"] <= band["mean"] + 1e-12).all()
        assert (band["mean"] <= band["ci_high"] + 1e-12).all()
        assert (band["ci_high"] > band["ci_low"]).any()


def test_bands_equal_the_stats_function_on_per_user_values(evaluation):
    bands = evaluation.confidence_bands(["recall"], cutoffs=[3, 10], n_bootstrap=150,
                                        confidence=0.9, seed=5)
    for model in evaluation.models:
        per_user = evaluation.per_user(model, "recall")[[3, 10]].to_numpy()
        expected = confidence_bands({model: per_user}, cutoffs=[3, 10], n_bootstrap=150,
                                    confidence=0.9, seed=5)
        got = bands[bands["model"] == model]
        assert got["cutoff"].tolist() == [3, 10]
        np.testing.assert_allclose(got["ci_low"], expected["ci_low"], atol=1e-12)
        np.testing.assert_allclose(got["ci_high"], expected["ci_high"], atol=1e-12)


def test_bands_skip_a_model_without_counted_users():
    truth = pd.DataFrame({"user": ["a", "b"], "item": ["x", "x"], "rating": [1, 1]})
    run = pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"], "score": [1.0, 1.0]})
    empty = run.iloc[:0]
    ev = evaluate(truth, {"run": run, "empty": empty}, max_cutoff=2,
                  conventions=Conventions(missing_users="skip"))
    bands = ev.confidence_bands(["hit_rate"], n_bootstrap=20)
    assert set(bands["model"]) == {"run"}
    assert bands["mean"].tolist() == [0.5, 0.5]


def test_band_cutoffs_every_cutoff_when_small_else_a_spread():
    assert band_cutoffs(5, n_values_per_cutoff=10) == [1, 2, 3, 4, 5]
    # 100,000 users x 4 models x 6 metrics = 2.4 million values a cutoff; 2**24 fit 6
    # cutoffs
    spread = band_cutoffs(50, n_values_per_cutoff=2_400_000, keep=[10])
    assert spread == [1, 10, 20, 30, 40, 50]
    assert band_cutoffs(3, n_values_per_cutoff=10**9) == [1, 3]
    assert band_cutoffs(20, n_values_per_cutoff=100, max_values=600) == [1, 4, 8, 12, 16, 20]
    with pytest.raises(ValueError, match="max_cutoff"):
        band_cutoffs(0, n_values_per_cutoff=1)


def test_leaders_name_one_model_only_when_it_beats_every_other_significantly():
    values = _values()
    clear = compare_models(values, test="t", n_bootstrap=100)
    assert clear.leaders() == (["C"], True)
    close = compare_models(values.drop(columns=["C"]), test="t", n_bootstrap=100)
    # A and B differ by about 0.005 over 300 users: the paired test cannot separate them.
    assert not close.pair("A", "B")["significant"]
    leaders, single = close.leaders()
    assert sorted(leaders) == ["A", "B"] and not single
    assert leaders[0] == close.models["model"].iloc[0]


def test_leaders_are_the_top_model_and_every_model_not_significantly_below_it():
    values = _values()
    noise = np.random.default_rng(1).normal(0, 0.05, len(values))
    values["E"] = values["C"] + noise - noise.mean() + 1e-4  # a hair above C, within noise
    comparison = compare_models(values, test="t", n_bootstrap=100)
    assert not comparison.pair("C", "E")["significant"]
    leaders, single = comparison.leaders()
    assert leaders == ["E", "C"] and not single
    assert all(comparison.pair("E", m)["significant"] for m in ("A", "B", "D"))
