"""Every metric of the registry, on random data: each mean at every K is the mean of its
per-user values (a per-user metric), or the system formula written out from the lists (a system
metric); every declared bound is a true bound; and ILD by cosine distance, which runs to 2, is
not cut at 1 (Evidently's pairwise-distance test gives the distances)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import BeyondOptions, Conventions, RelevanceMapping, evaluate
from rankmetrics.metrics import (
    ALL_METRICS,
    BEYOND_METRICS,
    LIST_METRICS,
    LONG_TAIL_METRICS,
    METRICS,
    SYSTEM_METRICS,
)
from tests.helpers import random_data

CUTOFF = 12
PRESETS = ("default", "trec_eval", "ranx_burges", "retrieved_ideal")


def beyond_inputs(seed: int, features: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training interactions over random_data's items (a few never seen) and item attributes:
    one or two genres each (Jaccard), or two numeric features either side of 0 (cosine)."""
    rng = np.random.default_rng(seed)
    items = [f"i{number}" for number in range(60)]
    seen = rng.choice(items[:55], 500, p=np.linspace(2, 0.1, 55) / np.linspace(2, 0.1, 55).sum())
    interactions = pd.DataFrame({"user": [f"t{n}" for n in rng.integers(0, 50, 500)],
                                 "item": seen})
    if features in ("genres", "hamming"):
        genres = np.array(["drama", "comedy", "action", "horror", "sci-fi"])
        columns = {"genres": ["|".join(rng.choice(genres, rng.integers(1, 3), replace=False))
                              for _ in items]}
    else:
        columns = {"f1": rng.normal(size=60), "f2": rng.normal(size=60)}
    return interactions, pd.DataFrame({"item": items, **columns})


def evaluations(seed: int, features: str):
    truth, first = random_data(seed, ratings="stars", n_users=50, tie_free=True)
    _, second = random_data(seed + 1, ratings="stars", n_users=50, tie_free=True)
    interactions, attributes = beyond_inputs(seed + 2, features)
    for preset in PRESETS:
        yield preset, {"first": first, "second": second}, interactions, evaluate(
            truth, {"first": first, "second": second},
            relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}),
            conventions=Conventions.preset(preset), max_cutoff=CUTOFF,
            interactions=interactions, item_attributes=attributes,
            beyond_options=BeyondOptions(distance="hamming" if features == "hamming"
                                         else "auto"))


# genres by Jaccard and by Hamming (each genre a binary feature), numbers by cosine
CASES = [(seed, features) for seed in (3, 11) for features in ("genres", "numbers")]
CASES.append((5, "hamming"))


@pytest.fixture(scope="module", params=CASES, ids=[f"{s}-{f}" for s, f in CASES])
def evaluated(request):
    return list(evaluations(*request.param))


def test_the_registry_is_covered(evaluated):
    # every metric is checked below, by one of three rules, and every beyond-accuracy metric
    # is offered by the inputs (categories, category entropy and miscalibration by the genres
    # only)
    assert set(ALL_METRICS) == {*METRICS, *LIST_METRICS, *SYSTEM_METRICS, *LONG_TAIL_METRICS}
    offered = set(evaluated[0][3].beyond.metrics)
    by_genres = {"categories", "category_entropy", "miscalibration"}
    assert offered == set(BEYOND_METRICS) - (by_genres if "categories" not in offered
                                             else set())
    assert by_genres <= offered or by_genres.isdisjoint(offered)


def test_each_mean_is_the_mean_of_its_per_user_values(evaluated):
    for preset, _, _, ev in evaluated:
        for metric in (*METRICS, *ev.beyond.per_user_metrics):
            for model in ev.models:
                per_user = ev.per_user(model, metric)
                means = ev.curve(model, metric)
                assert len(per_user) == int(ev.included(model).sum())
                expected = per_user.to_numpy().mean(axis=0)
                np.testing.assert_allclose(means, expected, rtol=1e-12, atol=1e-12,
                                           err_msg=f"{metric} of {model} under {preset}")


def test_the_long_tail_means_are_the_means_of_the_long_tail_values(evaluated):
    for preset, _, _, ev in evaluated:
        for name, accuracy in LONG_TAIL_METRICS.items():
            for model in ev.models:
                per_user = ev.beyond.long_tail.per_user(model, accuracy).to_numpy()
                np.testing.assert_allclose(ev.beyond.curve(model, name), per_user.mean(axis=0),
                                           rtol=1e-12, atol=1e-12, err_msg=f"{name} {preset}")


def top_lists(run: pd.DataFrame, users: pd.Index) -> dict[str, list[str]]:
    """Each user's items by descending score (the scores are distinct)."""
    ordered = run.sort_values(["user", "score"], ascending=[True, False])
    lists = ordered.groupby("user")["item"].apply(list).to_dict()
    return {user: lists.get(user, []) for user in users}


def system_values(lists: list[list[str]], catalogue: set[str], k: int) -> dict[str, float]:
    """Coverage, Gini, exposure's Gini, entropy and personalization at K, written out from
    their definitions
    (over the whole catalogue, the default distribution)."""
    tops = [top[:k] for top in lists if top]
    counts = pd.Series([item for top in tops for item in top if item in catalogue]
                       ).value_counts().reindex(sorted(catalogue), fill_value=0)
    c = np.sort(counts.to_numpy(dtype=float))
    n = len(c)
    gini = sum((2 * j - n - 1) * value for j, value in enumerate(c, start=1)) / (n * c.sum())
    shares = c[c > 0] / c.sum()
    pairs = list(combinations(tops, 2))
    overlap = np.mean([len(set(a) & set(b)) / k for a, b in pairs])
    # exposure: rank r weighs 0.85^(r-1), the default geometric weight
    exposure = dict.fromkeys(sorted(catalogue), 0.0)
    for top in tops:
        for rank, item in enumerate(top, start=1):
            if item in catalogue:
                exposure[item] += 0.85 ** (rank - 1)
    e = np.sort(np.fromiter(exposure.values(), dtype=float))
    exposure_gini = sum((2 * j - n - 1) * value for j, value in enumerate(e, start=1)) / (
        n * e.sum())
    return {"coverage": float((c > 0).sum() / n), "gini": gini,
            "exposure_gini": exposure_gini,
            "entropy": float(-(shares * np.log(shares)).sum() / np.log(n)),
            "personalization": 1 - overlap}


def test_the_system_metrics_are_their_formulas(evaluated):
    for preset, runs, interactions, ev in evaluated:
        catalogue = set(interactions["item"])  # "auto": the training interactions' items
        for model in ev.models:
            counted = ev.users[ev.included(model)]
            lists = list(top_lists(runs[model], counted).values())
            for k in (1, 5, CUTOFF):
                expected = system_values(lists, catalogue, k)
                for metric in SYSTEM_METRICS:
                    assert ev.beyond.curve(model, metric)[k - 1] == pytest.approx(
                        expected[metric], abs=1e-12), (metric, model, k, preset)


def test_every_declared_bound_is_a_true_bound(evaluated):
    for _, _, _, ev in evaluated:
        for metric, declaration in ALL_METRICS.items():
            if metric in BEYOND_METRICS and metric not in ev.beyond.metrics:
                continue  # categories: not offered by numeric features
            for model in ev.models:
                if metric in METRICS or metric in LIST_METRICS:
                    values = ev.per_user(model, metric).to_numpy()
                elif metric in LONG_TAIL_METRICS:
                    values = ev.beyond.long_tail.per_user(
                        model, LONG_TAIL_METRICS[metric]).to_numpy()
                else:
                    values = ev.beyond.curve(model, metric)
                assert (values >= 0).all(), metric
                if declaration.highest is not None:
                    assert (values <= declaration.highest).all(), metric


def test_ild_by_cosine_distance_runs_past_one_in_every_mean():
    # Evidently's test_pairwise_distances: three users, four items each, two features; user
    # 3's list 0a, 4a, 6a, 10a has pairwise cosine distances (from Evidently's expected
    # distance matrix) 0.256705854, 1.11043153, 1.70710678, 0.417209941, 1.99861783 and
    # 1.62469505: ILD@4 = their mean, 1.1857945; users 1 and 2 (0a, 1a, 5a, 6a) have
    # 0.00496281, 0.292893219, 1.11043153, 0.226042701, 1.01098835, 0.375304952.
    rows = pd.DataFrame({
        "user": ["1"] * 4 + ["2"] * 4 + ["3"] * 4,
        "item": ["0a", "1a", "5a", "6a", "0a", "1a", "5a", "6a", "0a", "4a", "6a", "10a"],
        "f1": [1, 1, 1, -0.1, 1, 1, 1, -0.1, 1, 1, -0.1, -1],
        "f2": [0, 0.1, 1, 0.9, 0, 0.1, 1, 0.9, 0, 0.9, 0.9, -1],
        "score": [4, 3, 2, 1] * 3,
    })
    attributes = rows.drop_duplicates("item")[["item", "f1", "f2"]]
    truth = pd.DataFrame({"user": ["1", "2", "3"], "item": ["5a", "0a", "0a"], "rating": 1})
    ev = evaluate(truth, {"m": rows[["user", "item", "score"]]}, max_cutoff=4,
                  item_attributes=attributes)
    third = (0.256705854 + 1.11043153 + 1.70710678 + 0.417209941 + 1.99861783
             + 1.62469505) / 6
    first = (0.00496281 + 0.292893219 + 1.11043153 + 0.226042701 + 1.01098835
             + 0.375304952) / 6
    assert third == pytest.approx(1.1857945, abs=1e-7)
    values = ev.per_user("m", "ild")[4]
    assert values.to_dict() == pytest.approx({"1": first, "2": first, "3": third}, abs=1e-7)
    assert ev.curve("m", "ild")[3] == pytest.approx((2 * first + third) / 3, abs=1e-7)
    alone = evaluate(truth[truth["user"] == "3"], {"m": rows.loc[rows["user"] == "3", [
        "user", "item", "score"]]}, max_cutoff=4, item_attributes=attributes)
    assert alone.curve("m", "ild")[3] == pytest.approx(1.1857945, abs=1e-7)  # not 1.0
    assert BEYOND_METRICS["ild"].highest == 2.0
