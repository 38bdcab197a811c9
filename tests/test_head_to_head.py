"""Two models head to head: per-user values, wins / ties / losses, the users with the
biggest gaps, and one user's two lists side by side.

The lists must order items exactly as the metrics do (the tie rule included), so a list's
hits at K equal what ``evaluate`` counts for that user."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, GroundTruth, RankedRun, RelevanceMapping, evaluate
from rankmetrics.explain import explain_ndcg, side_by_side
from rankmetrics.users import biggest_differences, head_to_head, outcome_counts

# ----- per-user values of two models ------------------------------------------------------


def small_evaluation(**conventions):
    truth = pd.DataFrame({"user": ["a", "b", "c", "d"], "item": ["x"] * 4, "rating": [1] * 4})
    # A finds x for a and b; B for a and c; B returns nothing for d
    run_a = pd.DataFrame({"user": list("abcd"), "item": ["x", "x", "y", "y"],
                          "score": [1.0] * 4})
    run_b = pd.DataFrame({"user": list("abc"), "item": ["x", "y", "x"], "score": [1.0] * 3})
    return evaluate(truth, {"A": run_a, "B": run_b}, max_cutoff=1,
                    conventions=Conventions(**conventions))


def test_head_to_head_by_hand():
    pairs = head_to_head(small_evaluation(), "A", "B", "hit_rate", 1)
    assert list(pairs.columns) == ["user", "value_a", "value_b", "difference"]
    assert pairs["user"].tolist() == ["a", "b", "c", "d"]
    assert pairs["value_a"].tolist() == [1, 1, 0, 0]
    assert pairs["value_b"].tolist() == [1, 0, 1, 0]  # d: no list, scored 0
    assert pairs["difference"].tolist() == [0, -1, 1, 0]
    assert outcome_counts(pairs) == (1, 2, 1)  # B better for c; same for a, d; A for b


def test_head_to_head_keeps_the_users_both_count():
    pairs = head_to_head(small_evaluation(missing_users="skip"), "A", "B", "hit_rate", 1)
    assert pairs["user"].tolist() == ["a", "b", "c"]  # B skips d
    with pytest.raises(ValueError, match="two different"):
        head_to_head(small_evaluation(), "A", "A", "hit_rate", 1)


def test_head_to_head_matches_per_user_values(movie_evaluation):
    pairs = head_to_head(movie_evaluation, "personalized", "top_heavy", "ndcg", 10)
    paired = movie_evaluation.paired("ndcg", 10)
    assert len(pairs) == len(paired) == 1940
    np.testing.assert_array_equal(pairs["value_a"], paired["personalized"])
    np.testing.assert_array_equal(pairs["value_b"], paired["top_heavy"])
    wins, ties, losses = outcome_counts(pairs)
    assert wins + ties + losses == 1940
    assert wins == int((paired["top_heavy"] > paired["personalized"]).sum())


def test_biggest_differences_are_sorted_and_leave_ties_out():
    pairs = pd.DataFrame({"user": ["u1", "u2", "u3", "u4", "u5", "u6"],
                          "value_a": [0.0, 0.5, 0.25, 0.875, 0.25, 0.5],
                          "value_b": [0.625, 0.5, 0.875, 0.125, 0.375, 0.0]})
    pairs["difference"] = pairs["value_b"] - pairs["value_a"]
    b_ahead, a_ahead = biggest_differences(pairs, count=2)
    # differences: u1 +0.625, u2 0, u3 +0.625, u4 -0.75, u5 +0.125, u6 -0.5; equal gaps by
    # user id
    assert b_ahead["user"].tolist() == ["u1", "u3"]
    assert a_ahead["user"].tolist() == ["u4", "u6"]
    b_all, a_all = biggest_differences(pairs, count=10)
    assert b_all["user"].tolist() == ["u1", "u3", "u5"]
    assert "u2" not in set(b_all["user"]) | set(a_all["user"])
    with pytest.raises(ValueError, match="count"):
        biggest_differences(pairs, count=0)


def test_biggest_differences_on_the_demo(movie_evaluation):
    pairs = head_to_head(movie_evaluation, "personalized", "top_heavy", "ndcg", 10)
    b_ahead, a_ahead = biggest_differences(pairs, count=10)
    assert b_ahead["difference"].is_monotonic_decreasing and (b_ahead["difference"] > 0).all()
    assert a_ahead["difference"].is_monotonic_increasing and (a_ahead["difference"] < 0).all()
    assert b_ahead["difference"].iloc[0] == pytest.approx(pairs["difference"].max())
    assert a_ahead["difference"].iloc[0] == pytest.approx(pairs["difference"].min())


# ----- one user's two lists ---------------------------------------------------------------


def test_textbook_lists_side_by_side(textbook):
    truth, runs = textbook
    both = side_by_side(truth, runs["recommended"], runs["c_at_position_5"], "user", cutoff=5)
    # liked A, C, X, Y, Z; recommended A B C D E, the other A B E D C
    lists = both.lists
    assert lists["rank"].tolist() == [1, 2, 3, 4, 5]
    assert lists["item_a"].tolist() == list("ABCDE")
    assert lists["item_b"].tolist() == list("ABEDC")
    assert lists["hit_a"].tolist() == [True, False, True, False, False]
    assert lists["hit_b"].tolist() == [True, False, False, False, True]
    assert lists["rating_a"].isna().tolist() == [False, True, False, True, True]
    table = both.truth
    assert table["item"].tolist() == list("ACXYZ")
    assert table["relevant"].all()
    assert table["rank_a"].tolist()[:2] == [1, 3] and table["rank_b"].tolist()[:2] == [1, 5]
    assert table["rank_a"].isna().tolist() == [False, False, True, True, True]


def test_shorter_list_and_cutoff(textbook):
    truth, runs = textbook
    short = runs["recommended"].head(2)  # A, B
    both = side_by_side(truth, short, runs["c_at_position_5"], "user", cutoff=3)
    assert both.lists["item_a"].tolist() == ["A", "B", None]
    assert both.lists["hit_a"].tolist() == [True, False, False]
    assert both.lists["rating_a"].isna().tolist() == [False, True, True]
    assert both.lists["item_b"].tolist() == list("ABE")
    assert both.truth.set_index("item").loc["C", "rank_b"] == 5  # ranked beyond K: kept
    nothing = side_by_side(truth, short.iloc[:0], short.iloc[:0], "user", cutoff=3)
    assert nothing.lists.empty and len(nothing.truth) == 5


def test_user_without_ground_truth(textbook):
    truth, runs = textbook
    both = side_by_side(truth.iloc[:0], runs["recommended"], runs["recommended"], "user",
                        cutoff=2)
    assert both.lists["hit_a"].tolist() == [False, False]
    assert both.truth.empty
    with pytest.raises(ValueError, match="cutoff"):
        side_by_side(truth, runs["recommended"], runs["recommended"], "user", cutoff=0)


def test_graded_relevance_marks_only_relevant_items():
    truth = pd.DataFrame({"user": ["q"] * 3, "item": ["d1", "d2", "d3"], "rating": [3, 1, 0]})
    run = pd.DataFrame({"user": ["q"] * 3, "item": ["d3", "d2", "d1"], "score": [3, 2, 1]})
    mapping = RelevanceMapping.graded({1: 1, 3: 2}, threshold=2)  # only d1 is relevant
    both = side_by_side(truth, run, run, "q", cutoff=3, relevance=mapping)
    assert both.lists["hit_a"].tolist() == [False, False, True]
    assert both.truth["item"].tolist() == ["d1", "d2", "d3"]  # highest grade first
    assert both.truth["grade"].tolist() == [2, 1, 0]


@pytest.mark.parametrize("ties", ["item_desc", "item_asc", "input"])
def test_lists_follow_the_tie_rule_and_match_the_metrics(ties):
    rng = np.random.default_rng(5)
    rows, judged = [], []
    for u in range(30):
        for item in rng.choice(40, size=12, replace=False):
            rows.append((f"u{u}", f"i{item:02d}", round(float(rng.random()), 1)))
        for item in rng.choice(40, size=8, replace=False):
            judged.append((f"u{u}", f"i{item:02d}", int(rng.integers(0, 3))))
    run = pd.DataFrame(rows, columns=["user", "item", "score"]).sample(frac=1, random_state=2)
    other = run.assign(score=run["score"].round(0))  # many more ties
    truth = pd.DataFrame(judged, columns=["user", "item", "rating"])
    conventions = Conventions(ties=ties)
    prepared = GroundTruth.from_frame(truth)
    evaluation = evaluate(
        prepared, {name: RankedRun.from_frame(frame, prepared, ties=ties)
                   for name, frame in (("a", run), ("b", other))},
        conventions=conventions, max_cutoff=10)
    hits = {name: evaluation.per_user_at(name, "precision", 10) * 10 for name in ("a", "b")}
    for user in truth["user"].unique():
        both = side_by_side(truth, run, other, user, cutoff=10, conventions=conventions)
        for side, frame in (("a", run), ("b", other)):
            expected = explain_ndcg(truth, frame, user, cutoff=10, conventions=conventions)
            assert both.lists[f"item_{side}"].tolist() == expected.ranked["item"].tolist()
            assert both.lists[f"hit_{side}"].sum() == pytest.approx(hits[side][user])
