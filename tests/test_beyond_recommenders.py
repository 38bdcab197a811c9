"""Beyond-accuracy metrics against Microsoft Recommenders' own Spark evaluator
(``recommenders.evaluation.spark_evaluation.SparkDiversityEvaluation``, 1.2.1) on random data,
run on the tests' local Spark session (journeys: ``-m journey`` runs them).

Its definitions, with lists of K distinct items per user and training interactions that do
not repeat a (user, item) pair of the lists (it refuses those):

- ``catalog_coverage``: distinct recommended items / distinct training items: our coverage@K
  with the training items as the catalogue;
- ``distributional_coverage``: -sum p(i) log2 p(i) over the recommended items, p(i) an item's
  share of all recommendations: our entropy over the recommended items (normalized by the
  natural log of their count) times log2 of that count;
- ``novelty``: the mean over every recommendation of -log2(interactions of the item /
  interactions): our novelty@K with popularity from interactions (every list has K items,
  so the mean over recommendations is the mean over users);
- ``user_diversity`` with item feature vectors: 1 - the mean cosine similarity of a list's
  pairs of items: our ILD@K by cosine on the same features, user by user.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from recommenders.evaluation import spark_evaluation

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions

CUTOFFS = (2, 8)

pytestmark = pytest.mark.journey


def random_data(seed: int, n_users: int = 25, n_items: int = 30, length: int = 8):
    """Lists of ``length`` distinct items for users 0..n_users-1; training interactions of
    other users (ids from 1000), every item at least once, popular items more often; four
    positive features per item."""
    rng = np.random.default_rng(seed)
    lists = [rng.choice(n_items, length, replace=False).tolist() for _ in range(n_users)]
    extra = rng.zipf(1.5, 200) % n_items
    items = np.concatenate([np.arange(n_items), extra])
    train = pd.DataFrame({"userID": 1000 + rng.integers(0, 60, len(items)),
                          "itemID": items}).drop_duplicates(ignore_index=True)
    features = rng.random((n_items, 4)) + 0.01
    return lists, train, features


def theirs(spark, lists, train, features, k: int, **options):
    from pyspark.ml.linalg import Vectors, VectorUDT
    from pyspark.sql.types import IntegerType, StructField, StructType

    reco = spark.createDataFrame([(user, int(item)) for user, listed in enumerate(lists)
                                  for item in listed[:k]], ["userID", "itemID"])
    history = spark.createDataFrame([(int(u), int(i)) for u, i in train.itertuples(index=False)],
                                    ["userID", "itemID"])
    schema = StructType([StructField("itemID", IntegerType()),
                         StructField("features", VectorUDT())])
    vectors = spark.createDataFrame([(item, Vectors.dense(row.tolist()))
                                     for item, row in enumerate(features)], schema)
    return spark_evaluation.SparkDiversityEvaluation(history, reco, item_feature_df=vectors,
                                                     **options)


def ours(lists, train, features, **options):
    run = pd.DataFrame([(f"u{user}", str(item), float(-rank))
                        for user, listed in enumerate(lists)
                        for rank, item in enumerate(listed)], columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(len(lists))], "item": "0",
                          "rating": 1})
    attributes = pd.DataFrame(features, columns=["f1", "f2", "f3", "f4"]).assign(
        item=[str(i) for i in range(len(features))])
    interactions = pd.DataFrame({"user": train["userID"].astype(str),
                                 "item": train["itemID"].astype(str)})
    return evaluate(truth, {"m": run}, max_cutoff=max(CUTOFFS), interactions=interactions,
                    item_attributes=attributes[["item", "f1", "f2", "f3", "f4"]],
                    beyond_options=BeyondOptions(**options))


def test_coverage_novelty_and_entropy(spark):
    lists, train, features = random_data(21)
    by_catalogue = ours(lists, train, features, popularity="interactions")
    by_recommended = ours(lists, train, features, distribution="recommended")
    for k in CUTOFFS:
        reference = theirs(spark, lists, train, features, k)
        assert by_catalogue.beyond.curve("m", "coverage")[k - 1] == pytest.approx(
            reference.catalog_coverage(), abs=1e-12)
        assert by_catalogue.curve("m", "novelty")[k - 1] == pytest.approx(
            reference.novelty(), abs=1e-12)
        recommended = len({item for listed in lists for item in listed[:k]})
        entropy = by_recommended.beyond.curve("m", "entropy")[k - 1]
        assert entropy * math.log2(recommended) == pytest.approx(
            reference.distributional_coverage(), abs=1e-12)


def test_user_diversity_by_feature_vectors_is_ild_by_cosine(spark):
    lists, train, features = random_data(22)
    per_user = ours(lists, train, features).per_user("m", "ild")
    for k in CUTOFFS:
        reference = theirs(spark, lists, train, features, k,
                           item_sim_measure="item_feature_vector")
        # its item pairs' similarities, spread over 4 partitions instead of its default 200
        # (the same numbers; 200 tasks per step on 30 items would only add minutes)
        reference._get_cosine_similarity(n_partitions=4)
        diversity = reference.user_diversity().toPandas()
        expected = pd.Series(diversity["user_diversity"].to_numpy(),
                             index=[f"u{u}" for u in diversity["userID"]])
        got = per_user[k].loc[expected.index].to_numpy()
        np.testing.assert_allclose(got, expected.to_numpy(), rtol=0, atol=1e-12)
        assert len(expected) == len(lists)
        assert per_user[k].mean() == pytest.approx(reference.diversity(), abs=1e-12)
