"""ILD by Hamming distance on binary item features: each pair's share of features the two
items differ on, as scipy's ``hamming`` computes it, averaged over the pairs of the top K."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from sklearn.metrics import pairwise_distances

from rankmetrics import BeyondOptions, evaluate, load_bundle
from rankmetrics.cli import main
from rankmetrics.io import read_attributes, read_run, read_truth
from rankmetrics.relevance import RelevanceMapping
from tests.helpers import MOVIES

HAMMING = BeyondOptions(distance="hamming")


def random_case(seed: int, n_items: int = 40, n_features: int = 7, n_users: int = 30):
    """A ground truth, one run with lists of 0 to 12 items (some scores tied) and 0/1
    features, every item's row written."""
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(n_items)]
    features = rng.integers(0, 2, size=(n_items, n_features))
    rows, truth = [], []
    for u in range(n_users):
        length = int(rng.integers(0, 13))
        chosen = rng.choice(n_items, size=length, replace=False)
        scores = rng.integers(0, 5, size=length)  # ties are broken by the default rule
        rows += [(f"u{u}", items[j], int(s)) for j, s in zip(chosen, scores, strict=True)]
        truth.append((f"u{u}", items[int(rng.integers(n_items))], 1))
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth_table = pd.DataFrame(truth, columns=["user", "item", "rating"])
    attributes = pd.DataFrame(features, columns=[f"f{c}" for c in range(n_features)])
    attributes.insert(0, "item", items)
    return truth_table, run, attributes


def expected_ild(lists: dict[str, list[str]], vectors: dict[str, np.ndarray], users,
                 width: int) -> pd.DataFrame:
    """Each user's ILD at every K, from scipy's Hamming distance over the pairs."""
    out = {}
    for user in users:
        ranked = lists.get(user, [])
        values = []
        for k in range(1, width + 1):
            top = ranked[:k]
            values.append(pdist(np.array([vectors[i] for i in top]), "hamming").mean()
                          if len(top) > 1 else 0.0)
        out[user] = values
    return pd.DataFrame(out).T


def by_score(run: pd.DataFrame) -> dict[str, list[str]]:
    """Each user's list ranked by score, ties broken by item id descending (the default)."""
    ordered = run.sort_values(["user", "score", "item"], ascending=[True, False, False])
    return {user: list(group["item"]) for user, group in ordered.groupby("user")}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ild_by_hamming_is_scipy_s_hamming_over_the_pairs_at_every_k(seed):
    truth, run, attributes = random_case(seed)
    width = 12
    evaluation = evaluate(truth, {"m": run}, max_cutoff=width, item_attributes=attributes,
                          beyond_options=HAMMING)
    vectors = {row.item: np.array(row[1:], dtype=float)
               for row in attributes.itertuples(index=False)}
    users = list(truth["user"])
    expected = expected_ild(by_score(run), vectors, users, width)
    for k in range(1, width + 1):
        got = evaluation.per_user_at("m", "ild", k).reindex(users).to_numpy()
        assert np.allclose(got, expected[k - 1].to_numpy(), rtol=0, atol=1e-12), k
        # the mean is the mean over every user, those with fewer than two items at 0
        assert evaluation.curve("m", "ild")[k - 1] == pytest.approx(
            expected[k - 1].mean(), abs=1e-12)


def test_categories_are_one_binary_feature_each_beyond_one_word():
    """With more than 64 categories (two words of bits) every category is one feature: two
    items differ on the categories one has and the other not, over every category."""
    rng = np.random.default_rng(5)
    n_items, n_categories = 25, 70
    held = rng.random((n_items, n_categories)) < 0.1
    held[0] = False  # an item without a category: the vector of zeros
    held[1, 69] = True  # the last category is used, so there are 70
    items = [f"i{j}" for j in range(n_items)]
    attributes = pd.DataFrame({"item": items, "genres": [
        "|".join(f"g{c}" for c in np.flatnonzero(row)) for row in held]})
    run = pd.DataFrame({"user": ["a"] * 10 + ["b"] * 6,
                        "item": items[:10] + items[10:16],
                        "score": list(range(10, 0, -1)) + list(range(6, 0, -1))})
    truth = pd.DataFrame({"user": ["a", "b"], "item": ["i0", "i10"], "rating": [1, 1]})
    evaluation = evaluate(truth, {"m": run}, max_cutoff=10, item_attributes=attributes,
                          beyond_options=HAMMING)
    # one 0/1 column for each category some item has (a category no item has is not known)
    present = np.flatnonzero(held.any(axis=0))
    assert len(present) > 64
    matrix = held[:, present]
    distances = pairwise_distances(matrix, metric="hamming")
    for user, members in (("a", range(10)), ("b", range(10, 16))):
        listed = list(members)
        for k in range(1, 11):
            top = listed[:k]
            pairs = [distances[i, j] for n, i in enumerate(top) for j in top[n + 1:]]
            expected = float(np.mean(pairs)) if pairs else 0.0
            got = evaluation.per_user_at("m", "ild", k)[user]
            assert got == pytest.approx(expected, abs=1e-12), (user, k)


def test_a_value_other_than_0_or_1_is_refused_with_its_column_and_row():
    truth, run, attributes = random_case(3)
    attributes["f2"] = attributes["f2"].astype(float)
    attributes.loc[4, "f2"] = 0.5
    with pytest.raises(ValueError) as raised:
        evaluate(truth, {"m": run}, max_cutoff=5, item_attributes=attributes,
                 beyond_options=HAMMING)
    message = str(raised.value)
    assert "'f2'" in message and "0.5" in message and "row 5" in message
    assert "'i4'" in message and "Give only 0 and 1" in message
    # the default distance takes the same features as numbers (cosine)
    evaluation = evaluate(truth, {"m": run}, max_cutoff=5, item_attributes=attributes)
    assert evaluation.beyond.choices()["ild_distance"] == "cosine"


def test_an_unknown_distance_is_refused():
    with pytest.raises(ValueError, match="distance"):
        BeyondOptions(distance="euclid")


def test_the_command_line_takes_hamming_and_a_saved_evaluation_keeps_it(capsys, tmp_path):
    runs = [arg for model in ("popularity", "personalized")
            for arg in ("--run", str(MOVIES / f"{model}.parquet"))]
    folder = tmp_path / "saved"
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--threshold", "4", "--metrics", "ild", "--cutoffs", "2,10",
                 "--item-attributes", str(MOVIES / "items.csv"), "--distance", "hamming",
                 "--save", str(folder)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    table = pd.read_csv(io.StringIO(captured.out))
    attributes = read_attributes(MOVIES / "items.csv", key="item")
    evaluation = evaluate(read_truth(MOVIES / "ground_truth.csv"),
                          {m: read_run(MOVIES / f"{m}.parquet")
                           for m in ("popularity", "personalized")},
                          relevance=RelevanceMapping.identity(4), max_cutoff=10,
                          item_attributes=attributes, beyond_options=HAMMING)
    default = evaluate(read_truth(MOVIES / "ground_truth.csv"),
                       {"popularity": read_run(MOVIES / "popularity.parquet")},
                       relevance=RelevanceMapping.identity(4), max_cutoff=10,
                       item_attributes=attributes)
    for row in table.itertuples():
        assert row.value == pytest.approx(
            evaluation.curve(row.model, "ild")[row.cutoff - 1], rel=1e-9)
    assert evaluation.curve("popularity", "ild")[9] != default.curve("popularity", "ild")[9]
    bundle = load_bundle(folder)
    assert bundle.beyond.options.distance == "hamming"
    assert bundle.beyond.choices()["ild_distance"] == "hamming"
    info = json.loads((folder / "evaluation.json").read_text())
    assert "hamming" in json.dumps(info)
    assert np.allclose(bundle.curve("popularity", "ild")[:10],
                       evaluation.curve("popularity", "ild")[:10], rtol=0, atol=1e-12)
