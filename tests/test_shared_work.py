"""Work shared between metrics gives each metric the numbers it gets alone: per-user values
of several metrics computed in one pass (at one cutoff: read from the judged items, bit for
bit the per-user kernels' values), tests of several metrics resampling the users once, and
the leader across K read from curves already computed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.conventions import OPTION_CHOICES
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.report.decision import leader_by_cutoff, leaders_by_cutoff
from rankmetrics.stats import compare_models, compare_models_together
from tests.helpers import convention_combinations, random_data


def two_models(seed: int, conventions: Conventions, max_cutoff: int = 12):
    truth, run = random_data(seed, n_users=60)
    other = run.assign(score=run["score"].to_numpy()[::-1])  # another order of the items
    other = other.loc[~other["user"].isin(["u2", "u3", "u4"])]  # and users it leaves out
    return evaluate(truth, {"a": run, "b": other}, relevance=RelevanceMapping.graded(
        {1: 1, 2: 2, 3: 3}), conventions=conventions, max_cutoff=max_cutoff)


# Users without relevant items and users missing from a model: counted (every model counts
# the same users) or left out (the models count different users, so the tables are aligned).
@pytest.mark.parametrize("conventions", [
    Conventions(), Conventions(empty_users="skip", missing_users="skip")])
@pytest.mark.parametrize("cutoff", [1, 5, 12])
def test_paired_tables_equal_each_metric_alone(conventions, cutoff):
    together = two_models(3, conventions).paired_tables(MAIN_METRICS, cutoff)
    alone = two_models(3, conventions)
    for metric in MAIN_METRICS:
        pd.testing.assert_frame_equal(together[metric], alone.paired(metric, cutoff))


CONVENTIONS = [Conventions(**options) for options in convention_combinations()]
AT_ONE_CUTOFF = [name for name, metric in METRICS.items() if metric.at_cutoff is not None]


def _kernels_spied(evaluation, monkeypatch) -> list[tuple[str, ...]]:
    """The metrics each call of the per-user kernels computes, from now on."""
    calls: list[tuple[str, ...]] = []
    kernels = evaluation._block_values
    monkeypatch.setattr(evaluation, "_block_values", lambda model, metrics, *rest, **options: (
        calls.append(tuple(metrics)), kernels(model, metrics, *rest, **options))[1])
    return calls


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: "-".join(
    getattr(c, name) for name in OPTION_CHOICES))
def test_values_at_one_cutoff_from_the_judged_items_are_the_kernels_values(
        conventions, monkeypatch):
    """Read from the judged items within K, every user's value at K is the per-user
    kernels' last column, bit for bit (the same operations in the same order)."""
    truth, run = random_data(sum(map(ord, repr(conventions))) % 1000, ratings="stars",
                             n_users=60)
    arguments = dict(relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),
                     conventions=conventions, max_cutoff=25)
    for cutoff in (1, 4, 25):
        evaluation = evaluate(truth, {"model": run}, **arguments)
        n_users = evaluation.truth.n_users
        kernels = evaluation._block_values("model", AT_ONE_CUTOFF, 0, n_users, width=cutoff)
        calls = _kernels_spied(evaluation, monkeypatch)
        read = evaluation._values_at("model", tuple(AT_ONE_CUTOFF), cutoff)
        assert calls == []  # none of them needed the kernels
        for metric in AT_ONE_CUTOFF:
            np.testing.assert_array_equal(read[metric], kernels[metric][:, -1:],
                                          err_msg=f"{metric}@{cutoff}")


@pytest.mark.parametrize("ideal", OPTION_CHOICES["ideal"])
def test_values_at_one_cutoff_with_many_distinct_gains(ideal, monkeypatch):
    """Continuous ratings (0.0 to 5.0 by 0.1) as grades: many gain levels, and users' ideal
    lists too many to hold (NDCG with the ground-truth ideal then comes from the kernels)."""
    truth, run = random_data(11, n_users=80)
    rng = np.random.default_rng(11)
    truth = truth.assign(rating=np.round(rng.random(len(truth)) * 5, 1))
    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.identity(2.5),
                          conventions=Conventions(ideal=ideal), max_cutoff=25)
    kernels = evaluation._block_values("model", AT_ONE_CUTOFF, 0, evaluation.truth.n_users,
                                       width=7)
    calls = _kernels_spied(evaluation, monkeypatch)
    read = evaluation._values_at("model", tuple(AT_ONE_CUTOFF), 7)
    for metric in AT_ONE_CUTOFF:
        np.testing.assert_array_equal(read[metric], kernels[metric][:, -1:], err_msg=metric)
    from_kernels = evaluation._ideal_lists is None and ideal == "ground_truth"
    assert calls == ([("ndcg",)] if from_kernels else [])


def test_paired_tables_at_a_cutoff_beyond_the_longest_list():
    # The lists hold at most 30 items: at K = 40 Precision falls as 1/K, the others stay.
    evaluation = two_models(4, Conventions(), max_cutoff=40)
    together = evaluation.paired_tables(["precision", "recall"], 40)
    at_30 = two_models(4, Conventions(), max_cutoff=40).paired_tables(["precision", "recall"], 30)
    np.testing.assert_allclose(together["precision"], at_30["precision"] * 30 / 40, rtol=1e-12)
    np.testing.assert_array_equal(together["recall"], at_30["recall"])


def test_comparisons_together_equal_each_alone():
    evaluation = two_models(5, Conventions(empty_users="skip", missing_users="skip"))
    tables = evaluation.paired_tables(MAIN_METRICS, 10)
    options = {"test": "t", "n_bootstrap": 300, "confidence": 0.9, "seed": 7}
    together = compare_models_together(tables, **options)
    assert list(together) == list(MAIN_METRICS)
    for metric, table in tables.items():
        alone = compare_models(table, **options)
        pd.testing.assert_frame_equal(together[metric].models, alone.models, rtol=0, atol=1e-12)
        pd.testing.assert_frame_equal(together[metric].pairs, alone.pairs, rtol=0, atol=1e-12)


def test_comparisons_of_other_users_are_resampled_apart():
    users = pd.Index([f"u{n}" for n in range(30)], name="user")
    rng = np.random.default_rng(0)
    first = pd.DataFrame(rng.random((30, 2)), index=users, columns=["a", "b"])
    second = pd.DataFrame(rng.random((20, 2)), index=users[:20], columns=["a", "b"])
    together = compare_models_together({"first": first, "second": second}, test="t",
                                       n_bootstrap=200)
    for name, table in (("first", first), ("second", second)):
        alone = compare_models(table, test="t", n_bootstrap=200)
        pd.testing.assert_frame_equal(together[name].models, alone.models, rtol=0, atol=1e-12)


def test_leaders_from_curves_equal_leaders_from_the_evaluation():
    evaluation = two_models(6, Conventions(), max_cutoff=40)  # the lists end by 30
    means = evaluation.means(MAIN_METRICS)
    for metric in MAIN_METRICS:
        curves = {model: by_metric[metric] for model, by_metric in means.items()}
        # the dashboard's path: the curves it drew, and the evaluation's width
        assert leaders_by_cutoff(curves, width=evaluation.width) == leader_by_cutoff(
            evaluation, metric)
    assert evaluation.width < 40  # K = 40 lies past the last K at which a value can change
    assert leader_by_cutoff(evaluation, "ndcg")[-1][0] == evaluation.width


@pytest.mark.parametrize("cutoff", [1, 7, 12])
def test_per_user_table_at_one_cutoff_equals_the_table_at_several(cutoff):
    conventions = Conventions(empty_users="skip", missing_users="skip")
    alone = two_models(7, conventions).per_user_table(MAIN_METRICS, [cutoff])
    several = two_models(7, conventions).per_user_table(MAIN_METRICS, [cutoff, 3])
    several = several.loc[several["cutoff"] == cutoff].reset_index(drop=True)
    pd.testing.assert_frame_equal(alone.sort_values(["model", "metric", "user"],
                                                    ignore_index=True),
                                  several.sort_values(["model", "metric", "user"],
                                                      ignore_index=True))


@pytest.mark.parametrize(("n_users", "n_bootstrap"), [(5, 300), (2_000, 3_000), (300_000, 30)])
def test_kept_resampling_counts_give_the_same_resamples(n_users, n_bootstrap):
    # Drawn in chunks of 2**22 // n_users resamples; the second call reads the kept counts.
    from rankmetrics.stats.bootstrap import bootstrap_means, seeded_bootstrap_means

    values = np.random.default_rng(n_users).random((n_users, 3))
    drawn = bootstrap_means(values, n_bootstrap, np.random.default_rng(11))
    for _ in range(2):
        np.testing.assert_array_equal(seeded_bootstrap_means(values, n_bootstrap, 11), drawn)


@pytest.mark.parametrize("conventions", [
    Conventions(), Conventions(empty_users="skip", missing_users="skip")])
def test_the_users_every_model_counts_are_those_the_paired_tests_compare(conventions):
    # The sidebar's report button reads the count from the masks, without computing a metric.
    evaluation = two_models(8, conventions)
    counted = np.logical_and.reduce([evaluation.included(model) for model in evaluation.models])
    for metric in MAIN_METRICS:
        assert np.count_nonzero(counted) == len(evaluation.paired(metric, 5))


@pytest.mark.parametrize("preset", ["default", "trec_eval", "lenskit"])
def test_other_lists_or_conventions_share_the_ground_truths_gains_and_give_their_own_means(
        preset):
    ev = two_models(3, Conventions.preset(preset))
    swapped = {"a": ev.runs["b"], "b": ev.runs["a"]}
    other = ev.with_lists(swapped)
    assert other.truth_gains is ev.truth_gains and other.n_relevant is ev.n_relevant
    fresh = type(ev)(ev.truth, swapped, ev.relevance, ev.conventions, ev.max_cutoff)
    assert other.truth_gains is not fresh.truth_gains  # a fresh one makes its own
    shared_means, own_means = other.means(MAIN_METRICS), fresh.means(MAIN_METRICS)
    for model in swapped:
        for metric in MAIN_METRICS:
            np.testing.assert_array_equal(shared_means[model][metric],
                                          own_means[model][metric])
    # a convention set derived from a derived evaluation still shares the first one's gains
    derived = other.with_conventions(dataclasses.replace(Conventions.preset(preset),
                                                         empty_users="zero"))
    assert derived.truth_gains is ev.truth_gains
