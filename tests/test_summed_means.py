"""Means summed from the judged items alone equal the mean of the per-user values.

:meth:`Evaluation.means` sums most metrics over users without making per-user values
(cumulative sums over ranks, NDCG per distinct ideal list); :meth:`Evaluation.per_user` makes
every user's values at every cutoff with the dense kernels. Two computations written
independently, compared under every convention, on the fallbacks too (many distinct gains,
too many distinct ideal lists).
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.conventions import OPTION_CHOICES
from rankmetrics.metrics import METRICS
from tests.helpers import convention_combinations, random_data

evaluation_module = importlib.import_module("rankmetrics.evaluation._evaluation")
ideal_module = importlib.import_module("rankmetrics.evaluation._ideal")

MAX_CUTOFF = 25  # shorter than some lists (30 items), longer than others
COMBINATIONS = convention_combinations()


def _assert_means_are_per_user_means(evaluation, models=None) -> None:
    means = evaluation.means(list(METRICS))
    for model in models or evaluation.models:
        for metric in METRICS:
            per_user = evaluation.per_user(model, metric)
            expected = per_user.mean().to_numpy() if len(per_user) else np.full(
                per_user.shape[1], np.nan)
            np.testing.assert_allclose(means[model][metric], expected, rtol=0, atol=1e-12,
                                       err_msg=f"{model} {metric}")


@pytest.mark.parametrize("options", COMBINATIONS, ids=lambda o: "-".join(o.values()))
@pytest.mark.parametrize("threshold_gains", [False, True])
def test_every_convention(options, threshold_gains):
    truth, run = random_data(sum(map(ord, "".join(options.values()))), ratings="stars",
                             n_users=60)
    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.graded(
        {5: 3, 4: 2, 3: 1}, threshold=2), conventions=Conventions(
        threshold_gains=threshold_gains, **options), max_cutoff=MAX_CUTOFF)
    _assert_means_are_per_user_means(evaluation)


def _continuous(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ratings with many distinct values (0.0 to 5.0 in steps of 0.1) used as grades."""
    truth, run = random_data(seed, n_users=80)
    rng = np.random.default_rng(seed)
    return truth.assign(rating=np.round(rng.random(len(truth)) * 5, 1)), run


@pytest.mark.parametrize("gain", OPTION_CHOICES["gain"])
def test_many_distinct_gains(gain):
    truth, run = _continuous(3)
    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.identity(2.5),
                          conventions=Conventions(gain=gain), max_cutoff=MAX_CUTOFF)
    assert isinstance(evaluation._ideal, ideal_module.TopGains)  # the sorted fallback
    assert evaluation._ideal_lists is None
    at_three = evaluation.per_user_at("model", "ndcg", 3).to_numpy()  # ideal cut at rank 3
    _assert_means_are_per_user_means(evaluation)
    np.testing.assert_allclose(at_three, evaluation.per_user("model", "ndcg")[3].to_numpy(),
                               rtol=0, atol=1e-12)


def test_ideal_lists_by_level_counts_equal_the_sorted_gains(monkeypatch):
    """Per-user NDCG is the same whether each user's ideal list is held as counts per gain
    level or as the gains sorted."""
    truth, run = _continuous(4)
    relevance = RelevanceMapping.identity(2.5)
    by_sorting = evaluate(truth, {"model": run}, relevance=relevance, max_cutoff=MAX_CUTOFF)
    monkeypatch.setattr(ideal_module, "MAX_LEVELS", 10_000)
    by_counting = evaluate(truth, {"model": run}, relevance=relevance, max_cutoff=MAX_CUTOFF)
    assert isinstance(by_counting._ideal, ideal_module.LevelCounts)
    pd.testing.assert_frame_equal(by_counting.per_user("model", "ndcg"),
                                  by_sorting.per_user("model", "ndcg"), rtol=0, atol=1e-12)


def test_level_counts_made_a_few_ground_truth_rows_at_a_time(monkeypatch):
    """Counting each user's gains per level by blocks of rows (a block ending inside a
    user's rows) gives the counts of one pass over every row."""
    truth, run = random_data(6, ratings="stars", n_users=80)
    relevance = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=1)
    whole = evaluate(truth, {"model": run}, relevance=relevance, max_cutoff=MAX_CUTOFF)
    ends, ndcg = whole._ideal.ends, whole.per_user("model", "ndcg")  # made in one pass
    monkeypatch.setattr(ideal_module, "ROWS_PER_BLOCK", 7)
    blocks = evaluate(truth, {"model": run}, relevance=relevance, max_cutoff=MAX_CUTOFF)
    assert isinstance(blocks._ideal, ideal_module.LevelCounts)
    assert len(truth) > 10 * ideal_module.ROWS_PER_BLOCK
    np.testing.assert_array_equal(blocks._ideal.ends, ends)
    pd.testing.assert_frame_equal(blocks.per_user("model", "ndcg"), ndcg, rtol=0, atol=0)


def test_too_many_distinct_ideal_lists(monkeypatch):
    truth, run = random_data(5, n_users=80)
    monkeypatch.setattr(evaluation_module, "MAX_IDEAL_CELLS", 3 * MAX_CUTOFF)  # 3 lists
    evaluation = evaluate(truth, {"model": run}, max_cutoff=MAX_CUTOFF)
    assert evaluation._ideal_lists is None  # so NDCG is summed block of users by block
    _assert_means_are_per_user_means(evaluation)


def test_users_sharing_an_ideal_list():
    """Two users with the same ideal list but different model output: the NDCG mean is
    the mean of their own NDCG values (the lists' DCG is summed, then divided)."""
    truth = pd.DataFrame({"user": ["a"] * 3 + ["b"] * 3, "item": list("xyzxyz"),
                          "rating": [3, 1, 0] * 2})
    run = pd.DataFrame({"user": ["a"] * 3 + ["b"] * 3, "item": list("xyzzyx"),
                        "score": [3, 2, 1] * 2})
    evaluation = evaluate(truth, {"model": run}, max_cutoff=3)
    list_of_user, lists = evaluation._ideal_lists
    assert list_of_user.tolist() == [0, 0] and lists.shape == (1, 3)
    # a: x, y, z = gains 7, 1, 0 (ideal); b: z, y, x = 0, 1, 7 -> DCG@3 = 1/log2(3) + 7/2
    idcg = 7 + 1 / np.log2(3)
    np.testing.assert_allclose(
        evaluation.curve("model", "ndcg"),
        [(1 + 0) / 2 / 1 * (7 / 7), (1 + (1 / np.log2(3)) / idcg) / 2,
         (1 + (1 / np.log2(3) + 7 / 2) / idcg) / 2],
        rtol=0, atol=1e-15,
    )


@pytest.mark.parametrize("seed", range(4))
def test_several_models_and_blocks_of_users(monkeypatch, seed):
    """Means are the same when the per-user fallbacks run in blocks of a few users."""
    monkeypatch.setattr(evaluation_module, "USERS_PER_BLOCK", 7)
    truth, run_a = random_data(seed, n_users=50)
    _, run_b = random_data(seed + 100, n_users=50)
    evaluation = evaluate(truth, {"a": run_a, "b": run_b},
                          conventions=Conventions(ap_denominator="hits"), max_cutoff=MAX_CUTOFF)
    _assert_means_are_per_user_means(evaluation)


@pytest.mark.parametrize("options", COMBINATIONS[::5], ids=lambda o: "-".join(o.values()))
def test_values_at_one_cutoff_equal_that_column_of_every_cutoff(options):
    """per_user_at computes only the first K ranks; per_user computes every cutoff."""
    truth, run = random_data(7, ratings="stars", n_users=60)
    arguments = dict(relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),
                     conventions=Conventions(**options), max_cutoff=MAX_CUTOFF)
    for metric in METRICS:
        every = evaluate(truth, {"model": run}, **arguments).per_user("model", metric)
        at_one = evaluate(truth, {"model": run}, **arguments)
        for cutoff in ([1, 7, MAX_CUTOFF] if METRICS[metric].has_cutoff else [None]):
            series = at_one.per_user_at("model", metric, cutoff)
            assert series.name == "model"
            np.testing.assert_allclose(series.to_numpy(), every[cutoff].to_numpy(), rtol=0,
                                       atol=1e-12, err_msg=f"{metric}@{cutoff}")
            assert series.index.equals(every.index)


@pytest.mark.parametrize("gain", OPTION_CHOICES["gain"])
def test_retrieved_ideal_with_many_distinct_gains(gain):
    """The retrieved ideal's sums follow each gain level as the per-user kernel does."""
    truth, run = _continuous(8)
    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.identity(2.5),
                          conventions=Conventions.preset("retrieved_ideal", gain=gain),
                          max_cutoff=MAX_CUTOFF)
    _assert_means_are_per_user_means(evaluation)


@pytest.mark.parametrize("empty_users", OPTION_CHOICES["empty_users"])
def test_retrieved_ideal_with_one_gain_level(empty_users):
    """Binary relevance: every item with a gain has the same one."""
    truth, run = random_data(10, ratings="stars", n_users=80)
    evaluation = evaluate(truth, {"a": run, "b": run.assign(score=-run["score"])},
                          relevance=RelevanceMapping.binary(4), conventions=Conventions.preset(
                              "retrieved_ideal", empty_users=empty_users), max_cutoff=MAX_CUTOFF)
    assert np.unique(evaluation.truth_gains).tolist() == [0.0, 1.0]
    _assert_means_are_per_user_means(evaluation)


def test_retrieved_ideal_sums_in_parts_of_users(monkeypatch):
    """Past the table's bound the retrieved ideal's sums take the users a few at a time:
    the same values, and no per-user matrix."""
    ndcg_module = importlib.import_module("rankmetrics.metrics.ndcg")
    truth, run = random_data(9, ratings="stars", n_users=60)
    arguments = dict(relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),
                     conventions=Conventions.preset("retrieved_ideal"), max_cutoff=MAX_CUTOFF)
    at_once = evaluate(truth, {"model": run}, **arguments).curve("model", "ndcg")
    monkeypatch.setattr(ndcg_module, "MAX_CHANGE_CELLS", 40)  # a few users a part
    evaluation = evaluate(truth, {"model": run}, **arguments)
    in_blocks = []
    block_sums = evaluation._block_sums
    monkeypatch.setattr(evaluation, "_block_sums", lambda model, metrics, mask: (
        in_blocks.append(metrics), block_sums(model, metrics, mask))[1])
    np.testing.assert_array_equal(evaluation.curve("model", "ndcg"), at_once)
    assert in_blocks == []
    _assert_means_are_per_user_means(evaluation)


def test_retrieved_ideal_sums_by_hand():
    """Two users, ratings along the ranking: a: 0, 2, 1 (exponential gains 0, 3, 1); b: 1.
    With the retrieved ideal (a's own top K re-sorted) a's NDCG is 0 at K = 1,
    (3 / log2(3)) / 3 at K = 2 and (3 / log2(3) + 1 / 2) / (3 + 1 / log2(3)) at K = 3;
    b's is 1 from K = 1 on."""
    truth = pd.DataFrame({"user": ["a", "a", "a", "b"], "item": ["x", "y", "z", "x"],
                          "rating": [0, 2, 1, 1]})
    run = pd.DataFrame({"user": ["a"] * 3 + ["b"] * 3, "item": list("xyzxyz"),
                        "score": [3, 2, 1] * 2})
    evaluation = evaluate(truth, {"model": run}, conventions=Conventions.preset(
        "retrieved_ideal", empty_users="zero"), max_cutoff=3)
    a_at_2 = (3 / np.log2(3)) / 3
    a_at_3 = (3 / np.log2(3) + 1 / 2) / (3 + 1 / np.log2(3))
    np.testing.assert_allclose(evaluation.curve("model", "ndcg"),
                               [(0 + 1) / 2, (a_at_2 + 1) / 2, (a_at_3 + 1) / 2],
                               rtol=0, atol=1e-15)
