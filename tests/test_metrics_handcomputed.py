"""Metric values computed by hand: the textbook examples (``data/textbook/``, the worked
examples that tutorials on ranking metrics copy from each other) and a few more small cases,
written as arithmetic next to the relevance sequence, with every convention option on a case
where it changes the answer.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from rankmetrics import Conventions, DataError, RelevanceMapping, evaluate


def log2(x: float) -> float:
    return math.log2(x)


def _evaluate(truth, run, *, max_cutoff, relevance=None, preset="default", **options):
    """Evaluate one model, "model", given as (user, item, rating) and (user, item, score)."""
    return evaluate(
        pd.DataFrame(truth, columns=["user", "item", "rating"]),
        {"model": pd.DataFrame(run, columns=["user", "item", "score"])},
        relevance=relevance,
        conventions=Conventions.preset(preset, **options),
        max_cutoff=max_cutoff,
    )


def _ranked(user: str, items) -> list[tuple[str, str, float]]:
    """A model's list for one user: the items in the given order (descending scores)."""
    return [(user, item, float(len(items) - rank)) for rank, item in enumerate(items)]


def _curve(evaluation, metric: str) -> list[float]:
    return evaluation.curve("model", metric).tolist()


# ----- the textbook example: recommended A, B, C, D, E; liked A, C, X, Y, Z ------------------

LIKED = ["A", "C", "X", "Y", "Z"]


def _textbook(order: str, **options):
    return _evaluate(
        [("u", item, 1) for item in LIKED], _ranked("u", list(order)), max_cutoff=5, **options
    )


def test_textbook_precision_recall_hit_rate_mrr():
    # rel = 1, 0, 1, 0, 0 (A, B, C, D, E); |R| = 5
    evaluation = _textbook("ABCDE")
    assert _curve(evaluation, "precision") == pytest.approx([1 / 1, 1 / 2, 2 / 3, 2 / 4, 2 / 5])
    assert _curve(evaluation, "recall") == pytest.approx([1 / 5, 1 / 5, 2 / 5, 2 / 5, 2 / 5])
    assert _curve(evaluation, "hit_rate") == [1.0] * 5
    assert _curve(evaluation, "mrr") == [1.0] * 5
    # the seed: Precision@5 = 2/5 = 0.4, Recall@5 = 2/5 = 0.4
    assert _curve(evaluation, "precision")[4] == _curve(evaluation, "recall")[4] == 0.4


@pytest.mark.parametrize("gain", ["exponential", "linear"])  # equal for 0/1 grades
def test_textbook_dcg(gain):
    # rel = 1, 0, 1, 0, 0: DCG@5 = 1/log2(2) + 1/log2(4) = 1.5
    dcg = _curve(_textbook("ABCDE", gain=gain), "dcg")
    assert dcg == pytest.approx([1, 1, 1 + 1 / log2(4), 1 + 1 / log2(4), 1 + 1 / log2(4)])
    assert dcg[4] == 1.5


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize(
    ("ideal", "idcg", "checked"),
    [
        # ideal from all ground truth: the five liked items, 1, 1, 1, 1, 1
        (
            "ground_truth",
            1 + 1 / log2(3) + 1 / log2(4) + 1 / log2(5) + 1 / log2(6),
            0.5087,  # trec_eval, ranx, RecBole, MS Recommenders
        ),
        # ideal from the retrieved list re-sorted: 1, 1, 0, 0, 0 (the tutorials' "0.92")
        ("retrieved", 1 + 1 / log2(3), 0.9197),
    ],
)
def test_textbook_ndcg_ideal(gain, ideal, idcg, checked):
    # rel = 1, 0, 1, 0, 0
    expected = (1 + 1 / log2(4)) / idcg
    ndcg = _curve(_textbook("ABCDE", gain=gain, ideal=ideal), "ndcg")[4]
    assert ndcg == pytest.approx(expected, abs=1e-12)
    assert round(ndcg, 4) == checked


@pytest.mark.parametrize(
    ("ideal", "idcg", "checked"),
    [
        ("ground_truth", 1 + 1 / log2(3) + 1 / log2(4) + 1 / log2(5) + 1 / log2(6), 0.4704),
        ("retrieved", 1 + 1 / log2(3), 0.8503),
    ],
)
def test_textbook_c_moved_to_position_5(ideal, idcg, checked):
    # rel = 1, 0, 0, 0, 1 (A, B, D, E, C): DCG@5 = 1 + 1/log2(5 + 1) = 1.3869
    evaluation = _textbook("ABDEC", ideal=ideal)
    assert _curve(evaluation, "dcg")[4] == pytest.approx(1 + 1 / log2(6), abs=1e-12)
    assert round(_curve(evaluation, "dcg")[4], 4) == 1.3869
    ndcg = _curve(evaluation, "ndcg")[4]
    assert ndcg == pytest.approx((1 + 1 / log2(6)) / idcg, abs=1e-12)
    assert round(ndcg, 4) == checked


def test_seed_088_is_an_arithmetic_slip():
    # The seed says: "If movie C had appeared at position 5 instead of position 3, DCG would
    # drop to 1.0 + 0.43 = 1.43, and NDCG would be ~0.88." 0.43 is 1/log2(5), the discount of
    # position 4: position i is discounted by log2(i + 1), so position 5 gets 1/log2(6) = 0.39.
    seed_dcg = 1 + 1 / log2(5)
    assert round(seed_dcg, 2) == 1.43
    assert round(seed_dcg / (1 + 1 / log2(3)), 2) == 0.88  # how the seed got its figure
    ndcg = _curve(_textbook("ABDEC", ideal="retrieved"), "ndcg")[4]
    assert round(ndcg, 4) == 0.8503
    assert round(ndcg, 2) != 0.88


def test_textbook_average_precision():
    # rel = 1, 0, 1, 0, 0; |R| = 5: AP@5 = (1/1 + 2/3) / 5 = 0.3333
    ap = _curve(_textbook("ABCDE"), "map")
    assert ap == pytest.approx([1 / 5, 1 / 5, (1 + 2 / 3) / 5, (1 + 2 / 3) / 5, (1 + 2 / 3) / 5])
    assert round(ap[4], 4) == 0.3333


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("ACBDE", "BDEAC"),  # hits at ranks 1, 2 vs 4, 5
        ("ACXBD", "BDACX"),  # 3 of the 5 liked at ranks 1, 2, 3 vs 3, 4, 5
    ],
)
def test_precision_and_recall_ignore_the_order_inside_the_top_k(better, worse):
    ours, theirs = _textbook(better), _textbook(worse)
    hits = sum(item in LIKED for item in better)
    for metric in ("precision", "recall"):
        assert _curve(ours, metric)[4] == _curve(theirs, metric)[4] == pytest.approx(hits / 5)
    assert _curve(ours, "ndcg")[4] > _curve(theirs, "ndcg")[4]


def test_three_hits_at_the_bottom_precision_recall_and_retrieved_ideal():
    # 5 liked items, 3 of them in the top 5, at ranks 3, 4, 5
    # rel = 0, 0, 1, 1, 1: P@5 = 3/5, R@5 = 3/5; its ideal re-sorts the top 5 to 1, 1, 1, 0, 0
    evaluation = _textbook("BDACX", ideal="retrieved")
    assert _curve(evaluation, "precision")[4] == pytest.approx(3 / 5)
    assert _curve(evaluation, "recall")[4] == pytest.approx(3 / 5)
    expected = (1 / log2(4) + 1 / log2(5) + 1 / log2(6)) / (1 + 1 / log2(3) + 1 / log2(4))
    assert _curve(evaluation, "ndcg")[4] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("first_hit", "reciprocal_rank"),
    [(1, 1.0), (2, 0.5), (3, 1 / 3), (5, 0.2)],
)
def test_reciprocal_rank_of_the_first_hit(first_hit, reciprocal_rank):
    # rel = 0, ..., 0, 1 (first hit at first_hit), then more hits that do not count
    items = [f"miss{rank}" for rank in range(1, first_hit)] + ["hit", "hit2"]
    evaluation = _evaluate(
        [("u", "hit", 1), ("u", "hit2", 1)], _ranked("u", items), max_cutoff=6
    )
    mrr = _curve(evaluation, "mrr")
    # MRR@K is 0 while the first hit is below K ("If a user has no relevant items in the
    # top-K, their RR is 0")
    assert mrr == [0.0] * (first_hit - 1) + [reciprocal_rank] * (7 - first_hit)


def test_mean_reciprocal_rank_over_users():
    # first hits at ranks 1, 2 and 5 for three queries
    truth = [(user, "hit", 1) for user in ("q1", "q2", "q3")]
    run = (
        _ranked("q1", ["hit", "a", "b", "c", "d"])
        + _ranked("q2", ["a", "hit", "b", "c", "d"])
        + _ranked("q3", ["a", "b", "c", "d", "hit"])
    )
    mrr = _curve(_evaluate(truth, run, max_cutoff=5), "mrr")
    assert mrr == pytest.approx([1 / 3, (1 + 1 / 2) / 3, (1 + 1 / 2) / 3, (1 + 1 / 2) / 3,
                                 (1 + 1 / 2 + 1 / 5) / 3])


def test_hit_rate_is_the_share_of_users_with_a_hit():
    # the usual definition: "if 80 out of 100 users had at least one relevant item in their top-K
    # recommendation list, the system's Hit Rate@K is 0.80"
    users = [f"u{number}" for number in range(100)]
    truth = [(user, "liked", 1) for user in users]
    run = [
        row
        for number, user in enumerate(users)
        for row in _ranked(user, ["other", "liked" if number < 80 else "miss"])
    ]
    assert _curve(_evaluate(truth, run, max_cutoff=2), "hit_rate") == pytest.approx([0, 0.8])


def test_precision_divides_by_k_beyond_the_end_of_the_list():
    # rel = 1, 1 and then nothing: the list is shorter than K
    evaluation = _evaluate([("u", "a", 1), ("u", "b", 1)], _ranked("u", ["a", "b"]), max_cutoff=4)
    assert _curve(evaluation, "precision") == pytest.approx([1, 1, 2 / 3, 2 / 4])
    assert _curve(evaluation, "recall") == [0.5, 1.0, 1.0, 1.0]
    assert _curve(evaluation, "ndcg") == pytest.approx([1, 1, 1, 1])
    per_user = evaluation.per_user("model", "precision")
    assert list(per_user.columns) == [1, 2, 3, 4]
    assert per_user.loc["u"].tolist() == pytest.approx([1, 1, 2 / 3, 2 / 4])


# ----- the graded textbook example: ranking d3 > d1 > d4 > d5 > d2 ----------------------------

GRADED_TRUTH = [("u", "d1", 3), ("u", "d2", 2), ("u", "d3", 0), ("u", "d4", 1)]
GRADED_RUN = _ranked("u", ["d3", "d1", "d4", "d5", "d2"])


def _graded(threshold=1, **options):
    return _evaluate(
        GRADED_TRUTH,
        GRADED_RUN,
        max_cutoff=5,
        relevance=RelevanceMapping.identity(threshold),
        **options,
    )


@pytest.mark.parametrize(
    ("gain", "cutoff", "expected", "checked"),
    [
        # grades along the ranking: 0, 3, 1, 0 (d5 unjudged), 2; ideal: 3, 2, 1, 0
        ("linear", 3, (3 / log2(3) + 1 / log2(4)) / (3 + 2 / log2(3) + 1 / log2(4)), 0.5025),
        (
            "linear",
            5,
            (3 / log2(3) + 1 / log2(4) + 2 / log2(6)) / (3 + 2 / log2(3) + 1 / log2(4)),
            0.6650,
        ),
        # exponential gains 2^g - 1 along the ranking: 0, 7, 1, 0, 3; ideal: 7, 3, 1, 0
        ("exponential", 3, (7 / log2(3) + 1 / log2(4)) / (7 + 3 / log2(3) + 1 / log2(4)), 0.5234),
        (
            "exponential",
            5,
            (7 / log2(3) + 1 / log2(4) + 3 / log2(6)) / (7 + 3 / log2(3) + 1 / log2(4)),
            0.6470,
        ),
    ],
)
@pytest.mark.parametrize("threshold", [1, 2])  # trec_eval -l2 leaves NDCG unchanged
def test_graded_ndcg(gain, cutoff, expected, checked, threshold):
    ndcg = _curve(_graded(threshold, gain=gain), "ndcg")[cutoff - 1]
    assert ndcg == pytest.approx(expected, abs=1e-12)
    assert round(ndcg, 4) == checked


@pytest.mark.parametrize(
    ("threshold_gains", "expected_at_3", "expected_at_5"),
    [
        # grades below the threshold keep their gain: the values of threshold 1
        (
            False,
            (3 / log2(3) + 1 / log2(4)) / (3 + 2 / log2(3) + 1 / log2(4)),
            (3 / log2(3) + 1 / log2(4) + 2 / log2(6)) / (3 + 2 / log2(3) + 1 / log2(4)),
        ),
        # d4 (grade 1 < 2) gives no gain: gains along the ranking 0, 3, 0, 0, 2; ideal 3, 2
        (
            True,
            (3 / log2(3)) / (3 + 2 / log2(3)),
            (3 / log2(3) + 2 / log2(6)) / (3 + 2 / log2(3)),
        ),
    ],
)
def test_threshold_gains_at_threshold_2(threshold_gains, expected_at_3, expected_at_5):
    ndcg = _curve(_graded(2, gain="linear", threshold_gains=threshold_gains), "ndcg")
    assert ndcg[2] == pytest.approx(expected_at_3, abs=1e-12)
    assert ndcg[4] == pytest.approx(expected_at_5, abs=1e-12)


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [
        # relevant (grade >= 1) along the ranking: 0, 1, 1, 0, 1; |R| = 3 (d1, d2, d4)
        (1, {"map": (1 / 2 + 2 / 3 + 3 / 5) / 3, "mrr": 1 / 2, "precision": 3 / 5,
             "recall": 3 / 3, "r_precision": 2 / 3, "checked_ap": 0.5889}),
        # trec_eval -l2, relevant (grade >= 2): 0, 1, 0, 0, 1; |R| = 2 (d1, d2)
        (2, {"map": (1 / 2 + 2 / 5) / 2, "mrr": 1 / 2, "precision": 2 / 5,
             "recall": 2 / 2, "r_precision": 1 / 2, "checked_ap": 0.45}),
    ],
)
def test_graded_binary_metrics_follow_the_threshold(threshold, expected):
    evaluation = _graded(threshold)
    for metric in ("map", "mrr", "precision", "recall"):
        assert _curve(evaluation, metric)[4] == pytest.approx(expected[metric], abs=1e-12)
    assert _curve(evaluation, "r_precision") == pytest.approx([expected["r_precision"]])
    assert round(_curve(evaluation, "map")[4], 4) == expected["checked_ap"]


def test_graded_mapping_turns_stars_into_grades():
    # 5 stars -> 3, 4 -> 2, 3 -> 1, lower -> 0: the graded case again, written in stars
    stars = [("u", "d1", 5), ("u", "d2", 4), ("u", "d3", 2), ("u", "d4", 3)]
    evaluation = _evaluate(
        stars, GRADED_RUN, max_cutoff=5, relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}),
        gain="linear",
    )
    assert round(_curve(evaluation, "ndcg")[2], 4) == 0.5025
    assert round(_curve(evaluation, "map")[4], 4) == 0.5889


# ----- many relevant items: |R| = 8, hits at ranks 1 and 3 ---------------------------------

@pytest.mark.parametrize(
    ("denominator", "expected", "checked_at_5"),
    [
        # rel = 1, 0, 1, 0, 0; precision sums at K = 1..5: 1, 1, 1 + 2/3, 1 + 2/3, 1 + 2/3
        ("relevant", [1 / 8, 1 / 8, (1 + 2 / 3) / 8, (1 + 2 / 3) / 8, (1 + 2 / 3) / 8], 0.2083),
        ("min_k_relevant", [1 / 1, 1 / 2, (1 + 2 / 3) / 3, (1 + 2 / 3) / 4, (1 + 2 / 3) / 5],
         0.3333),
        ("hits", [1 / 1, 1 / 1, (1 + 2 / 3) / 2, (1 + 2 / 3) / 2, (1 + 2 / 3) / 2], 0.8333),
    ],
)
def test_ap_denominator(denominator, expected, checked_at_5):
    truth = [("u", f"r{number}", 1) for number in range(8)]
    run = _ranked("u", ["r0", "x1", "r1", "x2", "x3"])
    ap = _curve(_evaluate(truth, run, max_cutoff=5, ap_denominator=denominator), "map")
    assert ap == pytest.approx(expected, abs=1e-12)
    assert round(ap[4], 4) == checked_at_5


@pytest.mark.parametrize("denominator", ["relevant", "min_k_relevant", "hits"])
def test_ap_without_hits_is_zero(denominator):
    # rel = 0, 0: nothing to average, and no division by zero hits
    evaluation = _evaluate(
        [("u", "a", 1)], _ranked("u", ["x", "y"]), max_cutoff=2, ap_denominator=denominator
    )
    assert _curve(evaluation, "map") == [0.0, 0.0]


# ----- users without relevant items, users missing from the model ---------------------------

# u1: rel = 1, 0 (liked a; list a, b). u2: a single grade-0 judgment, no relevant item.
EMPTY_USER_TRUTH = [("u1", "a", 1), ("u2", "c", 0)]
EMPTY_USER_RUN = _ranked("u1", ["a", "b"]) + _ranked("u2", ["c", "d"])
U1_AT_2 = {"precision": 1 / 2, "recall": 1.0, "hit_rate": 1.0, "mrr": 1.0, "map": 1.0,
           "ndcg": 1.0}


@pytest.mark.parametrize("metric", list(U1_AT_2))
@pytest.mark.parametrize(
    ("empty_users", "users", "u1_share"),
    [
        ("skip", 1, 1.0),  # the mean is u1's value
        ("zero", 2, 1 / 2),  # u2 counts with value 0: (u1 + 0) / 2
    ],
)
def test_empty_users(metric, empty_users, users, u1_share):
    evaluation = _evaluate(
        EMPTY_USER_TRUTH, EMPTY_USER_RUN, max_cutoff=2, empty_users=empty_users
    )
    assert _curve(evaluation, metric)[1] == pytest.approx(U1_AT_2[metric] * u1_share)
    counts = evaluation.user_counts().iloc[0]
    assert (counts["users"], counts["no_relevant_items"]) == (users, 1)
    assert list(evaluation.per_user("model", metric).index) == ["u1", "u2"][:users]


@pytest.mark.parametrize("metric", list(U1_AT_2))
@pytest.mark.parametrize(
    ("missing_users", "users", "u1_share"),
    [
        ("zero", 2, 1 / 2),  # u2 gets an empty list scoring 0
        ("skip", 1, 1.0),  # u2 is left out of the model's means
    ],
)
def test_missing_users(metric, missing_users, users, u1_share):
    # u1: rel = 1, 0 (liked a; list a, b); u2 liked c but the model has no list for u2
    evaluation = _evaluate(
        [("u1", "a", 1), ("u2", "c", 1)],
        _ranked("u1", ["a", "b"]),
        max_cutoff=2,
        missing_users=missing_users,
    )
    assert _curve(evaluation, metric)[1] == pytest.approx(U1_AT_2[metric] * u1_share)
    counts = evaluation.user_counts().iloc[0]
    assert (counts["users"], counts["missing_from_model"]) == (users, 1)


def test_users_listed_in_another_order_than_the_ground_truth():
    # The output lists u2 before u1, each user's rows already sorted by score; u3 is missing.
    # u1: x, a -> rel = 0, 1 (|R| = 2); u2: c -> rel = 1 (|R| = 1); u3: no list.
    truth = [("u1", "a", 1), ("u1", "b", 1), ("u2", "c", 1), ("u3", "d", 1)]
    run = _ranked("u2", ["c"]) + _ranked("u1", ["x", "a"])
    evaluation = _evaluate(truth, run, max_cutoff=3)
    assert evaluation.per_user_at("model", "mrr", 3).to_dict() == {
        "u1": 1 / 2, "u2": 1.0, "u3": 0.0
    }
    assert evaluation.per_user_at("model", "recall", 3).to_dict() == {
        "u1": 1 / 2, "u2": 1 / 1, "u3": 0.0
    }


# ----- ties in score ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("ties", "reciprocal_rank"),
    [
        ("item_desc", 1 / 4),  # top, z, y, x: rel = 0, 0, 0, 1 (trec_eval)
        ("item_asc", 1 / 2),  # top, x, y, z: rel = 0, 1, 0, 0
        ("input", 1 / 3),  # top, y, x, z (the input order): rel = 0, 0, 1, 0
    ],
)
def test_ties(ties, reciprocal_rank):
    # "top" scores 2.0; x, y, z all score 1.0 and are given in the order y, x, z; x is relevant
    run = [("u", "y", 1.0), ("u", "x", 1.0), ("u", "top", 2.0), ("u", "z", 1.0)]
    evaluation = _evaluate([("u", "x", 1)], run, max_cutoff=4, ties=ties)
    assert _curve(evaluation, "mrr")[3] == reciprocal_rank


@pytest.mark.parametrize(
    ("ties", "reciprocal_rank"),
    [
        ("item_desc", 1 / 2),  # "9" > "10" as text: 9, 10, like trec_eval's strcmp
        ("item_asc", 1.0),  # 10, 9
    ],
)
def test_ties_compare_item_ids_as_text(ties, reciprocal_rank):
    evaluation = _evaluate([(1, 10, 1)], [(1, 9, 0.5), (1, 10, 0.5)], max_cutoff=2, ties=ties)
    assert _curve(evaluation, "mrr")[1] == reciprocal_rank


# ----- bad data -----------------------------------------------------------------------------

def test_duplicate_item_in_a_model_output_is_an_error_naming_the_rows():
    truth = pd.DataFrame({"user": ["u"], "item": ["a"], "rating": [1]})
    run = pd.DataFrame({"user": ["u", "u", "u"], "item": ["a", "b", "a"], "score": [3, 2, 1]})
    with pytest.raises(DataError, match=r"user 'u' has item 'a' more than once \(rows 1 and 3\)"):
        evaluate(truth, {"model": run}, max_cutoff=3)


def test_conflicting_ground_truth_ratings_are_an_error_naming_the_rows():
    truth = pd.DataFrame({"user": ["u", "u", "u"], "item": ["a", "b", "a"], "rating": [1, 0, 2]})
    run = pd.DataFrame({"user": ["u"], "item": ["a"], "score": [1.0]})
    with pytest.raises(DataError, match=r"user 'u' and item 'a' are rated 1 \(row 1\) and 2 "
                                        r"\(row 3\)"):
        evaluate(truth, {"model": run}, max_cutoff=1)


def test_identical_ground_truth_rows_are_dropped():
    # a is listed twice with the same rating: |R| = 1, not 2
    truth = pd.DataFrame({"user": ["u", "u", "u"], "item": ["a", "b", "a"], "rating": [1, 0, 1]})
    run = pd.DataFrame({"user": ["u"], "item": ["a"], "score": [1.0]})
    evaluation = evaluate(truth, {"model": run}, max_cutoff=1)
    assert evaluation.truth.duplicates_dropped == 1
    assert _curve(evaluation, "recall") == [1.0]
    assert _curve(evaluation, "ndcg") == [1.0]
