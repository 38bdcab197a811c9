"""The ``evidently`` preset against Evidently's own tests' values.

Evidently 0.7's recommender metrics need plotly < 6 and two dozen other packages, so it is not
installed beside the app; its tests (``tests/metrics/recsys/test_precision_top_k.py``,
``test_recall_top_k.py``, ``test_ndcg_k.py``, ``test_map_k.py``, ``test_mrr.py`` and
``test_hit_rate_k.py`` in evidentlyai/evidently) share one table: users a, b and c, three
ranked items each, a's first and c's third relevant, b's none. Their expected values are
copied below, at K = 1, 2, 3; "no_feedback_users=True" counts b (the ``empty_users="zero"``
option), the default leaves b out.

Evidently reads only the rows it is given (the recommended items with their targets), so its
relevant items and ideal list are the list's own, and it divides Precision by the smaller of K
and the list's length: both are checked here on lists of other lengths with relevant items the
lists miss, against the formulas of its code written out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

BINARY = RelevanceMapping.binary(1)

EVIDENTLY_TARGETS = {"a": [1, 0, 0], "b": [0, 0, 0], "c": [0, 0, 1]}
#: metric -> (values at K = 1, 2, 3 without b, values with b), from Evidently's tests
EVIDENTLY_EXPECTED = {
    "precision": ([0.5, 0.25, 0.333333], [0.333333, 0.166666, 0.222222]),
    "recall": ([0.5, 0.5, 1.0], [0.333333333, 0.333333333, 0.666666666]),
    "ndcg": ([0.5, 0.5, 0.75], None),
    "map": ([0.5, 0.5, 0.6666666], [0.3333333, 0.3333333, 0.4444444]),
    "mrr": ([0.5, 0.5, 0.66666666], [0.3333333, 0.3333333, 0.4444444]),
    "hit_rate": ([0.5, 0.5, 1.0], [0.3333333, 0.3333333, 0.6666666]),
}


def _evidently_table() -> tuple[pd.DataFrame, pd.DataFrame]:
    truth, run = [], []
    for user, targets in EVIDENTLY_TARGETS.items():
        for rank, target in enumerate(targets, start=1):
            truth.append((user, f"{user}{rank}", target))
            run.append((user, f"{user}{rank}", float(4 - rank)))
    return (pd.DataFrame(truth, columns=["user", "item", "rating"]),
            pd.DataFrame(run, columns=["user", "item", "score"]))


@pytest.mark.parametrize("counted", [False, True], ids=["no_feedback_users=False", "True"])
def test_evidently_preset_gives_its_tests_values(counted):
    truth, run = _evidently_table()
    conventions = Conventions.preset("evidently", **({"empty_users": "zero"} if counted else {}))
    evaluation = evaluate(truth, {"model": run}, relevance=BINARY, conventions=conventions,
                          max_cutoff=3)
    means = evaluation.means(list(EVIDENTLY_EXPECTED))["model"]
    for metric, (without_b, with_b) in EVIDENTLY_EXPECTED.items():
        expected = with_b if counted else without_b
        if expected is None:
            continue
        # Evidently's tests give six or seven decimals, compared with np.isclose
        assert means[metric] == pytest.approx(expected, rel=0, abs=1e-6), metric


def _evidently_formulas(truth: pd.DataFrame, run: pd.DataFrame, cutoff: int) -> dict[str, float]:
    """Precision, Recall and NDCG at K as Evidently's code computes them from the rows it is
    given: tp / min(rows, K), tp / the relevant rows, DCG over the rows' targets sorted; users
    whose rows hold no relevant item left out."""
    rows = run.merge(truth, on=["user", "item"], how="left").fillna({"rating": 0})
    rows["target"] = (rows["rating"] >= 1).astype(float)
    rows["rank"] = rows.groupby("user")["score"].rank(ascending=False, method="first")
    values = {"precision": [], "recall": [], "ndcg": []}
    for _, mine in rows.groupby("user"):
        mine = mine.sort_values("rank")
        relevant = mine["target"].sum()
        if relevant == 0:
            continue
        top = mine[mine["rank"] <= cutoff]
        hits = top["target"].sum()
        values["precision"].append(hits / min(len(mine), cutoff))
        values["recall"].append(hits / relevant)
        discount = 1 / np.log2(np.arange(2, len(mine) + 2))
        dcg = float((top["target"].to_numpy() * discount[:len(top)]).sum())
        ideal = np.sort(mine["target"].to_numpy())[::-1][:cutoff]
        values["ndcg"].append(dcg / float((ideal * discount[:len(ideal)]).sum()))
    return {metric: float(np.mean(found)) for metric, found in values.items()}


@pytest.mark.parametrize("seed", range(3))
def test_evidently_counts_only_the_rows_it_is_given(seed):
    truth, run = random_data(1200 + seed, tie_free=True)
    run = run[run["user"].isin(truth["user"])]
    evaluation = evaluate(truth, {"model": run}, relevance=BINARY, max_cutoff=30,
                          conventions=Conventions.preset("evidently"))
    for cutoff in (1, 3, 5, 10, 20, 30):
        expected = _evidently_formulas(truth, run, cutoff)
        for metric, value in expected.items():
            assert evaluation.curve("model", metric)[cutoff - 1] == pytest.approx(
                value, rel=0, abs=1e-12), (metric, cutoff)


def test_precision_over_the_list_length_keeps_its_value_past_the_longest_list():
    """With K beyond every list, each user's Precision stays hits / length (not falling as
    1/K), at every cutoff to the largest one."""
    truth, run = random_data(1203)
    evaluation = evaluate(truth, {"model": run}, relevance=BINARY, max_cutoff=80,
                          conventions=Conventions(precision_denominator="list_length"))
    per_user = evaluation.per_user("model", "precision")
    longest = int(run.groupby("user").size().max())
    assert longest < 80
    np.testing.assert_array_equal(per_user.iloc[:, longest - 1], per_user.iloc[:, 79])
    at = evaluation.per_user_at("model", "precision", 80)
    np.testing.assert_allclose(at.to_numpy(), per_user.iloc[:, 79].to_numpy(), atol=1e-15)
