"""Why the presets disagree: every preset's mean, the settings two presets differ on, each
setting's move on its own (all of them together giving the other preset's value), and the
users moved most; checked against pytrec_eval and against evaluating each set of conventions
afresh."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.conventions import PRESETS
from rankmetrics.disagreement import ALL_SETTINGS, compare_presets
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})


@pytest.fixture(scope="module")
def data():
    truth, run = random_data(4, ratings="stars", n_users=40)
    other = run.assign(score=run["score"].sample(frac=1.0, random_state=1).to_numpy())
    return truth, {"model": run, "other": other}


@pytest.fixture(scope="module")
def compared(data):
    truth, runs = data
    evaluation = evaluate(truth, runs, relevance=STARS, max_cutoff=10)
    return compare_presets(evaluation, "ndcg", 10)


def _alone(data, conventions: Conventions, metric="ndcg", cutoff=10) -> dict[str, float]:
    truth, runs = data
    evaluation = evaluate(truth, runs, relevance=STARS, conventions=conventions, max_cutoff=10)
    return {model: float(means[metric][cutoff - 1])
            for model, means in evaluation.means([metric]).items()}


def test_each_presets_mean_is_that_preset_evaluated_alone(data, compared):
    assert list(compared.values.index) == list(PRESETS)
    for name in PRESETS:
        alone = _alone(data, PRESETS[name])
        for model in ("model", "other"):
            assert compared.values.at[name, model] == pytest.approx(alone[model], abs=1e-12)


def test_the_trec_eval_row_is_pytrec_evals_mean_over_every_ground_truth_user(data, compared):
    truth, runs = data
    grades = truth.assign(rating=STARS.grades(truth["rating"].to_numpy()).astype(int))
    qrels = {user: dict(zip(group["item"], group["rating"].tolist(), strict=True))
             for user, group in grades.groupby("user")}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}, relevance_level=2)
    for model, run in runs.items():
        listed = {user: dict(zip(group["item"], group["score"].tolist(), strict=True))
                  for user, group in run.groupby("user") if user in qrels}
        values = evaluator.evaluate(listed)
        # trec_eval -c: a user the model returned nothing for counts as 0
        mean = sum(v["ndcg_cut_10"] for v in values.values()) / len(qrels)
        assert compared.values.at["trec_eval", model] == pytest.approx(mean, abs=1e-9)


def test_one_setting_at_a_time_and_all_of_them_give_the_other_preset(data, compared):
    pairs = compared.disagreeing_pairs()
    assert ("default", "trec_eval") in pairs and ("trec_eval", "ranx_burges") in pairs
    for a, b in pairs:
        differing = compared.differing_settings(a, b)
        assert differing == [option for option in PRESETS[a].as_dict()
                             if getattr(PRESETS[a], option) != getattr(PRESETS[b], option)]
        steps = compared.steps(a, b)
        assert list(dict.fromkeys(steps["setting"])) == [*differing, ALL_SETTINGS]
        for setting in differing:
            alone = _alone(data, dataclasses.replace(PRESETS[a], **{
                setting: getattr(PRESETS[b], setting)}))
            for row in steps[steps["setting"] == setting].itertuples():
                assert row.value == pytest.approx(alone[row.model], abs=1e-12)
                assert row.move == pytest.approx(alone[row.model]
                                                 - compared.values.at[a, row.model], abs=1e-12)
        everything = steps[steps["setting"] == ALL_SETTINGS].set_index("model")
        for model in ("model", "other"):
            assert everything.at[model, "value"] == compared.values.at[b, model]
            assert everything.at[model, "move"] == pytest.approx(
                compared.values.at[b, model] - compared.values.at[a, model], abs=1e-15)
    trec = compared.steps("default", "trec_eval")
    gain = trec[(trec["setting"] == "gain") & (trec["model"] == "model")].iloc[0]
    assert (gain["from"], gain["to"]) == ("exponential gain (2^g − 1)", "linear gain (g)")


def test_the_users_moved_most_are_the_largest_per_user_changes(data, compared):
    truth, runs = data
    moved = compared.users_moved("default", "retrieved_ideal", "model", n=5)
    a = evaluate(truth, runs, relevance=STARS, max_cutoff=10).per_user_at("model", "ndcg", 10)
    b = evaluate(truth, runs, relevance=STARS, max_cutoff=10,
                 conventions=PRESETS["retrieved_ideal"]).per_user_at("model", "ndcg", 10)
    change = (b - a).dropna()
    expected = change.abs().sort_values(ascending=False, kind="stable").head(5)
    assert moved["user"].tolist() == expected.index.tolist()
    np.testing.assert_allclose(moved["move"].abs(), expected.to_numpy(), atol=1e-12)
    # counted under one preset only: after every user counted under both, the other empty
    skipped = compared.users_moved("default", "trec_eval", "model", n=len(truth))
    alone = skipped[skipped["value_a"].isna()]
    assert len(alone) > 0 and alone.index.min() > skipped["value_a"].last_valid_index()


def test_agreeing_presets_share_nothing_to_explain_and_bad_names_are_named(data):
    truth, runs = data
    binary = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10)
    compared = compare_presets(binary, "precision", 5, presets=["trec_eval", "ranx_burges"])
    assert compared.disagreeing_pairs() == []  # they differ on the gain, which P ignores
    with pytest.raises(ValueError, match="No preset 'ranx'"):
        compared.steps("trec_eval", "ranx")
    with pytest.raises(ValueError, match="No model 'missing'"):
        compared.users_moved("trec_eval", "ranx_burges", "missing")
    with pytest.raises(ValueError, match="'presets' argument"):
        compare_presets(binary, "ndcg", 5, presets=["scikit_learn"])
    with pytest.raises(ValueError, match="need the models' files evaluated again"):
        binary.with_conventions(Conventions(ties="input"))


def test_a_metric_without_a_cutoff(data):
    truth, runs = data
    evaluation = evaluate(truth, runs, relevance=STARS, max_cutoff=10)
    compared = compare_presets(evaluation, "r_precision", None)
    assert compared.cutoff is None and "@" not in compared.label
    alone = evaluate(truth, runs, relevance=STARS, max_cutoff=10,
                     conventions=PRESETS["trec_eval"]).means(["r_precision"])
    assert compared.values.at["trec_eval", "model"] == pytest.approx(
        float(np.asarray(alone["model"]["r_precision"]).ravel()[0]), abs=1e-12)
    assert isinstance(compared.values, pd.DataFrame)


def test_the_presets_with_a_binary_ndcg_are_named_only_when_grades_matter():
    truth, run = random_data(77, ratings="stars")
    graded = evaluate(truth, {"model": run}, relevance=STARS, max_cutoff=10)
    binary = evaluate(truth, {"model": run}, relevance=RelevanceMapping.binary(4), max_cutoff=10)
    note = compare_presets(graded, "ndcg", 10).grades_note
    assert note is not None and "Spark MLlib" in note and "Microsoft Recommenders" in note
    assert compare_presets(binary, "ndcg", 10).grades_note is None
    assert compare_presets(graded, "precision", 10).grades_note is None
    assert compare_presets(graded, "ndcg", 10, ["default", "trec_eval"]).grades_note is None
