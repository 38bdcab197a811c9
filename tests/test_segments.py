"""Segments: per-segment means equal evaluating each segment alone, the p-values of all
segment x pair tests are corrected as one family, and the warnings fire when they should."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.io import attributes_from_dataframe, read_attributes, read_run, read_truth
from rankmetrics.segments import (
    ACTIVITY,
    COLD_START,
    GROUND_TRUTH_SIZE,
    NO_VALUE,
    OTHER,
    TOO_FEW,
    compare_segments,
    quantile_buckets,
    segment_curves,
    segment_users,
    segmentation_names,
)
from rankmetrics.stats import compare_models, correct_pvalues
from tests.helpers import MOVIE_MODELS, MOVIES, REPO, random_data

SIMPSON = REPO / "data" / "simpson"
FAST = {"n_permutations": 500, "n_bootstrap": 100}


@pytest.fixture(scope="module")
def movies():
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    return truth, runs, read_attributes(MOVIES / "users.csv")


def movies_evaluation(movies, conventions=None):
    truth, runs, _ = movies
    return evaluate(truth, runs, relevance=RelevanceMapping.binary(4),
                    conventions=conventions or Conventions(), max_cutoff=20)


def simpson_evaluation(conventions):
    truth = read_truth(SIMPSON / "ground_truth.csv")
    runs = {name: read_run(SIMPSON / f"{name}.csv") for name in ("thorough", "cautious")}
    return evaluate(truth, runs, conventions=conventions, max_cutoff=10)


# Means and tests ---------------------------------------------------------------------------

@pytest.mark.parametrize("conventions", [Conventions(),
                                         Conventions(missing_users="skip", empty_users="zero")])
@pytest.mark.parametrize("by", ["plan", "age", GROUND_TRUTH_SIZE])
def test_segment_means_equal_evaluating_each_segment_alone(movies, conventions, by):
    truth, runs, attributes = movies
    evaluation = movies_evaluation(movies, conventions)
    segmentation = segment_users(evaluation, by, attributes=attributes)
    users = evaluation.truth.users
    alone_evaluations = {}  # each segment's users evaluated on their own, once for every metric
    for label in segmentation.labels:
        alone = set(segmentation.users_of(label, users))
        sub_truth = truth.table[truth.table["user"].isin(alone)]
        sub_runs = {name: run.table[run.table["user"].isin(alone)]
                    for name, run in runs.items()}
        alone_evaluations[label] = evaluate(sub_truth, sub_runs,
                                            relevance=RelevanceMapping.binary(4),
                                            conventions=conventions, max_cutoff=20)
    for metric, cutoff in (("ndcg", 10), ("recall", 5), ("precision", 20), ("map", 3)):
        result = compare_segments(evaluation, segmentation, metric, cutoff, test="t", **FAST)
        for label, sub in alone_evaluations.items():
            rows = result.models[result.models["segment"] == label].set_index("model")
            for model in MOVIE_MODELS:
                expected = sub.curve(model, metric)[cutoff - 1]
                assert rows.loc[model, "mean"] == pytest.approx(expected, abs=1e-12, nan_ok=True)
                assert rows.loc[model, "users"] == int(sub.included(model).sum())


def test_segment_curves_equal_the_table_and_evaluating_each_segment_alone(movies):
    truth, runs, attributes = movies
    evaluation = movies_evaluation(movies, Conventions(missing_users="skip"))
    segmentation = segment_users(evaluation, "plan", attributes=attributes)
    curves = segment_curves(evaluation, segmentation, "ndcg")
    assert len(curves) == 3 * 4 * 20
    table = compare_segments(evaluation, segmentation, "ndcg", 7, test="t", **FAST).models
    at_7 = curves[curves["cutoff"] == 7].reset_index(drop=True)
    np.testing.assert_allclose(at_7["value"], table["mean"], rtol=0, atol=1e-12)
    premium = set(segmentation.users_of("premium", evaluation.truth.users))
    alone = evaluate(truth.table[truth.table["user"].isin(premium)],
                     {name: run.table[run.table["user"].isin(premium)]
                      for name, run in runs.items()},
                     relevance=RelevanceMapping.binary(4),
                     conventions=Conventions(missing_users="skip"), max_cutoff=20)
    for model in MOVIE_MODELS:
        mine = curves[(curves["segment"] == "premium") & (curves["model"] == model)]["value"]
        np.testing.assert_allclose(mine, alone.curve(model, "ndcg"), rtol=0, atol=1e-12)


def test_corrected_p_values_are_the_correction_of_the_flat_list(movies):
    evaluation = movies_evaluation(movies)
    segmentation = segment_users(evaluation, "plan", attributes=movies[2])
    for correction in ("holm", "bonferroni", "bh"):
        result = compare_segments(evaluation, segmentation, "ndcg", 10, test="t",
                                  correction=correction, **FAST)
        raw = []
        paired = evaluation.paired("ndcg", 10)
        for label in segmentation.labels:
            alone = paired.loc[paired.index.isin(segmentation.users_of(
                label, evaluation.truth.users))]
            raw.extend(compare_models(alone, test="t", **FAST).pairs["p_value"])
        assert result.pairs["p_value"].tolist() == raw
        expected = correct_pvalues(raw, correction)
        np.testing.assert_array_equal(result.pairs["p_corrected"].to_numpy(), expected)
        np.testing.assert_array_equal(result.pairs["significant"].to_numpy(), expected < 0.05)
        assert len(raw) == 3 * 6  # segments x pairs of 4 models


def test_verdicts_against_the_baseline_follow_the_corrected_tests(movies):
    evaluation = movies_evaluation(movies)
    result = compare_segments(evaluation, segment_users(evaluation, "plan",
                                                        attributes=movies[2]),
                              "ndcg", 10, baseline="top_heavy", **FAST)
    rows = result.models.set_index(["segment", "model"])
    assert rows.loc[("premium", "top_heavy"), "verdict"] == "baseline"
    assert rows.loc[("premium", "personalized"), "verdict"] == "better"
    assert rows.loc[("free", "personalized"), "verdict"] == "worse"
    assert rows.loc[("free", "random"), "verdict"] == "worse"
    premium = rows.loc[("premium", "personalized")]
    assert premium["difference"] == pytest.approx(
        premium["mean"] - rows.loc[("premium", "top_heavy"), "mean"], abs=1e-12)


def test_another_baseline_without_testing_again(movies):
    evaluation = movies_evaluation(movies)
    split = segment_users(evaluation, "plan", attributes=movies[2])
    first = compare_segments(evaluation, split, "ndcg", 10, test="t", **FAST)
    direct = compare_segments(evaluation, split, "ndcg", 10, baseline="top_heavy", test="t",
                              **FAST)
    switched = first.with_baseline("top_heavy")
    assert switched.baseline == "top_heavy"
    pd.testing.assert_frame_equal(switched.models, direct.models)


# Warnings ----------------------------------------------------------------------------------

def test_simpsons_paradox_is_named_on_the_teaching_example():
    evaluation = simpson_evaluation(Conventions(missing_users="skip"))
    users = read_attributes(SIMPSON / "users.csv")
    result = compare_segments(evaluation, segment_users(evaluation, "user_type",
                                                        attributes=users), "ndcg", 10)
    assert result.simpson
    assert result.overall_winner == "cautious"
    # cautious: (189 + 8) hits at rank 1 among its 310 listed users; thorough: 330 of 600
    assert result.overall_means.to_dict() == pytest.approx({"thorough": 330 / 600,
                                                            "cautious": 197 / 310})
    means = result.models.set_index(["segment", "model"])["mean"]
    assert means[("returning", "thorough")] == pytest.approx(240 / 300)
    assert means[("returning", "cautious")] == pytest.approx(189 / 270)
    assert means[("new", "thorough")] == pytest.approx(90 / 300)
    assert means[("new", "cautious")] == pytest.approx(8 / 40)
    assert result.segments["winner"].tolist() == ["thorough", "thorough"]
    assert result.warnings[0].startswith("Simpson's paradox: cautious has the highest NDCG@10 "
                                         "over all users (0.6355)")
    # one message names each segment's winner; no second banner repeats it
    assert "best is thorough for new (50% of users" in result.warnings[0]
    assert "thorough for returning (50% of users" in result.warnings[0]
    assert not [w for w in result.warnings if "best overall, but" in w]


def test_no_paradox_when_every_model_counts_every_user():
    evaluation = simpson_evaluation(Conventions())
    users = read_attributes(SIMPSON / "users.csv")
    result = compare_segments(evaluation, segment_users(evaluation, "user_type",
                                                        attributes=users), "ndcg", 10)
    assert not result.simpson and result.warnings == ()
    assert result.overall_winner == "thorough"


def test_movies_plan_warns_that_the_overall_winner_loses_for_premium_users(movies):
    evaluation = movies_evaluation(movies)
    result = compare_segments(evaluation, segment_users(evaluation, "plan",
                                                        attributes=movies[2]), "ndcg", 10)
    assert not result.simpson
    assert result.warnings == ("top_heavy is best overall, but personalized is best for plan = "
                               "premium (9% of users), significantly.",)
    table = result.table()
    assert table["segment"].tolist() == ["free", "premium", NO_VALUE]
    assert table["users"].tolist() == [1777, 183, 40]
    assert table.columns.tolist() == ["segment", "users", "share", *MOVIE_MODELS, "winner",
                                      "significant"]


def test_tiny_segments_are_shown_but_not_tested(movies):
    evaluation = movies_evaluation(movies)
    result = compare_segments(evaluation, segment_users(evaluation, "plan",
                                                        attributes=movies[2]),
                              "ndcg", 10, min_users=100, **FAST)
    tiny = result.segments.set_index("segment").loc[NO_VALUE]
    assert bool(tiny["too_few"]) and not bool(tiny["significant"])
    verdicts = result.models[result.models["segment"] == NO_VALUE]["verdict"]
    assert verdicts.tolist() == ["baseline", TOO_FEW, TOO_FEW, TOO_FEW]
    assert set(result.pairs["segment"]) == {"free", "premium"}
    assert result.warnings[-1] == ("Too few users to tell (fewer than 100 counted by every "
                                   "model, so not tested): (no value) (39 users).")
    assert result.table().set_index("segment").loc[NO_VALUE, "significant"] == TOO_FEW


# Segmentations -----------------------------------------------------------------------------

def test_quantile_buckets_by_hand():
    # quartile edges of 1..8 are 2.75, 4.5, 6.25: {1, 2}, {3, 4}, {5, 6}, {7, 8}
    codes, labels = quantile_buckets(np.array([1.0, 2, 3, 4, 5, 6, 7, 8, np.nan]), 4)
    assert codes.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, -1]
    assert labels == ["1–2", "3–4", "5–6", "7–8"]
    # repeated values merge buckets: edges of [1, 1, 1, 1, 2] are all 1
    codes, labels = quantile_buckets(np.array([1.0, 1, 1, 1, 2.5]), 4)
    assert codes.tolist() == [0, 0, 0, 0, 1] and labels == ["1", "2.5"]


def small_evaluation():
    truth, run = random_data(3, n_users=30)
    return evaluate(truth, {"a": run, "b": run.assign(score=-run["score"])}, max_cutoff=5)


def test_users_without_an_attribute_row_are_a_segment_of_their_own():
    evaluation = small_evaluation()
    users = list(evaluation.truth.users)
    attributes = attributes_from_dataframe(
        pd.DataFrame({"user": users[:20] + ["stranger"],
                      "plan": ["free"] * 12 + ["paid"] * 8 + ["paid"]}),
        key="user", name="plans")
    segmentation = segment_users(evaluation, "plan", attributes=attributes)
    assert segmentation.labels == ("free", "paid", NO_VALUE)
    assert segmentation.sizes().tolist() == [12, 8, 10]
    assert list(segmentation.users_of(NO_VALUE, users)) == users[20:]
    assert not segmentation.overlapping


def test_several_categories_per_user_overlap():
    evaluation = small_evaluation()
    users = list(evaluation.truth.users)
    attributes = attributes_from_dataframe(
        pd.DataFrame({"user": users[:3], "likes": ["jazz|rock", "rock", "pop"]}),
        key="user", name="likes")
    segmentation = segment_users(evaluation, "likes", attributes=attributes)
    assert segmentation.overlapping
    assert segmentation.labels == ("rock", "jazz", "pop", NO_VALUE)
    assert segmentation.sizes().tolist() == [2, 1, 1, 27]


def test_a_column_of_many_values_keeps_the_largest_segments():
    truth, run = random_data(5, n_users=40)
    evaluation = evaluate(truth, {"a": run}, max_cutoff=3)
    users = list(evaluation.truth.users)
    # 32 distinct values: v00 for 9 users, v01..v31 for one each; the 29 largest are kept
    # (v00, then v01..v28 by name) and v29..v31 merged
    values = ["v00"] * 9 + [f"v{i:02d}" for i in range(1, 32)]
    attributes = attributes_from_dataframe(pd.DataFrame({"user": users, "code": values}),
                                           key="user", name="codes")
    segmentation = segment_users(evaluation, "code", attributes=attributes)
    assert segmentation.labels == ("v00", *(f"v{i:02d}" for i in range(1, 29)), OTHER)
    assert segmentation.sizes().tolist() == [9] + [1] * 28 + [3]


def test_activity_and_cold_start_from_training_counts():
    evaluation = small_evaluation()
    users = list(evaluation.truth.users)
    counts = pd.Series(range(1, 21), index=users[:20])  # 10 users have none
    assert segmentation_names(None, counts) == [GROUND_TRUTH_SIZE, ACTIVITY, COLD_START]
    assert segmentation_names() == [GROUND_TRUTH_SIZE]
    cold = segment_users(evaluation, COLD_START, training_counts=counts, cold_start_below=5)
    assert cold.labels == ("no training interaction", "1–4 training interactions",
                           "5 or more")
    assert cold.sizes().tolist() == [10, 4, 16]
    activity = segment_users(evaluation, ACTIVITY, training_counts=counts, n_buckets=2)
    # the median of ten 0s and 1..20 is 6: 0..5 and 6..20
    assert activity.labels == ("0–5", "6–20")
    assert activity.sizes().tolist() == [15, 15]


def test_ground_truth_size_counts_each_users_rows():
    evaluation = small_evaluation()
    sizes = np.bincount(evaluation.truth.user_index)
    segmentation = segment_users(evaluation, GROUND_TRUTH_SIZE, n_buckets=2)
    low = segmentation.members[0]
    assert sizes[low].max() < sizes[~low].min()


def test_bad_arguments_name_what_is_accepted():
    evaluation = small_evaluation()
    with pytest.raises(ValueError, match="by= must be one of 'ground-truth size'. Got 'plan'"):
        segment_users(evaluation, "plan")
    segmentation = segment_users(evaluation, GROUND_TRUTH_SIZE)
    with pytest.raises(ValueError, match="baseline"):
        compare_segments(evaluation, segmentation, "ndcg", 5, baseline="zzz")
    with pytest.raises(ValueError, match="min_users"):
        compare_segments(evaluation, segmentation, "ndcg", 5, min_users=1)


# Figures -----------------------------------------------------------------------------------

def test_heatmap_colours_each_cell_by_its_verdict(movies):
    from rankmetrics.figures.segments import segment_heatmap

    evaluation = movies_evaluation(movies)
    result = compare_segments(evaluation, segment_users(evaluation, "plan",
                                                        attributes=movies[2]),
                              "ndcg", 10, baseline="top_heavy", min_users=100, **FAST)
    fig = segment_heatmap(result.models, "top_heavy", "NDCG@10", order=list(MOVIE_MODELS))
    heatmap = fig.data[0]
    assert heatmap.meta == {"role": "verdicts"}
    assert list(heatmap.y) == ["free", "premium", NO_VALUE]
    # columns popularity, personalized, top_heavy (baseline), random
    assert [list(row) for row in heatmap.z] == [[-1, -1, None, -1], [-1, 1, None, -1],
                                                [None, None, None, None]]
    premium = result.models.set_index(["segment", "model"]).loc[("premium", "personalized")]
    assert heatmap.text[1][1].startswith(f"▲ {premium['difference']:+.4f}<br>")
    assert heatmap.text[2][0] == "too few users" and heatmap.text[0][2] == "baseline"


def test_small_multiples_fade_tiny_segments_and_keep_the_model_colours():
    from rankmetrics.figures.segments import segment_curves_figure

    curves = pd.DataFrame({"segment": ["big"] * 4 + ["<b>tiny</b>"] * 4,
                           "model": ["a", "a", "b", "b"] * 2, "cutoff": [1, 2] * 4,
                           "value": [0.5, 0.4, 0.3, 0.2, 0.1, 0.1, 0.9, 0.8]})
    fig = segment_curves_figure(curves, "ndcg", 2, {"a": "#0072B2", "b": "#E69F00"},
                                too_few={"<b>tiny</b>"}, users={"big": 1200, "<b>tiny</b>": 3})
    assert [(trace.meta["segment"], trace.name, trace.line.color) for trace in fig.data] == [
        ("big", "a", "#0072B2"), ("big", "b", "#E69F00"),
        ("<b>tiny</b>", "a", "rgba(0, 114, 178, 0.3)"),
        ("<b>tiny</b>", "b", "rgba(230, 159, 0, 0.3)")]
    assert [a.text for a in fig.layout.annotations] == [
        "big (1,200 users)", "&lt;b&gt;tiny&lt;/b&gt; (3 users)<br>too few users to tell"]
    assert list(fig.data[2].y) == [0.1, 0.1]


def test_a_one_user_segment_is_one_user_not_one_users():
    from rankmetrics.segments.compare import _warnings
    segments = pd.DataFrame({"segment": ["big", "5"], "share": [0.9, 0.1],
                             "winner": ["a", "a"], "significant": [True, False],
                             "too_few": [False, True], "tested_users": [200, 1]})
    warnings = _warnings(segments, pd.Series({"a": 0.5}), "a", False, "ndcg", 10, "plan",
                         0.05, 30, "holm")
    assert warnings == ["Too few users to tell (fewer than 30 counted by every model, so not "
                        "tested): 5 (1 user)."]
