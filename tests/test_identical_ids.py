"""Items whose id is the user's own id (``identical_ids``): kept, or dropped from the lists as
BEIR's ``EvaluateRetrieval.evaluate(..., ignore_identical_ids=True)`` drops them.

- Dropping them equals evaluating the output with those rows deleted, for every metric and
  user, whichever way the rows come (in score order, shuffled, with ties).
- The ``beir`` preset equals BEIR 2.2's own evaluation (NDCG@k, MAP@k, Recall@k, P@k, which it
  rounds to 5 decimals) and pytrec_eval's exact means over the users with a list.
- Why do they differ?: the BEIR row ranks the lists again, and the step "items with the user's
  id" alone moves the mean as much as deleting the rows does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from beir.retrieval.evaluation import EvaluateRetrieval

from rankmetrics import Conventions, RankedRun, RelevanceMapping, evaluate
from rankmetrics.choosing_k.ties import tie_bounds
from rankmetrics.disagreement import compare_presets
from rankmetrics.explain.rows import ranked_list
from rankmetrics.metrics import CUTOFF_METRICS, MAIN_METRICS
from tests.helpers import random_data

K_VALUES = [1, 3, 5, 10, 20]


def _with_own_items(seed: int, *, tie_free: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random data where about half the users' lists hold an item named like the user, at a
    random rank (some of them judged in the ground truth, some of them tied)."""
    truth, run = random_data(seed, tie_free=tie_free)
    rng = np.random.default_rng(seed)
    own = []
    for user, rows in run.groupby("user", sort=False):
        if rng.random() < 0.5:
            scores = rows["score"].to_numpy()
            score = (float(rng.choice(scores)) if not tie_free and rng.random() < 0.5
                     else float(rng.uniform(scores.min() - 0.05, scores.max() + 0.05)))
            own.append((user, user, score))
            if rng.random() < 0.3:
                truth = pd.concat([truth, pd.DataFrame(
                    {"user": [user], "item": [user], "rating": [int(rng.integers(0, 4))]})])
    run = pd.concat([run, pd.DataFrame(own, columns=["user", "item", "score"])],
                    ignore_index=True)
    if seed % 2:  # rows shuffled; otherwise grouped by user in score order
        run = run.sample(frac=1.0, random_state=seed, ignore_index=True)
    else:
        run = run.sort_values(["user", "score"], ascending=[True, False], kind="stable",
                              ignore_index=True)
    return truth.reset_index(drop=True), run


def _values(evaluation, metrics=CUTOFF_METRICS, cutoffs=(1, 2, 3, 5, 10, 30)):
    return {(metric, k): evaluation.per_user_at("m", metric, k)
            for metric in metrics for k in cutoffs}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", ["item_desc", "input"])
@pytest.mark.parametrize("strangers", [True, False])
def test_dropping_equals_deleting_the_rows(seed, ties, strangers):
    """With users unknown to the ground truth the rows are sorted; without them, rows already
    in lists in score order are left in place (only ties move), another path."""
    truth, run = _with_own_items(seed, tie_free=False)
    if not strangers:
        run = run[run["user"].isin(truth["user"])].reset_index(drop=True)
    deleted = run[run["item"] != run["user"]]
    assert len(deleted) < len(run) - 3  # the data does hold such items
    for base in ("default", "trec_eval"):
        dropped = evaluate(truth, {"m": run}, max_cutoff=30, conventions=Conventions.preset(
            base, ties=ties, identical_ids="drop"))
        by_hand = evaluate(truth, {"m": deleted}, max_cutoff=30,
                           conventions=Conventions.preset(base, ties=ties))
        ours, expected = _values(dropped), _values(by_hand)
        for key, values in expected.items():
            pd.testing.assert_series_equal(ours[key], values, check_exact=False, atol=1e-12,
                                           obj=str(key))
        means, hand_means = dropped.means(["ndcg", "map"]), by_hand.means(["ndcg", "map"])
        for metric in ("ndcg", "map"):
            np.testing.assert_allclose(means["m"][metric], hand_means["m"][metric], atol=1e-12)
    kept = evaluate(truth, {"m": run}, max_cutoff=30, conventions=Conventions(ties=ties))
    without = evaluate(truth, {"m": deleted}, max_cutoff=30, conventions=Conventions(ties=ties))
    assert np.abs(np.array(kept.curve("m", "ndcg"))
                  - np.array(without.curve("m", "ndcg"))).max() > 1e-6  # keeping them differs


def test_a_list_of_only_the_users_own_item_becomes_empty_but_the_user_had_a_list():
    truth = pd.DataFrame({"user": ["q1", "q1", "q2"], "item": ["d1", "q1", "d2"],
                          "rating": [1, 1, 1]})
    run = pd.DataFrame({"user": ["q1", "q1", "q2"], "item": ["q1", "d1", "q2"],
                        "score": [2.0, 1.0, 5.0]})
    ranked = RankedRun.from_frame(run, _truth(truth), identical_ids="drop")
    assert ranked.lengths.tolist() == [1, 0] and ranked.present.tolist() == [True, True]
    assert ranked.judged_rank.tolist() == [0] and ranked.identical_ids == "drop"
    ev = evaluate(truth, {"m": run}, max_cutoff=2,
                  conventions=Conventions(identical_ids="drop"))
    # q1: its own item (relevant in the ground truth) is gone, d1 moves to rank 1
    assert ev.per_user_at("m", "precision", 1).tolist() == [1.0, 0.0]
    assert ev.per_user_at("m", "recall", 2).tolist() == [0.5, 0.0]
    assert list(ranked_list(run, "q1", "item_desc", "drop")) == ["d1"]
    assert list(ranked_list(run, "q1", "item_desc")) == ["q1", "d1"]


def _truth(table):
    from rankmetrics import GroundTruth

    return GroundTruth.from_frame(table)


def _beir_inputs(truth: pd.DataFrame, run: pd.DataFrame):
    qrels = {user: dict(zip(rows["item"], rows["rating"].astype(int).tolist(), strict=True))
             for user, rows in truth.groupby("user")}
    results = {user: dict(zip(rows["item"], rows["score"].astype(float).tolist(),
                              strict=True)) for user, rows in run.groupby("user")}
    return qrels, results


@pytest.mark.parametrize("seed", range(3))
def test_the_beir_preset_is_beirs_own_evaluation(seed):
    truth, run = _with_own_items(10 + seed)
    qrels, results = _beir_inputs(truth, run)
    ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(qrels, results, K_VALUES)
    ev = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                  conventions=Conventions.preset("beir"), max_cutoff=max(K_VALUES))
    means = ev.means(["ndcg", "map", "recall", "precision"])["m"]
    for k in K_VALUES:  # BEIR rounds to 5 decimals
        assert means["ndcg"][k - 1] == pytest.approx(ndcg[f"NDCG@{k}"], abs=5.1e-6)
        assert means["map"][k - 1] == pytest.approx(_map[f"MAP@{k}"], abs=5.1e-6)
        assert means["recall"][k - 1] == pytest.approx(recall[f"Recall@{k}"], abs=5.1e-6)
        assert means["precision"][k - 1] == pytest.approx(precision[f"P@{k}"], abs=5.1e-6)
    # exactly: pytrec_eval on the lists without the users' own items, over the users it scores
    _, results = _beir_inputs(truth, run[run["item"] != run["user"]])
    measures = {f"ndcg_cut.{k}" for k in K_VALUES} | {f"P.{k}" for k in K_VALUES}
    scores = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(results)
    assert ev.user_counts()["users"].iloc[0] == len(scores)
    for k in K_VALUES:
        for ours, theirs in (("ndcg", f"ndcg_cut_{k}"), ("precision", f"P_{k}")):
            expected = sum(user[theirs] for user in scores.values()) / len(scores)
            assert means[ours][k - 1] == pytest.approx(expected, abs=1e-12)


def test_beir_keeps_them_with_ignore_identical_ids_false():
    truth, run = _with_own_items(20)
    qrels, results = _beir_inputs(truth, run)
    ndcg, *_ = EvaluateRetrieval.evaluate(qrels, results, [10], ignore_identical_ids=False)
    kept = evaluate(truth, {"m": run}, conventions=Conventions.preset(
        "beir", identical_ids="keep"), max_cutoff=10)
    dropped = evaluate(truth, {"m": run}, conventions=Conventions.preset("beir"),
                       max_cutoff=10)
    assert kept.curve("m", "ndcg")[9] == pytest.approx(ndcg["NDCG@10"], abs=5.1e-6)
    assert abs(dropped.curve("m", "ndcg")[9] - ndcg["NDCG@10"]) > 1e-4


def test_why_they_differ_ranks_again_for_the_beir_preset():
    truth, run = _with_own_items(30)
    ev = evaluate(truth, {"m": run}, max_cutoff=10)
    compared = compare_presets(ev, "ndcg", 10)
    assert compared.identical_ids_as_preset
    expected = evaluate(truth, {"m": run}, conventions=Conventions.preset("beir"),
                        max_cutoff=10).curve("m", "ndcg")[9]
    assert compared.values.at["beir", "m"] == pytest.approx(expected, abs=1e-12)
    steps = compared.steps("trec_eval", "beir")
    alone = steps[steps["setting"] == "identical_ids"]
    by_hand = evaluate(truth, {"m": run[run["item"] != run["user"]]},
                       conventions=Conventions.preset("trec_eval"), max_cutoff=10)
    assert alone["value"].iloc[0] == pytest.approx(by_hand.curve("m", "ndcg")[9], abs=1e-12)
    assert alone["to"].iloc[0] == "items whose id is the user's id dropped"
    # from prepared lists alone the lists cannot be ranked again: every preset keeps them
    prepared = {"m": RankedRun.from_frame(run, ev.truth)}
    fixed = compare_presets(evaluate(ev.truth, prepared, max_cutoff=10), "ndcg", 10)
    assert not fixed.identical_ids_as_preset
    assert fixed.conventions["beir"].identical_ids == "keep"
    # given the tables, it can
    again = compare_presets(evaluate(ev.truth, prepared, max_cutoff=10), "ndcg", 10,
                            tables={"m": run})
    assert again.values.at["beir", "m"] == pytest.approx(expected, abs=1e-12)


def test_without_such_items_the_lists_are_not_ranked_again():
    truth, run = random_data(40, tie_free=True)
    ev = evaluate(truth, {"m": run}, max_cutoff=10)
    other = ev.with_conventions(Conventions(identical_ids="drop"))
    assert other.runs["m"].judged_rank is ev.runs["m"].judged_rank
    assert other.runs["m"].identical_ids == "drop"


def test_tie_bounds_hold_the_value_with_the_items_dropped():
    truth, run = _with_own_items(2, tie_free=False)
    ev = evaluate(truth, {"m": run}, conventions=Conventions(identical_ids="drop"),
                  max_cutoff=15)
    bounds = tie_bounds(ev, {"m": run}, MAIN_METRICS)
    assert (bounds["pessimistic"] <= bounds["active"] + 1e-12).all()
    assert (bounds["active"] <= bounds["optimistic"] + 1e-12).all()
    by_hand = tie_bounds(
        evaluate(truth, {"m": run[run["item"] != run["user"]]}, max_cutoff=15),
        {"m": run[run["item"] != run["user"]]}, MAIN_METRICS)
    for column in ("pessimistic", "active", "optimistic", "tied_share"):
        np.testing.assert_allclose(bounds[column], by_hand[column], atol=1e-12)
