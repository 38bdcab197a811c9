"""The ``torchmetrics`` preset against TorchMetrics' retrieval metrics, run on the same rows.

TorchMetrics 1.9 is given, for every user with a list, the model's rows: the score as
``preds``, the user as ``indexes`` and, as ``target``, the item's grade (NDCG) or whether it is
relevant (the others), 0 for an item without ground truth. It sees nothing else, so the relevant
items it divides Recall by and the ideal list of NDCG are those rows' own; AP divides by the
hits in the top K; a user whose rows hold no relevant item scores 0 (``empty_target_action``
"neg"). Its NDCG averages over the orders of equal scores and its other metrics count no hit
for a score of 0 or less, so the scores here are distinct and positive. TorchMetrics computes
in single precision: the means are compared to 1e-6.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from torchmetrics import retrieval

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})
CUTOFFS = (1, 2, 3, 5, 10, 20, 30)
REFERENCES = {
    "ndcg": retrieval.RetrievalNormalizedDCG,
    "precision": retrieval.RetrievalPrecision,
    "recall": retrieval.RetrievalRecall,
    "map": retrieval.RetrievalMAP,
    "mrr": retrieval.RetrievalMRR,
    "hit_rate": retrieval.RetrievalHitRate,
}


def _fed(truth: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """The model's rows of the users the ground truth has, with each item's grade."""
    grades = truth.assign(grade=STARS.grades(truth["rating"].to_numpy()).astype(float))
    rows = run[run["user"].isin(truth["user"])].merge(
        grades[["user", "item", "grade"]], on=["user", "item"], how="left")
    return rows.fillna({"grade": 0.0})


def _torchmetrics_mean(rows: pd.DataFrame, metric: str, cutoff: int) -> float:
    reference = REFERENCES[metric](top_k=cutoff)
    target = rows["grade"].to_numpy()
    if metric != "ndcg":
        target = STARS.is_relevant(target)
    reference.update(torch.tensor(rows["score"].to_numpy(), dtype=torch.float64),
                     torch.tensor(target),
                     indexes=torch.tensor(pd.factorize(rows["user"])[0], dtype=torch.long))
    return float(reference.compute())


@pytest.mark.parametrize("seed", range(3))
def test_torchmetrics_preset_matches_its_retrieval_metrics(seed):
    truth, run = random_data(1100 + seed, ratings="stars", tie_free=True)
    run = run.assign(score=run["score"] + 0.1)  # positive, as its hits need
    rows = _fed(truth, run)
    evaluation = evaluate(truth, {"model": run}, relevance=STARS,
                          conventions=Conventions.preset("torchmetrics"), max_cutoff=30)
    assert evaluation.user_counts()["users"].iloc[0] == rows["user"].nunique()
    means = evaluation.means(list(REFERENCES))["model"]
    for metric in REFERENCES:
        for cutoff in CUTOFFS:
            expected = _torchmetrics_mean(rows, metric, cutoff)
            assert means[metric][cutoff - 1] == pytest.approx(expected, rel=0, abs=1e-6), (
                metric, cutoff)


def test_torchmetrics_sees_only_the_rows_it_is_given():
    """The data has relevant items outside the lists: with them counted, Recall and NDCG
    differ from TorchMetrics, so the test above shows the list-only counting."""
    truth, run = random_data(1100, ratings="stars", tie_free=True)
    run = run.assign(score=run["score"] + 0.1)
    rows = _fed(truth, run)
    counted = evaluate(truth, {"model": run}, relevance=STARS, max_cutoff=30,
                       conventions=Conventions.preset("torchmetrics",
                                                      relevant_items="ground_truth"))
    for metric in ("recall", "ndcg"):
        assert abs(counted.curve("model", metric)[9] - _torchmetrics_mean(rows, metric, 10)
                   ) > 1e-3, metric


def test_in_list_equals_the_ground_truth_cut_to_the_lists():
    """Counting only the relevant items in the list equals evaluating on the ground truth
    without the rows the list does not hold, per user and as means, for every metric that
    reads |R| or the ideal list."""
    truth, run = random_data(1111)
    truth.loc[::7, "rating"] = -1  # rows that judge nothing (trec_eval's -1)
    grades = RelevanceMapping.identity(1)
    metrics = ["ndcg", "recall", "map", "r_precision", "precision", "mrr", "bpref", "err",
               "rbp", "judged"]
    for base in ("default", "trec_eval", "spark_mllib"):
        conventions = Conventions.preset(base, relevant_items="in_list")
        in_list = evaluate(truth, {"model": run}, relevance=grades, conventions=conventions,
                           max_cutoff=20)
        cut = truth.merge(run[["user", "item"]], on=["user", "item"])
        cut = pd.concat([cut, truth[~truth["user"].isin(cut["user"])].assign(rating=0)
                         .drop_duplicates("user")])  # keep every user, with nothing relevant
        on_cut = evaluate(cut, {"model": run}, relevance=grades, max_cutoff=20,
                          conventions=Conventions.preset(base))
        for metric in metrics:
            mine = in_list.per_user("model", metric).sort_index()
            theirs = on_cut.per_user("model", metric).sort_index()
            assert list(mine.index) == list(theirs.index)
            np.testing.assert_allclose(mine.to_numpy(), theirs.to_numpy(),
                                       atol=1e-12, err_msg=f"{base} {metric}")
            np.testing.assert_allclose(in_list.curve("model", metric),
                                       on_cut.curve("model", metric), atol=1e-12,
                                       err_msg=f"{base} {metric}")
