"""Choosing K's analyses, run on a saved evaluation, equal the same analyses of the
evaluation it was saved from at the saved cutoffs; the parts factored out of the analyses
(the band from per-user differences, the winners from tests, the marks from means and tests)
give what the analyses gave; a saved evaluation's width is the evaluation's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankmetrics import Conventions, RelevanceMapping, evaluate, load_bundle
from rankmetrics.choosing_k.report import _flat, k_report
from rankmetrics.choosing_k.significance import (
    cutoff_table,
    difference_band,
    difference_band_of,
    leaders_over_k,
    marked_best,
    paired_values,
    significance_by_metric,
    significance_over_k,
    winner_map,
    winners,
)
from rankmetrics.metrics import MAIN_METRICS, METRICS
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Three models of 120 users evaluated to K = 30, and the bundle saved from it."""
    truth, first = random_data(21, ratings="stars", n_users=120)
    _, second = random_data(22, ratings="stars", n_users=120)
    _, third = random_data(23, ratings="stars", n_users=120)
    evaluation = evaluate(truth, {"first": first, "second": second, "third": third},
                          relevance=STARS, conventions=Conventions.preset("trec_eval"),
                          max_cutoff=30)
    folder = evaluation.save(tmp_path_factory.mktemp("k_saved") / "b", chosen_cutoff=7,
                             sample=20)
    return evaluation, load_bundle(folder)


def test_a_band_from_per_user_differences_is_the_evaluations_band(saved):
    evaluation, _ = saved
    cutoffs = [1, 4, 9, 30]
    values = paired_values(evaluation, "ndcg", cutoffs)
    band = difference_band_of(values["third"] - values["first"], cutoffs, confidence=0.9)
    expected = difference_band(evaluation, "ndcg", "first", "third", cutoffs=cutoffs,
                               confidence=0.9)
    pd.testing.assert_frame_equal(band, expected, check_exact=False, rtol=0, atol=1e-12)
    # and scipy's paired t interval at one cutoff, written out
    interval = stats.ttest_rel(values["third"][:, 2], values["first"][:, 2]
                               ).confidence_interval(0.9)
    assert band["ci_low"].iloc[2] == pytest.approx(interval.low, abs=1e-12)
    assert band["ci_high"].iloc[2] == pytest.approx(interval.high, abs=1e-12)


def test_a_band_needs_a_column_per_cutoff_and_two_users():
    with pytest.raises(ValueError, match="one column per cutoff"):
        difference_band_of(np.zeros((5, 2)), [1, 2, 3])
    with pytest.raises(ValueError, match="Only 1 user"):
        difference_band_of(np.zeros((1, 1)), [1])


def test_winners_and_marks_from_tests_are_those_of_the_evaluations_analyses(saved):
    evaluation, _ = saved
    tests = significance_by_metric(evaluation, ["ndcg", "recall"], cutoffs=[1, 5, 10])
    found = winners({"NDCG": tests["ndcg"], "Recall": tests["recall"]})
    expected = winner_map({"NDCG": evaluation, "Recall": evaluation},
                          {"NDCG": "ndcg", "Recall": "recall"}, cutoffs=[1, 5, 10])
    pd.testing.assert_frame_equal(found, expected)
    assert found["row"].tolist() == ["NDCG"] * 3 + ["Recall"] * 3
    marked = marked_best(evaluation.summary(["ndcg", "recall"], [1, 5, 10]), tests)
    pd.testing.assert_frame_equal(marked, cutoff_table(evaluation, ["ndcg", "recall"],
                                                       [1, 5, 10]))
    best = leaders_over_k(tests["ndcg"])
    shown = marked.loc[marked["significantly_best"] & (marked["metric"] == "ndcg")]
    assert sorted(zip(shown["cutoff"], shown["model"], strict=True)) == sorted(
        zip(best.loc[best["significantly_best"], "cutoff"],
            best.loc[best["significantly_best"], "best"], strict=True))


def test_the_band_of_a_saved_evaluation_is_the_evaluations_at_its_cutoffs(saved):
    evaluation, bundle = saved
    assert bundle.cutoffs == [1, 3, 5, 7, 10, 20]
    band = difference_band(bundle, "map", "second", "first", confidence=0.95)
    expected = difference_band(evaluation, "map", "second", "first", cutoffs=bundle.cutoffs)
    pd.testing.assert_frame_equal(band, expected, check_exact=False, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="not a model"):
        difference_band(bundle, "map", "second", "fourth")
    with pytest.raises(ValueError, match="two different models"):
        difference_band(bundle, "map", "first", "first")


def test_the_table_of_cutoffs_of_a_saved_evaluation_is_the_evaluations(saved):
    evaluation, bundle = saved
    table = cutoff_table(bundle, MAIN_METRICS, [1, 5, 10])
    expected = cutoff_table(evaluation, MAIN_METRICS, [1, 5, 10])
    pd.testing.assert_frame_equal(table, expected, check_exact=False, rtol=0, atol=1e-12)
    assert table["significantly_best"].any()
    # K = 12 is not saved: its means are shown, and no model is marked there
    mixed = cutoff_table(bundle, ["ndcg"], [10, 12])
    means = evaluation.summary(["ndcg"], [10, 12])
    np.testing.assert_allclose(mixed["value"], means["value"], rtol=0, atol=1e-12)
    assert not mixed.loc[mixed["cutoff"] == 12, "significantly_best"].any()
    pd.testing.assert_frame_equal(
        mixed.loc[mixed["cutoff"] == 10].reset_index(drop=True),
        cutoff_table(evaluation, ["ndcg"], [10]), check_exact=False, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="cutoff"):
        cutoff_table(bundle, ["ndcg"], [31])


def test_tests_at_some_saved_cutoffs_only(saved):
    evaluation, bundle = saved
    got = significance_over_k(bundle, "recall", cutoffs=[20, 5])
    expected = significance_over_k(evaluation, "recall", cutoffs=[5, 20])
    assert got["cutoff"].unique().tolist() == [5, 20]
    np.testing.assert_allclose(got["p_corrected"], expected["p_corrected"], rtol=1e-9,
                               atol=1e-12)
    with pytest.raises(ValueError, match="holds per-user values at K = 1, 3, 5, 7, 10, 20"):
        significance_over_k(bundle, "recall", cutoffs=[4])


def test_the_width_of_a_saved_evaluation_is_the_evaluations(tmp_path):
    # lists of 3 items, K to 8: past K = 3 no value changes but Precision's 1/K
    truth = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"],
                          "rating": [1, 1, 1]})
    run = pd.DataFrame({"user": ["u1"] * 3 + ["u2"] * 3, "item": ["x", "a", "b", "c", "y", "z"],
                        "score": [3.0, 2, 1, 3, 2, 1]})
    evaluation = evaluate(truth, {"m": run, "n": run.assign(score=run["score"][::-1].values)},
                          relevance=RelevanceMapping.binary(1), max_cutoff=8)
    bundle = load_bundle(evaluation.save(tmp_path / "b", sample=2))
    assert bundle.width == evaluation.width == 3


def test_the_band_at_saved_cutoffs_is_drawn_with_a_dot_at_each_and_an_unmarked_interval(saved):
    from rankmetrics.figures.choosing_k import difference_figure

    evaluation, bundle = saved
    gapped = difference_figure(difference_band(bundle, "map", "second", "first"),
                               "second", "first", "MAP", 0.95, 10)
    every = difference_figure(difference_band(evaluation, "map", "second", "first"),
                              "second", "first", "MAP", 0.95, 10)
    assert [trace.mode for trace in gapped.data] == ["lines", "lines+markers"]
    assert [trace.mode for trace in every.data] == ["lines", "lines"]
    assert list(gapped.data[1].x) == bundle.cutoffs


def test_the_report_of_a_saved_evaluation_is_the_evaluations_at_its_cutoffs(saved):
    # Means at every K: the tables equal the evaluation's report. Per-user values at the
    # saved cutoffs: the tests, the band, the winners by metric and the marks equal the
    # evaluation's analyses there. Lists of the sampled users: the winners by relevance and
    # the ties equal the report of those users' evaluation.
    evaluation, bundle = saved
    options = {"test": "t", "correction": "holm", "confidence": 0.9}
    ours = k_report(bundle, metric="ndcg", cutoff=7, table_cutoffs=(1, 7, 9), **options)
    live = k_report(evaluation, metric="ndcg", cutoff=7, table_cutoffs=(1, 7, 9), **options)
    for name in ("curves", "leaderboard", "crossovers", "kendall_tau"):
        pd.testing.assert_frame_equal(ours.tables[name], live.tables[name], check_exact=False,
                                      rtol=0, atol=1e-12)
    at_saved = live.tables["pairs_over_k"]
    at_saved = at_saved.loc[at_saved["cutoff"].isin(bundle.cutoffs)].reset_index(drop=True)
    pd.testing.assert_frame_equal(ours.tables["pairs_over_k"], at_saved, check_exact=False,
                                  rtol=0, atol=1e-12)
    model_a, model_b = ours.tables["difference_band"].iloc[0][["model_a", "model_b"]]
    assert (model_a, model_b) == tuple(live.tables["difference_band"].iloc[0][
        ["model_a", "model_b"]])
    band = difference_band(evaluation, "ndcg", model_a, model_b, cutoffs=bundle.cutoffs,
                           confidence=0.9).assign(model_a=model_a, model_b=model_b)
    pd.testing.assert_frame_equal(ours.tables["difference_band"], band, check_exact=False,
                                  rtol=0, atol=1e-12)
    expected = _flat({"map": winner_map(
        {METRICS[name].label: evaluation for name in MAIN_METRICS},
        {METRICS[name].label: name for name in MAIN_METRICS}, cutoffs=bundle.cutoffs,
        n_permutations=1_000, **options)})["map"]
    pd.testing.assert_frame_equal(ours.tables["winners_by_metric"], expected)
    marks = ours.tables["cutoff_table"].set_index(["model", "metric", "cutoff"])
    theirs = live.tables["cutoff_table"].set_index(["model", "metric", "cutoff"])
    np.testing.assert_allclose(marks["value"], theirs.loc[marks.index, "value"], rtol=0,
                               atol=1e-12)
    tested = marks.index.get_level_values("cutoff").isin(bundle.cutoffs)
    assert (marks.loc[tested, "significantly_best"]
            == theirs.loc[marks.index[tested], "significantly_best"]).all()
    assert not marks.loc[~tested, "significantly_best"].any()  # K = 9 is not saved
    sample = k_report(bundle.sample_evaluation, metric="ndcg", cutoff=7,
                      runs=bundle.sample_run_tables, **options)
    for name in ("winners_by_relevance", "tie_bounds", "tie_flags"):
        pd.testing.assert_frame_equal(ours.tables[name], sample.tables[name])
    cutoffs = ", ".join(map(str, bundle.cutoffs))
    assert [sentence.text.split(": ")[0] for sentence in ours.summary[2:]] == [
        f"At the saved cutoffs {cutoffs}", "On the 20 sampled users", "On the 20 sampled users"]
    assert ours.summary[:2] == live.summary[:2]


def test_a_relevance_threshold_no_user_reaches_is_named(tmp_path):
    truth, first = random_data(31, ratings="stars", n_users=40)
    _, second = random_data(32, ratings="stars", n_users=40)
    evaluation = evaluate(truth, {"first": first, "second": second}, relevance=STARS,
                          max_cutoff=10)  # users without a relevant item are skipped
    bundle = load_bundle(evaluation.save(tmp_path / "b", sample=40))
    unreachable = {"grade >= 9": RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=9)}
    for source in (evaluation, bundle):
        with pytest.raises(ValueError, match="Under the relevance mapping grade >= 9, 0 users "
                           "are counted by every model, and paired tests need at least 2"):
            k_report(source, metric="ndcg", cutoff=5, relevance_mappings=unreachable)
