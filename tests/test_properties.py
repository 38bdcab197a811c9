"""Invariants every metric keeps under every convention, on small random data (hypothesis)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.conventions import OPTION_CHOICES
from rankmetrics.metrics import METRICS

BOUNDED = [metric for metric in METRICS if metric != "dcg"]
CATALOG = [f"i{number}" for number in range(12)]
EXAMPLES = settings(max_examples=30, deadline=None)


@st.composite
def conventions(draw) -> Conventions:
    """Any combination of the options."""
    options = {name: draw(st.sampled_from(choices)) for name, choices in OPTION_CHOICES.items()}
    return Conventions(threshold_gains=draw(st.booleans()), **options)


@st.composite
def datasets(draw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """1-4 users with 1-6 judged items (grades 0-3) and lists of 0-8 items (some unjudged)
    with integer scores 0-5, so ties are common. The rows of each user's list come sorted by
    score (descending) or in random order."""
    truth, run = [], []
    for number in range(draw(st.integers(1, 4))):
        user = f"u{number}"
        judged = draw(st.lists(st.sampled_from(CATALOG), min_size=1, max_size=6, unique=True))
        truth += [(user, item, draw(st.integers(0, 3))) for item in judged]
        listed = draw(st.lists(st.sampled_from(CATALOG), max_size=8, unique=True))
        rows = [(user, item, float(draw(st.integers(0, 5)))) for item in listed]
        if draw(st.booleans()):
            rows.sort(key=lambda row: -row[2])
        run += rows
    return (
        pd.DataFrame(truth, columns=["user", "item", "rating"]),
        pd.DataFrame(run, columns=["user", "item", "score"]),
    )


def _evaluate(truth, run, conventions, *, max_cutoff, threshold=1):
    return evaluate(
        truth,
        {"model": run},
        relevance=RelevanceMapping.identity(threshold),
        conventions=conventions,
        max_cutoff=max_cutoff,
    )


def _all_per_user(evaluation) -> dict[str, pd.DataFrame]:
    return {metric: evaluation.per_user("model", metric) for metric in METRICS}


@EXAMPLES
@given(data=datasets(), conventions=conventions(), threshold=st.sampled_from([1, 2]),
       max_cutoff=st.integers(1, 10))
def test_perfect_ranking(data, conventions, threshold, max_cutoff):
    truth, _ = data
    # every judged item, ranked by grade: all relevant items are listed, ahead of the others
    perfect = truth.rename(columns={"rating": "score"}).astype({"score": float})
    evaluation = _evaluate(truth, perfect, conventions, max_cutoff=max_cutoff, threshold=threshold)
    n_relevant = (truth["rating"] >= threshold).groupby(truth["user"]).sum()
    cutoffs = np.arange(1, max_cutoff + 1)
    per_user = _all_per_user(evaluation)
    for user, count in n_relevant[n_relevant > 0].items():  # NDCG, AP... need a relevant item
        row = {metric: per_user[metric].loc[user].to_numpy()
               for metric in ("ndcg", "map", "precision", "recall", "mrr", "hit_rate")}
        assert row["ndcg"] == pytest.approx(np.ones(max_cutoff), rel=0, abs=1e-12)
        assert (row["mrr"] == 1.0).all() and (row["hit_rate"] == 1.0).all()
        assert (row["precision"][cutoffs <= count] == 1.0).all()
        assert (row["recall"][cutoffs >= count] == 1.0).all()
        if conventions.ap_denominator == "relevant":
            assert row["map"][cutoffs >= count] == pytest.approx(1.0, rel=0, abs=1e-12)
        else:  # min(K, |R|) and hits: 1 at every cutoff
            assert row["map"] == pytest.approx(np.ones(max_cutoff), rel=0, abs=1e-12)


@EXAMPLES
@given(data=datasets(), conventions=conventions(), threshold=st.sampled_from([1, 2]),
       max_cutoff=st.integers(1, 10))
def test_every_metric_but_dcg_is_between_0_and_1(data, conventions, threshold, max_cutoff):
    truth, run = data
    evaluation = _evaluate(truth, run, conventions, max_cutoff=max_cutoff, threshold=threshold)
    per_user = _all_per_user(evaluation)
    for metric in BOUNDED:
        values = per_user[metric].to_numpy()
        assert (values >= 0).all(), metric
        assert (values <= 1 + 1e-12).all(), metric
    assert (per_user["dcg"].to_numpy() >= 0).all()


@EXAMPLES
@given(data=datasets(), conventions=conventions(), shift=st.integers(-1000, 1000),
       factor=st.sampled_from([0.25, 0.5, 2.0, 3.0, 10.0]), max_cutoff=st.integers(1, 10))
def test_shifting_or_scaling_scores_changes_nothing(data, conventions, shift, factor,
                                                    max_cutoff):
    # integer scores: the shifted and scaled scores are exact, so ties stay ties
    truth, run = data
    expected = _all_per_user(_evaluate(truth, run, conventions, max_cutoff=max_cutoff))
    for moved in (run.assign(score=run["score"] + shift), run.assign(score=run["score"] * factor)):
        got = _all_per_user(_evaluate(truth, moved, conventions, max_cutoff=max_cutoff))
        for metric in METRICS:
            pd.testing.assert_frame_equal(got[metric], expected[metric], check_exact=True)


@EXAMPLES
@given(data=datasets(), conventions=conventions(), max_cutoff=st.integers(1, 10))
def test_the_curve_equals_each_cutoff_evaluated_alone(data, conventions, max_cutoff):
    truth, run = data
    curve = _evaluate(truth, run, conventions, max_cutoff=max_cutoff).means(METRICS)["model"]
    for cutoff in range(1, max_cutoff + 1):
        alone = _evaluate(truth, run, conventions, max_cutoff=cutoff).means(METRICS)["model"]
        for metric in METRICS:
            at = 0 if not METRICS[metric].has_cutoff else cutoff - 1
            np.testing.assert_allclose(
                curve[metric][at], alone[metric][-1], rtol=0, atol=1e-12, err_msg=metric
            )


@EXAMPLES
@given(data=datasets(), conventions=conventions(), max_cutoff=st.integers(1, 10))
def test_per_user_values_average_to_the_summary(data, conventions, max_cutoff):
    truth, run = data
    evaluation = _evaluate(truth, run, conventions, max_cutoff=max_cutoff)
    summary = evaluation.summary()
    for metric in METRICS:
        per_user = evaluation.per_user("model", metric)
        values = summary.loc[summary["metric"] == metric, "value"].to_numpy()
        assert (summary.loc[summary["metric"] == metric, "users"] == len(per_user)).all()
        np.testing.assert_allclose(
            per_user.mean().to_numpy(), values, rtol=0, atol=1e-12, err_msg=metric
        )


@EXAMPLES
@given(data=datasets(), conventions=conventions(), max_cutoff=st.integers(1, 10),
       seed=st.integers(0, 2**32 - 1))
def test_the_order_of_users_in_the_input_does_not_matter(data, conventions, max_cutoff, seed):
    truth, run = data
    rng = np.random.default_rng(seed)
    expected = _all_per_user(_evaluate(truth, run, conventions, max_cutoff=max_cutoff))
    # whole users moved, in two different orders in the ground truth and in the output (each
    # user's rows keep their order, which ties="input" depends on)
    truth_users, run_users = (rng.permutation(truth["user"].unique()) for _ in range(2))
    by_user = {
        "truth": pd.concat([truth[truth["user"] == user] for user in truth_users]),
        "run": pd.concat([run[run["user"] == user] for user in run_users] + [run.iloc[:0]]),
    }
    shuffles = [by_user]
    if conventions.ties != "input":  # any row order at all
        shuffles.append({
            "truth": truth.sample(frac=1.0, random_state=rng),
            "run": run.sample(frac=1.0, random_state=rng),
        })
    for shuffled in shuffles:
        evaluation = _evaluate(shuffled["truth"], shuffled["run"], conventions,
                               max_cutoff=max_cutoff)
        got = _all_per_user(evaluation)
        for metric in METRICS:
            pd.testing.assert_frame_equal(
                got[metric].sort_index(), expected[metric].sort_index(), check_exact=True
            )
