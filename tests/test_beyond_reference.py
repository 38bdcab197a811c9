"""Beyond-accuracy metrics against recmetrics, a reference implementation, on random data.

recmetrics (0.1.5) defines personalization (1 - the mean cosine similarity of two users'
lists as 0/1 vectors), novelty (the mean over lists of sum -log2(pop(i) / u) / n, pop the
training users of an item and u the training users), prediction coverage (the percentage of
the catalogue recommended, rounded to two decimals) and intra-list similarity (the mean cosine
similarity of a list's pairs of items, by their feature vectors). With lists of K distinct
items each, our personalization@K, novelty@K (popularity by distinct users), coverage@K and
1 - ILD@K (cosine distance on the same features) are those numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import recmetrics

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions

SEEDS = [11, 12, 13]


def random_data(seed: int, n_users: int = 30, n_items: int = 40, length: int = 10):
    """Lists of ``length`` distinct items per user, training interactions in which every item
    occurs (so every recommended item has a popularity), and 4 numeric features per item."""
    rng = np.random.default_rng(seed)
    items = [f"i{n}" for n in range(n_items)]
    extra = np.array(items)[rng.zipf(1.4, 300) % n_items]
    train = pd.DataFrame({"user": rng.integers(0, 50, n_items + 300).astype(str),
                          "item": np.concatenate([items, extra])})
    lists = [list(rng.choice(items, length, replace=False)) for _ in range(n_users)]
    run = pd.DataFrame([(f"u{u}", item, float(-rank)) for u, listed in enumerate(lists)
                        for rank, item in enumerate(listed)], columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(n_users)], "item": "i0",
                          "rating": 1})
    features = pd.DataFrame(rng.random((n_items, 4)) + 0.01, index=items,
                            columns=["f1", "f2", "f3", "f4"])
    return truth, run, train, lists, features


@pytest.mark.parametrize("seed", SEEDS)
def test_personalization(seed):
    truth, run, train, lists, _ = random_data(seed)
    ev = evaluate(truth, {"m": run}, max_cutoff=10, interactions=train)
    ours = ev.beyond.curve("m", "personalization")
    for k in (1, 2, 5, 10):
        theirs = recmetrics.personalization([listed[:k] for listed in lists])
        assert ours[k - 1] == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_novelty_with_popularity_from_distinct_users(seed):
    truth, run, train, lists, _ = random_data(seed)
    ev = evaluate(truth, {"m": run}, max_cutoff=10, interactions=train,
                  beyond_options=BeyondOptions(popularity="users"))
    users_of = train.drop_duplicates().groupby("item")["user"].count().to_dict()
    per_user = ev.per_user("m", "novelty")
    for k in (1, 3, 10):
        system, per_list = recmetrics.novelty([listed[:k] for listed in lists], users_of,
                                              train["user"].nunique(), k)
        assert ev.curve("m", "novelty")[k - 1] == pytest.approx(system, abs=1e-12)
        assert per_user[k].to_numpy() == pytest.approx(np.array(per_list), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_prediction_coverage(seed):
    truth, run, train, lists, _ = random_data(seed, n_items=120)
    ev = evaluate(truth, {"m": run}, max_cutoff=10, interactions=train)
    catalogue = sorted(train["item"].unique())
    for k in (1, 4, 10):
        theirs = recmetrics.prediction_coverage([listed[:k] for listed in lists], catalogue)
        assert round(ev.beyond.curve("m", "coverage")[k - 1] * 100, 2) == theirs


@pytest.mark.parametrize("seed", SEEDS)
def test_intra_list_similarity_is_one_minus_ild_by_cosine(seed):
    truth, run, train, lists, features = random_data(seed)
    attributes = features.rename_axis("item").reset_index()
    ev = evaluate(truth, {"m": run}, max_cutoff=10, item_attributes=attributes)
    per_user = ev.per_user("m", "ild")
    for k in (2, 3, 10):
        top = [listed[:k] for listed in lists]
        theirs = recmetrics.intra_list_similarity(top, features)
        assert 1 - ev.curve("m", "ild")[k - 1] == pytest.approx(theirs, abs=1e-12)
        for user, listed in enumerate(top):
            single = recmetrics.metrics._single_list_similarity(listed, features, user)
            assert 1 - per_user.loc[f"u{user}", k] == pytest.approx(single, abs=1e-12)


def test_intra_list_similarity_on_genres_as_zero_one_columns():
    """Genres given as 0/1 columns are numeric features: cosine on them, as recmetrics."""
    truth, run, train, lists, _ = random_data(14)
    rng = np.random.default_rng(14)
    genres = pd.DataFrame((rng.random((40, 6)) < 0.4).astype(int),
                          index=[f"i{n}" for n in range(40)],
                          columns=[f"g{n}" for n in range(6)])
    genres.iloc[:, 0] = 1  # no item without a genre (a zero vector)
    ev = evaluate(truth, {"m": run}, max_cutoff=10,
                  item_attributes=genres.rename_axis("item").reset_index())
    theirs = recmetrics.intra_list_similarity(lists, genres)
    assert 1 - ev.curve("m", "ild")[9] == pytest.approx(theirs, abs=1e-12)
