"""The ``spark_mllib`` and ``recommenders`` presets against the libraries they reproduce.

- Spark MLlib 4's ``RankingMetrics`` on a local session: every ground-truth user is a row
  (their ranked list, empty where the model returned nothing, and their relevant items, none for
  a user without relevant items). precisionAt, recallAt, ndcgAt and meanAveragePrecisionAt
  divide AP@K by min(|R|, K) and count every row, 0 for a user without relevant items.
- Microsoft Recommenders 1.2.1's pandas evaluation (``python_evaluation``) given the relevant
  ground-truth rows as ``rating_true``: precision_at_k, recall_at_k and map_at_k average over
  the users in both tables; ndcg_at_k averages over every user of ``rating_true``, so a user the
  model returned nothing for counts as 0 there (``missing_users="zero"``).

Both libraries' NDCG is binary by default, so the data is judged with a threshold; the graded
NDCG of Microsoft Recommenders (``score_type="raw"`` and ``"exp"``) is checked against the
ratings used as grades, and its order of equal scores (the order of its rows) on tied data. The
means are compared, each to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from recommenders.evaluation.python_evaluation import (
    map_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

BINARY = RelevanceMapping.binary(1)
STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})
CUTOFFS = (1, 2, 3, 5, 10, 20, 30)
MAX_CUTOFF = 30


def _ranked(run: pd.DataFrame) -> dict[str, list[str]]:
    """Each user's items, best score first (the data is tie-free)."""
    ordered = run.sort_values(["user", "score"], ascending=[True, False], kind="stable")
    return {user: list(rows["item"]) for user, rows in ordered.groupby("user", sort=False)}


def _ms_tables(truth: pd.DataFrame, run: pd.DataFrame):
    relevant = truth[truth["rating"] >= 1].rename(columns={"user": "userID", "item": "itemID"})
    predicted = run.rename(columns={"user": "userID", "item": "itemID", "score": "prediction"})
    return relevant, predicted


@pytest.mark.parametrize("seed", range(3))
def test_recommenders_preset_matches_its_precision_recall_and_map(seed):
    truth, run = random_data(900 + seed, tie_free=True)
    evaluation = evaluate(truth, {"model": run}, relevance=BINARY,
                          conventions=Conventions.preset("recommenders"), max_cutoff=MAX_CUTOFF)
    relevant, predicted = _ms_tables(truth, run)
    for metric, reference in (("precision", precision_at_k), ("recall", recall_at_k),
                              ("map", map_at_k)):
        means = evaluation.curve("model", metric)
        for cutoff in CUTOFFS:
            expected = reference(relevant, predicted, k=cutoff)
            assert means[cutoff - 1] == pytest.approx(expected, rel=0, abs=1e-12), (
                metric, cutoff)


@pytest.mark.parametrize("seed", range(3))
def test_recommenders_ndcg_counts_users_without_a_list_as_zero(seed):
    truth, run = random_data(910 + seed, tie_free=True)
    relevant, predicted = _ms_tables(truth, run)
    counted = evaluate(truth, {"model": run}, relevance=BINARY, max_cutoff=MAX_CUTOFF,
                       conventions=Conventions.preset("recommenders", missing_users="zero"))
    left_out = evaluate(truth, {"model": run}, relevance=BINARY, max_cutoff=MAX_CUTOFF,
                        conventions=Conventions.preset("recommenders"))
    for cutoff in CUTOFFS:
        expected = ndcg_at_k(relevant, predicted, k=cutoff)
        assert counted.curve("model", "ndcg")[cutoff - 1] == pytest.approx(
            expected, rel=0, abs=1e-12), cutoff
        # the data has users without a list (random_data leaves one in six out), so the
        # preset's own mean, which leaves them out as the library's other metrics do, differs
        assert abs(left_out.curve("model", "ndcg")[cutoff - 1] - expected) > 1e-3


@pytest.mark.parametrize(("score_type", "gain"), [("raw", "linear"), ("exp", "exponential")])
def test_recommenders_graded_ndcg_is_the_ratings_as_grades(score_type, gain):
    truth, run = random_data(920, tie_free=True)
    relevant, predicted = _ms_tables(truth, run)
    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.identity(1),
                          max_cutoff=MAX_CUTOFF,
                          conventions=Conventions.preset("recommenders", gain=gain,
                                                         missing_users="zero"))
    for cutoff in CUTOFFS:
        expected = ndcg_at_k(relevant, predicted, k=cutoff, score_type=score_type)
        assert evaluation.curve("model", "ndcg")[cutoff - 1] == pytest.approx(
            expected, rel=0, abs=1e-12), cutoff


@pytest.mark.parametrize("seed", range(4))
def test_recommenders_keeps_equal_scores_in_the_order_of_its_rows(seed):
    """Its top K comes from a sort by user and score over several columns, which pandas does
    stably: equal scores keep the order of the rows, the ``input`` tie rule."""
    truth, run = random_data(940 + seed)  # scores rounded to 0.1: many ties across K
    relevant, predicted = _ms_tables(truth, run)
    kept = evaluate(truth, {"model": run}, relevance=BINARY, max_cutoff=MAX_CUTOFF,
                    conventions=Conventions.preset("recommenders", ties="input"))
    by_id = evaluate(truth, {"model": run}, relevance=BINARY, max_cutoff=MAX_CUTOFF,
                     conventions=Conventions.preset("recommenders"))
    differs = False
    for metric, reference in (("precision", precision_at_k), ("recall", recall_at_k),
                              ("map", map_at_k)):
        for cutoff in CUTOFFS:
            expected = reference(relevant, predicted, k=cutoff)
            assert kept.curve("model", metric)[cutoff - 1] == pytest.approx(
                expected, rel=0, abs=1e-12), (metric, cutoff)
            differs |= abs(by_id.curve("model", metric)[cutoff - 1] - expected) > 1e-9
    assert differs  # the data's ties do decide the top K somewhere


@pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")
@pytest.mark.parametrize("seed", range(3))
def test_spark_mllib_preset_matches_ranking_metrics(spark, seed):
    from pyspark.mllib.evaluation import RankingMetrics

    truth, run = random_data(930 + seed, tie_free=True)
    evaluation = evaluate(truth, {"model": run}, relevance=BINARY,
                          conventions=Conventions.preset("spark_mllib"), max_cutoff=MAX_CUTOFF)
    ranked = _ranked(run)
    relevant = truth[truth["rating"] >= 1].groupby("user")["item"].agg(list)
    rows = [(ranked.get(user, []), relevant.get(user, [])) for user in truth["user"].unique()]
    assert any(not labels for _, labels in rows) and any(not ranking for ranking, _ in rows)
    metrics = RankingMetrics(spark.sparkContext.parallelize(rows, 2))
    for metric, reference in (("precision", metrics.precisionAt), ("recall", metrics.recallAt),
                              ("ndcg", metrics.ndcgAt),
                              ("map", metrics.meanAveragePrecisionAt)):
        means = evaluation.curve("model", metric)
        for cutoff in CUTOFFS:
            assert means[cutoff - 1] == pytest.approx(reference(cutoff), rel=0, abs=1e-12), (
                metric, cutoff)
    # no list is longer than 30 and no user has more than 15 relevant items: MAP@30 is the
    # uncut MAP, which Spark divides by |R|
    assert evaluation.curve("model", "map")[MAX_CUTOFF - 1] == pytest.approx(
        metrics.meanAveragePrecision, rel=0, abs=1e-12)


# RecBole 1.2's own expected values, from its tests/metrics/test_topk_metrics.py
# (RUCAIBox/RecBole): four users' hits at ranks 1..3 (pos_idx) and relevant-item counts
# (pos_len), and each metric's value per user at K = 1, 2, 3 (metric_info). RecBole reports
# the mean over users.
RECBOLE_HITS = [[0, 0, 0], [1, 1, 1], [1, 0, 1], [0, 0, 1]]
RECBOLE_RELEVANT = [1, 3, 4, 2]
_L2 = np.log2
RECBOLE_EXPECTED = {
    "hit_rate": [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 1]],
    "ndcg": [[0, 0, 0], [1, 1, 1],
             [1, (1 / _L2(2)) / (1 / _L2(2) + 1 / _L2(3)),
              (1 / _L2(2) + 1 / _L2(4)) / (1 / _L2(2) + 1 / _L2(3) + 1 / _L2(4))],
             [0, 0, (1 / _L2(4)) / (1 / _L2(2) + 1 / _L2(3))]],
    "mrr": [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 1 / 3]],
    "map": [[0, 0, 0], [1, 1, 1], [1, 1 / 2, (1 / 3) * (1 / 1 + 2 / 3)], [0, 0, (1 / 3) * (1 / 2)]],
    "recall": [[0, 0, 0], [1 / 3, 2 / 3, 3 / 3], [1 / 4, 1 / 4, 2 / 4], [0, 0, 1 / 2]],
    "precision": [[0, 0, 0], [1, 2 / 2, 3 / 3], [1, 1 / 2, 2 / 3], [0, 0, 1 / 3]],
}


def _recbole_data() -> tuple[pd.DataFrame, pd.DataFrame]:
    """RecBole's test case as files would hold it: each user's three ranked items, relevant
    where pos_idx says, and relevant items the list missed to make up pos_len."""
    truth, run = [], []
    for number, (hits, relevant) in enumerate(zip(RECBOLE_HITS, RECBOLE_RELEVANT, strict=True)):
        user = f"u{number}"
        for rank, hit in enumerate(hits):
            run.append((user, f"{user}-ranked{rank}", 3.0 - rank))
            if hit:
                truth.append((user, f"{user}-ranked{rank}", 1))
        truth += [(user, f"{user}-unranked{extra}", 1)
                  for extra in range(relevant - sum(hits))]
    return (pd.DataFrame(truth, columns=["user", "item", "rating"]),
            pd.DataFrame(run, columns=["user", "item", "score"]))


def test_recbole_top_k_metrics_are_the_spark_mllib_preset():
    """RecBole divides AP@K by min(K, |R|), takes the NDCG ideal from min(K, |R|) relevant
    items and gives each a gain of 1: the spark_mllib preset, per user and on average."""
    truth, run = _recbole_data()
    evaluation = evaluate(truth, {"model": run}, relevance=BINARY,
                          conventions=Conventions.preset("spark_mllib"), max_cutoff=3)
    means = evaluation.means(list(RECBOLE_EXPECTED))["model"]
    for metric, expected in RECBOLE_EXPECTED.items():
        table = np.array(expected, dtype=float)
        for cutoff in (1, 2, 3):
            per_user = evaluation.per_user_at("model", metric, cutoff)
            assert per_user.to_numpy() == pytest.approx(table[:, cutoff - 1], abs=1e-12), (
                metric, cutoff)
            assert means[metric][cutoff - 1] == pytest.approx(table[:, cutoff - 1].mean(),
                                                              abs=1e-12), (metric, cutoff)


@pytest.mark.parametrize("seed", range(3))
def test_sklearn_preset_is_ndcg_scores_mean(seed):
    """scikit-learn's ndcg_score fed each user's top K rows of the model, as one matrix per
    length fed (its own mean over the users of the matrix): the mean over every user with a
    list, 0 where the top K holds no relevant item. It needs two rows or more, so the lists
    here have two or more items; users unknown to the ground truth are not fed."""
    from sklearn.metrics import ndcg_score

    truth, run = random_data(960 + seed, ratings="stars", tie_free=True)
    sizes = run.groupby("user")["item"].transform("size")
    run = run[(sizes >= 2) & run["user"].isin(truth["user"])].reset_index(drop=True)
    grades = STARS.grades(truth["rating"].to_numpy()).astype(float)
    lists = (run.merge(truth.assign(grade=grades), on=["user", "item"], how="left")
             .fillna({"grade": 0.0})
             .sort_values(["user", "score"], ascending=[True, False]))
    evaluation = evaluate(truth, {"model": run}, relevance=STARS,
                          conventions=Conventions.preset("sklearn"), max_cutoff=MAX_CUTOFF)
    for cutoff in CUTOFFS[1:]:
        top = lists.groupby("user").head(cutoff)
        fed = top.groupby("user")["grade"].transform("size")
        total, users = 0.0, 0
        for length, rows in top.groupby(fed):
            y_true = rows["grade"].to_numpy().reshape(-1, length)
            y_score = rows["score"].to_numpy().reshape(-1, length)
            total += ndcg_score(y_true, y_score, k=cutoff) * len(y_true)
            users += len(y_true)
        assert evaluation.curve("model", "ndcg")[cutoff - 1] == pytest.approx(
            total / users, rel=0, abs=1e-12), cutoff
        assert evaluation.user_counts()["users"].iloc[0] == users
