"""The ``lenskit`` preset against LensKit 2025.8's ranking metrics, run on the same lists.

LensKit is given each ground-truth user's ranked list (``rank`` from the scores, which are
distinct; its lists take the rows' order, so the rows are sorted by rank) and, as test data,
the user's relevant items with their grades; RunAnalysis measures NDCG (binary, and with
``gain="grade"``), Precision, Recall, AveragePrecision, RecipRank and Hit at n = K, and
``list_summary`` averages over the lists, a user without test items counted as 0 (its metrics'
default). LensKit divides DCG by log2(max(i, 2)), Precision by the list cut at K,
Recall by min(K, |R|) and AP by min(|R|, the list cut at K). Its AveragePrecision divides by
zero for a list without test items, so AP is measured on the other lists and its mean taken
over every list, those counting 0. The means are compared to 1e-12.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from lenskit.data import ItemListCollection
from lenskit.metrics import RunAnalysis
from lenskit.metrics.ranking import NDCG, AveragePrecision, Hit, Precision, Recall, RecipRank

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})
CUTOFFS = (1, 2, 3, 5, 10, 20, 30)
LENSKIT = {"precision": Precision, "recall": Recall, "mrr": RecipRank, "hit_rate": Hit,
           "map": AveragePrecision}


def _collections(truth: pd.DataFrame, run: pd.DataFrame):
    """LensKit's recommendation lists (users the ground truth has) and test items."""
    run = run[run["user"].isin(truth["user"])].copy()
    run["rank"] = run.groupby("user")["score"].rank(ascending=False, method="first").astype(int)
    recs = run.rename(columns={"user": "user_id", "item": "item_id"})[
        ["user_id", "item_id", "rank"]].sort_values(["user_id", "rank"])  # it reads row order
    grades = truth.assign(grade=STARS.grades(truth["rating"].to_numpy()).astype(float))
    relevant = grades[STARS.is_relevant(grades["grade"].to_numpy())].rename(
        columns={"user": "user_id", "item": "item_id"})[["user_id", "item_id", "grade"]]
    return (ItemListCollection.from_df(recs, ["user_id"]),
            ItemListCollection.from_df(relevant, ["user_id"]), set(relevant["user_id"]))


def _summary(metric, recs, test) -> float:
    analysis = RunAnalysis()
    analysis.add_metric(metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its Recall divides 0 by 0 for a list without test
        result = analysis.measure(recs, test)
    return float(result.list_summary().loc[metric.label, "mean"])


@pytest.mark.parametrize("seed", range(3))
def test_lenskit_preset_matches_its_ranking_metrics(seed):
    truth, run = random_data(1400 + seed, ratings="stars", tie_free=True)
    recs, test, with_test = _collections(truth, run)
    evaluation = evaluate(truth, {"model": run}, relevance=STARS,
                          conventions=Conventions.preset("lenskit"), max_cutoff=30)
    assert evaluation.user_counts()["users"].iloc[0] == len(recs)
    means = evaluation.means(["ndcg", *LENSKIT])["model"]
    binary = evaluate(truth, {"model": run}, relevance=RelevanceMapping.binary(3),
                      conventions=Conventions.preset("lenskit"), max_cutoff=30)
    some = ItemListCollection.from_df(
        pd.DataFrame([(key[0], item) for key, items in recs for item in items.ids()
                      if key[0] in with_test], columns=["user_id", "item_id"])
        .assign(rank=lambda t: t.groupby("user_id").cumcount() + 1), ["user_id"])
    for cutoff in CUTOFFS:
        assert means["ndcg"][cutoff - 1] == pytest.approx(
            _summary(NDCG(n=cutoff, gain="grade"), recs, test), rel=0, abs=1e-12), cutoff
        assert binary.curve("model", "ndcg")[cutoff - 1] == pytest.approx(
            _summary(NDCG(n=cutoff), recs, test), rel=0, abs=1e-12), cutoff
        for metric, reference in LENSKIT.items():
            if metric == "map":
                expected = _summary(reference(n=cutoff), some, test) * len(some) / len(recs)
            else:
                expected = _summary(reference(n=cutoff), recs, test)
            assert means[metric][cutoff - 1] == pytest.approx(expected, rel=0, abs=1e-12), (
                metric, cutoff)
