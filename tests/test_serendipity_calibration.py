"""Serendipity and miscalibration: the metrics that compare a list with the user's training
history.

Serendipity is checked against Microsoft Recommenders 1.2.1's pandas evaluation
(``recommenders.evaluation.python_evaluation.user_item_serendipity`` and
``user_serendipity``), with co-occurrence and with item feature vectors. Two facts of that
version under this pandas (3.x), both outside its definition:

- its ``serendipity`` (the mean over users) ends with ``Series[0]`` on a labelled Series and
  raises ``KeyError``, so the mean is checked against the mean of its ``user_serendipity``;
- it fills the similarity of a pair no training user holds together with
  ``frame[col].fillna(0, inplace=True)``, which under copy-on-write fills a copy: such pairs
  stay NaN and its mean skips them. Its definition (the docstring, Zhang et al., 2012) counts
  them as 0, which we do; the random data therefore has one training user holding every
  item, so that every pair is held together and both readings are one number, and the case
  of a pair never held together is derived by hand.

Miscalibration (Steck, 2018, "Calibrated recommendations", RecSys, eq. 2-3: KL divergence of
the list's category distribution q from the history's p, with q smoothed to
(1 - alpha) q + alpha p, alpha = 0.01; each item's p(g|i) spread equally over its genres) is
checked on hand-derived cases and against a direct transcription of the formula written here
loop by loop.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions
from rankmetrics.cli import main
from rankmetrics.conventions import Conventions
from rankmetrics.explain import explain_history
from rankmetrics.io import interactions_from_dataframe
from rankmetrics.metrics import _history_kernels
from rankmetrics.relevance import RelevanceMapping
from tests.helpers import MOVIES

ALPHA = 0.01


def random_data(seed: int, n_users: int = 30, n_items: int = 25, length: int = 8):
    """Lists of distinct items with scores, a ground truth of binary ratings, and training
    interactions: each list user's own history, other users' rows, and one user ("hub")
    holding every item."""
    rng = np.random.default_rng(seed)
    reco, truth, train = [], [], []
    for user in range(n_users):
        # a list never holds an item of the user's history (Recommenders refuses those)
        order = rng.permutation(n_items)
        seen, listed = order[:rng.integers(1, 7)], order[10:10 + rng.integers(1, length + 1)]
        reco += [(f"u{user}", f"i{item}", float(len(listed) - rank))
                 for rank, item in enumerate(listed)]
        truth += [(f"u{user}", f"i{item}", int(rng.integers(0, 2)))
                  for item in rng.choice(order[6:], 6, replace=False)]
        train += [(f"u{user}", f"i{item}") for item in seen]
    train += [(f"v{rng.integers(0, 20)}", f"i{item}") for item in rng.integers(0, n_items, 80)]
    train += [("hub", f"i{item}") for item in range(n_items)]
    reco_df = pd.DataFrame(reco, columns=["user", "item", "score"])
    truth_df = pd.DataFrame(truth, columns=["user", "item", "rating"])
    train_df = pd.DataFrame(train, columns=["user", "item"]).drop_duplicates(ignore_index=True)
    return reco_df, truth_df, train_df


def ours(reco, truth, train, k, **options):
    # Recommenders averages over every user with a list: users without a relevant item too
    ev = evaluate(truth, {"m": reco}, max_cutoff=k, relevance=RelevanceMapping.identity(1),
                  conventions=Conventions(empty_users="zero"),
                  interactions=interactions_from_dataframe(train, name="train"), **options)
    return ev


def theirs(reco, truth, train, k, **extra):
    from recommenders.evaluation import python_evaluation

    top = reco.sort_values(["user", "score"], ascending=[True, False]).groupby("user").head(k)
    relevant = set(truth.loc[truth["rating"] >= 1, ["user", "item"]].itertuples(index=False,
                                                                                 name=None))
    top = top.assign(relevance=[float((u, i) in relevant)
                                for u, i in top[["user", "item"]].itertuples(index=False)])
    names = {"user": "userID", "item": "itemID"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        items = python_evaluation.user_item_serendipity(
            train.rename(columns=names), top.rename(columns=names)[["userID", "itemID",
                                                                    "relevance"]],
            col_relevance="relevance", **extra)
        users = python_evaluation.user_serendipity(
            train.rename(columns=names), top.rename(columns=names)[["userID", "itemID",
                                                                    "relevance"]],
            col_relevance="relevance", **extra)
    return items, users.set_index("userID")["user_serendipity"]


@pytest.fixture(params=["spread rows", "binary search"])
def lookup(request, monkeypatch):
    """Both ways a history item's row of the co-occurrence table is read: spread out once
    (an item many users hold) or searched pair by pair (the others)."""
    cost = 10 ** 9 if request.param == "spread rows" else 0
    monkeypatch.setattr(_history_kernels, "SEARCH_COST", cost)
    return request.param


@pytest.fixture(params=["by pair", "every category"])
def divergence(request, monkeypatch):
    """Both ways miscalibration adds up the shares: per (user, history category) pair, or
    for every category at once."""
    monkeypatch.setattr(_history_kernels, "PAIRS_UP_TO", 1.0 if request.param == "by pair"
                        else -1.0)
    return request.param


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 3, 8])
def test_serendipity_by_cooccurrence_is_recommenders(seed, k, lookup):
    reco, truth, train = random_data(seed)
    ev = ours(reco, truth, train, 8)
    mine = ev.per_user("m", "serendipity")[k]
    _, expected = theirs(reco, truth, train, k)
    assert len(expected) == len(mine) == 30
    np.testing.assert_allclose(mine.loc[expected.index].to_numpy(), expected.to_numpy(),
                               rtol=0, atol=1e-12)
    # the mean over users, as a mean (their serendipity() fails here; see the docstring)
    assert ev.curve("m", "serendipity")[k - 1] == pytest.approx(expected.mean(), abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_serendipity_by_feature_vectors_is_recommenders(seed):
    reco, truth, train = random_data(seed)
    rng = np.random.default_rng(seed)
    items = sorted(set(train["item"]) | set(reco["item"]), key=lambda i: int(i[1:]))
    vectors = rng.random((len(items), 3)) + 0.05
    features = pd.DataFrame({"itemID": items, "features": list(vectors)})
    attributes = pd.DataFrame({"item": items, **{f"f{j}": vectors[:, j] for j in range(3)}})
    ev = ours(reco, truth, train, 8, item_attributes=attributes,
              beyond_options=BeyondOptions(unexpectedness="attributes"))
    for k in (2, 8):
        _, expected = theirs(reco, truth, train, k, item_feature_df=features,
                             item_sim_measure="item_feature_vector")
        mine = ev.per_user("m", "serendipity")[k]
        np.testing.assert_allclose(mine.loc[expected.index].to_numpy(), expected.to_numpy(),
                                   rtol=0, atol=1e-12)
        assert ev.curve("m", "serendipity")[k - 1] == pytest.approx(expected.mean(), abs=1e-12)


# Training: x holds a, b; y holds b, c; z holds a, c, d. Users' items: a 2, b 2, c 2, d 1.
# Cosine on co-occurrence: sim(a,b) = 1/2, sim(a,c) = 1/2, sim(b,c) = 1/2, sim(a,d) = 1/sqrt 2,
# sim(c,d) = 1/sqrt 2, sim(b,d) = 0 (nobody holds both).
# u1 (history: x's items a, b) gets d, c, e; d and c are relevant, e never trained on.
TRAIN = pd.DataFrame({"user": ["u1", "u1", "y", "y", "z", "z", "z"],
                      "item": ["a", "b", "b", "c", "a", "c", "d"]})
TRUTH = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["d", "c", "a"], "rating": 1})
RUN = pd.DataFrame({"user": ["u1"] * 3 + ["u2"] * 2, "item": ["d", "c", "e", "a", "b"],
                    "score": [3, 2, 1, 2, 1]})


def small(metric, **options):
    ev = evaluate(TRUTH, {"m": RUN}, max_cutoff=3, relevance=RelevanceMapping.identity(1),
                  interactions=interactions_from_dataframe(TRAIN, name="train"), **options)
    return ev.per_user("m", metric)


def test_serendipity_by_hand_counts_pairs_never_held_together_as_unlike(lookup):
    values = small("serendipity")
    d = 1 - (1 / math.sqrt(2) + 0) / 2  # d against a (1/sqrt 2) and b (never together: 0)
    c = 1 - (1 / 2 + 1 / 2) / 2
    assert values.loc["u1"].tolist() == pytest.approx([d, (d + c) / 2, (d + c) / 3], abs=1e-15)
    # u2 has no history: every item is unexpected; a is relevant at rank 1
    assert values.loc["u2"].tolist() == pytest.approx([1.0, 0.5, 0.5], abs=1e-15)


def test_serendipity_by_popularity():
    # popularity (interactions): a 2, b 2, c 2, d 1 (ties by first appearance: a, b, c, d);
    # the K most popular: a | a, b | a, b, c. u1's d (rank 1) is unexpected at K = 1..3;
    # c (rank 2) at K = 2 only; u2's a is never unexpected.
    values = small("serendipity", beyond_options=BeyondOptions(unexpectedness="popularity"))
    assert values.loc["u1"].tolist() == pytest.approx([1.0, 2 / 2, 1 / 3], abs=1e-15)
    assert values.loc["u2"].tolist() == pytest.approx([0.0, 0.0, 0.0], abs=1e-15)


def test_serendipity_by_categories_uses_jaccard_similarity():
    genres = pd.DataFrame({"item": list("abcde"),
                           "genres": [("x",), ("x", "y"), ("y",), ("z",), ("x",)]})
    values = small("serendipity", item_attributes=genres,
                   beyond_options=BeyondOptions(unexpectedness="attributes"))
    # u1's history a {x}, b {x, y}: d {z} is like neither (0, 0); c {y}: 0 and 1/2
    d, c = 1.0, 1 - (0 + 0.5) / 2
    assert values.loc["u1"].tolist() == pytest.approx([d, (d + c) / 2, (d + c) / 3], abs=1e-15)


# ----- miscalibration -----------------------------------------------------------------------

GENRES = pd.DataFrame({"item": list("abcde"),
                       "genres": [("x",), ("x", "y"), ("y",), ("z",), None]})


def test_miscalibration_by_hand(divergence):
    values = small("miscalibration", item_attributes=GENRES)
    # u1's history a {x}, b {x, y}: p = x 3/4, y 1/4. List d {z}, c {y}, e (no genre).
    p = {"x": 0.75, "y": 0.25}

    def kl(q):
        return sum(share * math.log(share / ((1 - ALPHA) * q.get(g, 0) + ALPHA * share))
                   for g, share in p.items())

    at_1 = kl({"z": 1.0})
    at_2 = kl({"z": 0.5, "y": 0.5})
    assert values.loc["u1"].tolist() == pytest.approx([at_1, at_2, at_2], abs=1e-14)
    # u2 has no history: nothing to be calibrated to
    assert values.loc["u2"].tolist() == [0.0, 0.0, 0.0]


def test_a_list_that_mirrors_the_history_is_calibrated(divergence):
    train = pd.DataFrame({"user": ["u1"] * 2, "item": ["a", "c"]})
    truth = pd.DataFrame({"user": ["u1"], "item": ["a"], "rating": 1})
    run = pd.DataFrame({"user": ["u1"] * 2, "item": ["c", "a"], "score": [2, 1]})
    ev = evaluate(truth, {"m": run}, max_cutoff=2, relevance=RelevanceMapping.identity(1),
                  item_attributes=GENRES,
                  interactions=interactions_from_dataframe(train, name="train"))
    values = ev.per_user("m", "miscalibration").loc["u1"].tolist()
    # at K = 1 the list is all y; at K = 2 it is x 1/2, y 1/2, as the history
    assert values[1] == 0.0
    assert values[0] == pytest.approx(0.5 * math.log(0.5 / (ALPHA * 0.5))
                                      + 0.5 * math.log(0.5 / (0.99 + ALPHA * 0.5)), abs=1e-14)


def steck(history, listed, genres, alpha):
    """Steck's miscalibration, transcribed loop by loop."""
    def mix(items):
        shares, counted = {}, 0
        for item in items:
            held = genres.get(item) or ()
            if not held:
                continue
            counted += 1
            for genre in held:
                shares[genre] = shares.get(genre, 0.0) + 1.0 / len(held)
        return {g: s / counted for g, s in shares.items()} if counted else {}

    p, q = mix(history), mix(listed)
    total = 0.0
    for genre, share in p.items():
        total += share * math.log(share / ((1 - alpha) * q.get(genre, 0.0) + alpha * share))
    return total


@pytest.mark.parametrize("seed,alpha", [(5, 0.01), (6, 0.2)])
def test_miscalibration_is_the_formula_on_random_data(seed, alpha, divergence):
    reco, truth, train = random_data(seed)
    rng = np.random.default_rng(seed)
    items = sorted(set(train["item"]) | set(reco["item"]))
    names = ["g0", "g1", "g2", "g3", "g4"]
    genres = {item: tuple(rng.choice(names, rng.integers(0, 3), replace=False))
              for item in items}
    attributes = pd.DataFrame({"item": items, "genres": [genres[i] or None for i in items]})
    ev = ours(reco, truth, train, 8, item_attributes=attributes,
              beyond_options=BeyondOptions(calibration_alpha=alpha))
    values = ev.per_user("m", "miscalibration")
    ranked = reco.sort_values(["user", "score"], ascending=[True, False])
    listed = ranked.groupby("user")["item"].apply(list)
    history = train.groupby("user")["item"].apply(list)
    means = np.zeros(8)
    for user, row in values.iterrows():
        for k in range(1, 9):
            expected = steck(history.get(user, []), listed[user][:k], genres, alpha)
            assert row[k] == pytest.approx(expected, abs=1e-12), (user, k)
            means[k - 1] += expected
    np.testing.assert_allclose(ev.curve("m", "miscalibration"), means / len(values),
                               rtol=0, atol=1e-12)


# ----- where they are offered ---------------------------------------------------------------

def test_offered_only_with_their_inputs():
    seen = interactions_from_dataframe(TRAIN, name="train")
    with_history = evaluate(TRUTH, {"m": RUN}, max_cutoff=2, interactions=seen)
    assert "serendipity" in with_history.beyond.metrics
    assert "miscalibration" not in with_history.beyond.metrics
    both = evaluate(TRUTH, {"m": RUN}, max_cutoff=2, interactions=seen, item_attributes=GENRES)
    assert {"serendipity", "miscalibration"} <= set(both.beyond.metrics)
    assert "serendipity" not in evaluate(TRUTH, {"m": RUN}, max_cutoff=2,
                                         item_attributes=GENRES).beyond.metrics


@pytest.mark.parametrize("options,message", [
    ({"unexpectedness": "surprise"}, "'unexpectedness' argument"),
    ({"calibration_alpha": 0}, "'calibration_alpha' argument"),
    ({"calibration_alpha": 1.5}, "'calibration_alpha' argument"),
])
def test_bad_options_name_the_argument(options, message):
    with pytest.raises(ValueError, match=message):
        BeyondOptions(**options)


def test_the_command_line(capsys):
    runs = ["--run", str(MOVIES / "personalized.parquet")]
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--threshold", "4", "--metrics", "serendipity,miscalibration",
                 "--cutoffs", "5,10", "--interactions", str(MOVIES / "train.csv"),
                 "--item-attributes", str(MOVIES / "items.csv"),
                 "--unexpectedness", "popularity", "--calibration-alpha", "0.05"])
    out = capsys.readouterr().out
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert set(table["metric"]) == {"serendipity", "miscalibration"}
    assert (table["value"] >= 0).all()
    assert set(table["cutoff"]) == {5, 10}


def test_the_command_line_names_the_missing_input(capsys):
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
                 "--run", str(MOVIES / "personalized.parquet"), "--threshold", "4",
                 "--metrics", "miscalibration", "--interactions", str(MOVIES / "train.csv")])
    err = capsys.readouterr().err
    assert code != 0
    assert "--metrics miscalibration needs --item-attributes FILE" in err
    assert "Traceback" not in err


# ----- one user's arithmetic ----------------------------------------------------------------

@pytest.mark.parametrize("unexpectedness", ["cooccurrence", "attributes", "popularity"])
def test_the_worked_serendipity_adds_up_to_the_value_of_every_user(unexpectedness):
    reco, truth, train = random_data(7)
    items = sorted(set(train["item"]) | set(reco["item"]))
    rng = np.random.default_rng(7)
    genres = pd.DataFrame({"item": items, "genres": [
        tuple(rng.choice(["g0", "g1", "g2"], rng.integers(0, 3), replace=False)) or None
        for _ in items]})
    ev = ours(reco, truth, train, 8, item_attributes=genres,
              beyond_options=BeyondOptions(unexpectedness=unexpectedness))
    for k in (1, 4, 8):
        values = ev.per_user("m", "serendipity")[k]
        for user, value in values.items():
            worked = explain_history(ev, "m", user, "serendipity", cutoff=k)
            assert worked.value == value
            total = worked.ranked["part"].sum() / max(worked.listed, 1)
            assert total == pytest.approx(value, abs=1e-12), (user, k)
            assert worked.listed == min(k, int((reco["user"] == user).sum()))


def test_the_worked_miscalibration_adds_up_to_the_value_of_every_user():
    reco, truth, train = random_data(8)
    items = sorted(set(train["item"]) | set(reco["item"]))
    rng = np.random.default_rng(8)
    genres = pd.DataFrame({"item": items, "genres": [
        tuple(rng.choice(["g0", "g1", "g2", "g3"], rng.integers(0, 3), replace=False)) or None
        for _ in items]})
    ev = ours(reco, truth, train, 8, item_attributes=genres)
    for user, value in ev.per_user("m", "miscalibration")[5].items():
        worked = explain_history(ev, "m", user, "miscalibration", cutoff=5)
        assert worked.categories["term"].sum() == pytest.approx(value, abs=1e-12), user
        assert worked.categories["history"].sum() == pytest.approx(1.0) or \
            worked.categories.empty
        assert len(worked.latex()) == 2 and "MisCal" in worked.latex()[0]


def test_a_long_worked_sum_wraps_and_keeps_every_term():
    # 10 categories in every history: the divergence's terms go 3 to a line, none lost
    items = [f"i{n}" for n in range(30)]
    genres = pd.DataFrame({"item": items, "genres": [(f"g{n % 10}",) for n in range(30)]})
    train = pd.DataFrame({"user": ["u"] * 10 + ["v"] * 30, "item": items[:10] + items})
    truth = pd.DataFrame({"user": "u", "item": items[10:30], "rating": 1})
    run = pd.DataFrame({"user": "u", "item": items[10:30], "score": np.arange(20.0, 0, -1)})
    ev = evaluate(truth, {"m": run}, max_cutoff=20, relevance=RelevanceMapping.identity(1),
                  item_attributes=genres,
                  interactions=interactions_from_dataframe(train, name="train"))
    worked = explain_history(ev, "m", "u", "miscalibration", cutoff=20)
    line = worked.latex()[1]
    assert line.startswith(r"\begin{aligned}") and line.count(r"\ln") == 10
    assert [part.count(r"\ln") for part in line.split(r"\\")] == [3, 3, 3, 1, 0]
    assert line.endswith(rf"&= {ev.per_user('m', 'miscalibration')[20]['u']:.4f} \end{{aligned}}")
    # 20 relevant items: serendipity's parts wrap too, each written once
    worked = explain_history(ev, "m", "u", "serendipity", cutoff=20)
    line = worked.latex()[1]
    assert line.startswith(r"\begin{aligned}") and line.count(" + ") == 19
    assert r"\tfrac{1}{20}" in line


def test_the_worked_example_by_hand():
    ev = evaluate(TRUTH, {"m": RUN}, max_cutoff=3, relevance=RelevanceMapping.identity(1),
                  item_attributes=GENRES,
                  interactions=interactions_from_dataframe(TRAIN, name="train"))
    worked = explain_history(ev, "m", "u1", "serendipity", cutoff=2)
    assert worked.history == ["a", "b"]
    assert worked.ranked["item"].tolist() == ["d", "c"]
    assert worked.ranked["similarity"].tolist() == pytest.approx([1 / math.sqrt(2) / 2, 0.5])
    assert "the 2 items the user has seen" in worked.words()
    calibrated = explain_history(ev, "m", "u1", "miscalibration", cutoff=2)
    table = calibrated.categories.set_index("category")
    assert table["history"].to_dict() == {"x": 0.75, "y": 0.25}
    assert table["top_k"].to_dict() == {"x": 0.0, "y": 0.5}
    assert calibrated.ranked["categories"].tolist() == ["z", "y"]
    with pytest.raises(ValueError, match="not in the ground truth"):
        explain_history(ev, "m", "nobody", "serendipity", cutoff=2)
    plain = evaluate(TRUTH, {"m": RUN}, max_cutoff=3)
    with pytest.raises(ValueError, match="needs an evaluation computed here with training"):
        explain_history(plain, "m", "u1", "serendipity", cutoff=2)
