"""The beyond-accuracy options the documentation says reproduce RecBole or Evidently, checked
against the values those libraries' own tests expect.

Neither installs here (RecBole needs PyTorch, Evidently plotly < 6), so each test rebuilds one
of their test cases, cited by repository, file and test name, and computes it with rankmetrics:

- RecBole 1.2.1 (``RUCAIBox/RecBole``, tag v1.2.1 = commit 9a6f63d8,
  ``tests/metrics/test_topk_metrics.py``, class ``TestTopKMetrics``): five users' top 3 of an
  item set of 8 (ids 0-7, 0 never recommended) and the training interaction counts of items
  1-6;
- Evidently 0.7.21 (``evidentlyai/evidently``, commit a4aa4c2b,
  ``tests/metrics/recsys/test_popularity_bias.py``): three users' lists and four training
  interactions.

The relation each test shows is the one written in docs/beyond-accuracy.md.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, evaluate
from rankmetrics.beyond import BeyondOptions

# ----- RecBole ------------------------------------------------------------------------------

RECBOLE_LISTS = [[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]]  # item_matrix
RECBOLE_NUM_ITEMS = 8  # num_items: ids 0-7
RECBOLE_ITEM_COUNT = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}  # item_count (7: none)


def _recbole(*, catalogue: object = "auto", **options: object):
    """RecBole's test case: users u0-u4 with their lists, each with a relevant item (so every
    user is counted), and training interactions holding each item ``item_count`` times."""
    run = pd.DataFrame([(f"u{user}", str(item), float(-rank))
                        for user, listed in enumerate(RECBOLE_LISTS)
                        for rank, item in enumerate(listed)], columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{user}" for user in range(len(RECBOLE_LISTS))],
                          "item": [str(listed[0]) for listed in RECBOLE_LISTS], "rating": 1})
    train = pd.DataFrame([(f"t{item}-{copy}", str(item))
                          for item, count in RECBOLE_ITEM_COUNT.items()
                          for copy in range(count)], columns=["user", "item"])
    return evaluate(truth, {"m": run}, max_cutoff=3, interactions=train, catalogue=catalogue,
                    beyond_options=BeyondOptions(**options))


RECBOLE_ITEM_SET = [str(item) for item in range(RECBOLE_NUM_ITEMS)]


def test_recbole_gini_index_is_gini_over_its_item_set():
    # test_giniindex: get_gini(item_matrix, num_items)
    expected = ((-7) * 0 + (-5) * 1 + (-3) * 1 + (-1) * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (
        8 * (3 * 5))
    evaluation = _recbole(catalogue=RECBOLE_ITEM_SET, distribution="catalogue")
    assert evaluation.beyond.curve("m", "gini")[2] == pytest.approx(expected, rel=0, abs=1e-15)


def test_recbole_item_coverage_is_coverage_of_its_item_set():
    # test_itemcoverage: get_coverage(item_matrix, num_items) == 7 / 8
    evaluation = _recbole(catalogue=RECBOLE_ITEM_SET)
    assert evaluation.beyond.curve("m", "coverage")[2] == 7 / 8


def test_recbole_average_popularity_is_arp_by_interactions():
    # test_averagepopularity: metric_info(get_pop(item_matrix, item_count)), user x K
    expected = np.array([[4 / 1, 4 / 2, 6 / 3], [3 / 1, 7 / 2, 8 / 3], [1 / 1, 3 / 2, 7 / 3],
                         [0 / 1, 3 / 2, 8 / 3], [4 / 1, 6 / 2, 6 / 3]])
    evaluation = _recbole(popularity="interactions")
    per_user = evaluation.per_user("m", "arp").loc[[f"u{user}" for user in range(5)]]
    np.testing.assert_allclose(per_user.to_numpy(), expected, rtol=0, atol=1e-15)
    # RecBole's AveragePopularity@K is the mean of that column (topk_result)
    np.testing.assert_allclose(evaluation.curve("m", "arp"), expected.mean(axis=0), rtol=0,
                               atol=1e-15)


def test_recbole_tail_percentage_is_aplt_with_bottom_items():
    # test_tailpercentage, tail_ratio unset (0.1): the tail is the least popular
    # max(int(6 * 0.1), 1) = 1 item of item_count, item 1
    expected = np.array([[0 / 1, 0 / 2, 0 / 3], [0 / 1, 0 / 2, 0 / 3], [0 / 1, 0 / 2, 0 / 3],
                         [1 / 1, 1 / 2, 1 / 3], [0 / 1, 0 / 2, 0 / 3]])
    evaluation = _recbole(catalogue=[str(item) for item in RECBOLE_ITEM_COUNT],
                          long_tail="bottom_items", long_tail_share=0.1)
    per_user = evaluation.per_user("m", "aplt").loc[[f"u{user}" for user in range(5)]]
    # the lists of items of item_count agree
    without_7 = [1, 2, 3]
    np.testing.assert_allclose(per_user.to_numpy()[without_7], expected[without_7], rtol=0,
                               atol=1e-15)
    # item 7 (at rank 2 of u0, rank 3 of u4) has no count: never in RecBole's tail, while
    # rankmetrics puts every item outside the short head, the catalogue included, in it
    assert per_user.loc["u0"].tolist() == pytest.approx([0, 1 / 2, 1 / 3])
    assert per_user.loc["u4"].tolist() == pytest.approx([0, 0, 1 / 3])
    assert expected[[0, 4]].tolist() == [[0, 0, 0], [0, 0, 0]]


def test_recbole_shannon_entropy_is_entropy_times_log_over_count():
    # test_shannonentropy (v1.2.1): -mean(p ln p) over the 7 items recommended, p = count / 15;
    # ours divides -sum(p ln p) by ln 7 instead of 7
    shares = np.array([1, 2, 3, 2, 4, 1, 2]) / 15
    expected = -np.mean(shares * np.log(shares))
    evaluation = _recbole(catalogue="all", distribution="recommended")
    recommended = len({item for listed in RECBOLE_LISTS for item in listed})
    entropy = evaluation.beyond.curve("m", "entropy")[2]
    assert entropy * math.log(recommended) / recommended == pytest.approx(expected, rel=0,
                                                                        abs=1e-15)


def test_recbole_map_divides_by_min_k_relevant():
    # test_map: pos_idx (hits along each top 3) and pos_len (relevant items of each user)
    pos_idx = [[0, 0, 0], [1, 1, 1], [1, 0, 1], [0, 0, 1]]
    pos_len = [1, 3, 4, 2]
    expected = np.array([[0, 0, 0], [1, 1, 1], [1, (1 / 2), (1 / 3) * ((1 / 1) + (2 / 3))],
                         [0, 0, (1 / 3) * (1 / 2)]])
    run, truth = [], []
    for user, (hits, relevant) in enumerate(zip(pos_idx, pos_len, strict=True)):
        listed = [f"u{user}-hit{rank}" if hit else f"u{user}-miss{rank}"
                  for rank, hit in enumerate(hits)]
        run += [(f"u{user}", item, float(-rank)) for rank, item in enumerate(listed)]
        found = [item for item in listed if "-hit" in item]
        unfound = [f"u{user}-unfound{n}" for n in range(relevant - len(found))]
        truth += [(f"u{user}", item, 1) for item in found + unfound]
    evaluation = evaluate(pd.DataFrame(truth, columns=["user", "item", "rating"]),
                          {"m": pd.DataFrame(run, columns=["user", "item", "score"])},
                          conventions=Conventions(ap_denominator="min_k_relevant"), max_cutoff=3)
    per_user = evaluation.per_user("m", "map").loc[[f"u{user}" for user in range(4)]]
    np.testing.assert_allclose(per_user.to_numpy(), expected, rtol=0, atol=1e-15)


# ----- Evidently ----------------------------------------------------------------------------

# test_curr_rank: u1: [3], u2: [2, 3], u3: [1, 2]; training u1: 1, 2; u2: 1; u3: 1
EVIDENTLY_RUN = pd.DataFrame({"user": ["1", "2", "2", "3", "3"],
                              "item": ["3", "2", "3", "1", "2"],
                              "score": [-1.0, -1.0, -2.0, -1.0, -2.0]})
EVIDENTLY_TRAIN = pd.DataFrame({"user": ["1", "1", "2", "3"], "item": ["1", "2", "1", "1"]})
EVIDENTLY_TRUTH = pd.DataFrame({"user": ["1", "2", "3"], "item": "1", "rating": 1})


def _evidently(run: pd.DataFrame = EVIDENTLY_RUN, *, catalogue: object = "auto",
               conventions: Conventions | None = None, **options: object):
    return evaluate(EVIDENTLY_TRUTH, {"m": run}, max_cutoff=3, interactions=EVIDENTLY_TRAIN,
                    catalogue=catalogue, conventions=conventions,
                    beyond_options=BeyondOptions(**options))


def test_evidently_gini_is_n_over_n_minus_1_times_gini_over_recommended_items():
    # test_curr_rank: current_gini == 0.2 at k=3, over the n = 3 items recommended (counts
    # 1, 2, 2): 2 / ((n - 1) * 5) where rankmetrics divides by n * 5
    over_every_item = _evidently(catalogue="all", distribution="recommended")
    gini = over_every_item.beyond.curve("m", "gini")[2]
    assert gini == pytest.approx(2 / (3 * 5), rel=0, abs=1e-15)
    n = 3
    assert n / (n - 1) * gini == pytest.approx(0.2, rel=0, abs=1e-15)
    # with the default catalogue (the training items 1, 2) item 3 is not counted at all
    training_items = _evidently(distribution="recommended")
    assert training_items.beyond.curve("m", "gini")[2] == pytest.approx(1 / 6, rel=0,
                                                                        abs=1e-15)


def test_evidently_arp_leaves_items_unseen_in_training_out():
    # test_curr_rank: current_apr == 1.5, popularity = distinct training users of an item
    # (TrainStats: item 1: 3, item 2: 1). Item 3 was never trained on: Evidently drops it
    # from u2's list and drops u1 (nothing left): (1 + (3 + 1) / 2) / 2 = 1.5.
    ours = _evidently(popularity="users")
    # rankmetrics counts item 3 with popularity 0: (0 + (1 + 0) / 2 + (3 + 1) / 2) / 3
    assert ours.curve("m", "arp")[2] == pytest.approx(2.5 / 3, rel=0, abs=1e-15)
    # Evidently's number: the lists without the unseen item, users left empty skipped
    seen = EVIDENTLY_RUN[EVIDENTLY_RUN["item"].isin(EVIDENTLY_TRAIN["item"])]
    evidently = _evidently(seen, conventions=Conventions(missing_users="skip"),
                           popularity="users")
    assert evidently.curve("m", "arp")[2] == 1.5
    assert evidently.user_counts().iloc[0]["users"] == 2
    # and the same from the whole lists, leaving the unseen items out as Evidently does
    left_out = _evidently(popularity="users", unseen_items="left_out").beyond
    assert left_out.curve("m", "arp")[2] == 1.5
    at_three = left_out.summary(["arp"], [3]).iloc[0]
    assert (at_three["value"], at_three["users"]) == (1.5, 2)


def test_evidently_coverage_is_coverage_of_the_training_items():
    # test_curr_rank: current_coverage == 1.0 (items 1, 2 of the training items 1, 2 are
    # recommended; item 3, never trained on, does not count)
    assert _evidently().beyond.curve("m", "coverage")[2] == 1.0


@pytest.mark.parametrize(("k", "expected_coverage"), [(1, 1 / 3.0), (2, 2 / 3.0), (3, 1.0)])
def test_evidently_coverage_at_k(k, expected_coverage):
    # test_coverage: every user gets 1, 2, 3 in that order; training items 1, 2, 3
    run = pd.DataFrame({"user": ["1"] * 3 + ["2"] * 3 + ["3"] * 3,
                        "item": ["1", "2", "3"] * 3, "score": [-1.0, -2.0, -3.0] * 3})
    train = pd.DataFrame({"user": ["1", "1", "2", "3"], "item": ["1", "2", "1", "3"]})
    evaluation = evaluate(EVIDENTLY_TRUTH, {"m": run}, max_cutoff=3, interactions=train)
    assert evaluation.beyond.curve("m", "coverage")[k - 1] == expected_coverage
