"""The NDCG breakdown of one user, and the per-user helpers (worst served, largest
disagreement, surprise me, spread).

The breakdown must reproduce the hand-worked numbers of the textbook examples and equal
``evaluate(...).per_user_at(model, "ndcg", K)`` for every user, under every convention."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmetrics import Conventions, GroundTruth, RankedRun, RelevanceMapping, evaluate
from rankmetrics.explain import (
    compare_conventions,
    explain_metric,
    explain_ndcg,
    metric_variants,
    slipped_discount,
)
from rankmetrics.io import read_run, read_truth
from rankmetrics.users import (
    distribution_summary,
    largest_disagreement,
    surprise_user,
    worst_users,
)
from tests.helpers import MOVIE_MODELS, TEXTBOOK, random_data

RETRIEVED = Conventions.preset("retrieved_ideal")
LINEAR = Conventions.preset("trec_eval")


def log2(x: float) -> float:
    return math.log2(x)


@pytest.fixture(scope="module")
def graded():
    return (read_truth(TEXTBOOK / "graded_ground_truth.csv").table,
            read_run(TEXTBOOK / "graded_ranking.csv").table)


# ----- the textbook examples ------------------------------------------------------------


def test_textbook_ranked_list_row_by_row(textbook):
    truth, runs = textbook
    b = explain_ndcg(truth, runs["recommended"], "user", cutoff=5)
    # rel = 1, 0, 1, 0, 0 (A and C liked; B, D, E have no ground truth)
    assert b.ranked["item"].tolist() == list("ABCDE")
    assert b.ranked["rank"].tolist() == [1, 2, 3, 4, 5]
    assert b.ranked["rating"].isna().tolist() == [False, True, False, True, True]
    assert b.ranked["grade"].tolist() == [1, 0, 1, 0, 0]
    assert b.ranked["gain"].tolist() == [1, 0, 1, 0, 0]
    expected_discounts = [1 / log2(i + 1) for i in range(1, 6)]
    assert b.ranked["discount"].tolist() == pytest.approx(expected_discounts)
    assert b.ranked["contribution"].tolist() == pytest.approx([1, 0, 1 / log2(4), 0, 0])
    assert b.ranked["running_dcg"].tolist() == pytest.approx([1, 1, 1.5, 1.5, 1.5])
    assert b.dcg == pytest.approx(1 + 1 / log2(4))  # 1.5


def test_textbook_ndcg_ground_truth_ideal(textbook):
    truth, runs = textbook
    b = explain_ndcg(truth, runs["recommended"], "user", cutoff=5)
    idcg = sum(1 / log2(i + 1) for i in range(1, 6))  # five liked items: 2.9485
    assert b.idcg == pytest.approx(idcg)
    assert round(b.idcg, 4) == 2.9485
    assert round(b.ndcg, 4) == 0.5087
    assert b.ideal["item"].tolist() == list("ACXYZ")
    assert b.n_relevant == 5


def test_textbook_ndcg_retrieved_ideal(textbook):
    truth, runs = textbook
    b = explain_ndcg(truth, runs["recommended"], "user", cutoff=5, conventions=RETRIEVED)
    assert b.idcg == pytest.approx(1 + 1 / log2(3))  # the two hits re-sorted: 1.6309
    assert round(b.ndcg, 4) == 0.9197  # the tutorials' "0.92"
    assert b.ideal["item"].tolist() == ["A", "C"]


def test_textbook_c_at_position_5(textbook):
    truth, runs = textbook
    b = explain_ndcg(truth, runs["c_at_position_5"], "user", cutoff=5, conventions=RETRIEVED)
    # rel = 1, 0, 0, 0, 1: DCG = 1 + 1/log2(6)
    assert b.ranked["item"].tolist() == list("ABEDC")
    assert b.dcg == pytest.approx(1 + 1 / log2(6))
    assert round(b.dcg, 4) == 1.3869
    assert round(b.ndcg, 4) == 0.8503
    full = explain_ndcg(truth, runs["c_at_position_5"], "user", cutoff=5)
    assert round(full.ndcg, 4) == 0.4704


def test_the_seed_figure_088_is_the_log2_5_slip(textbook):
    truth, runs = textbook
    b = explain_ndcg(truth, runs["c_at_position_5"], "user", cutoff=5, conventions=RETRIEVED)
    slip = slipped_discount(b, 5)
    assert slip.correct_discount == pytest.approx(1 / log2(6))
    assert slip.slipped_discount == pytest.approx(1 / log2(5))  # the tutorials' 0.43
    assert round(slip.dcg, 2) == 1.43
    assert slip.ndcg == pytest.approx((1 + 1 / log2(5)) / (1 + 1 / log2(3)))
    assert round(slip.ndcg, 2) == 0.88


def test_slip_rank_must_be_within_the_list(textbook):
    truth, runs = textbook
    b = explain_ndcg(truth, runs["recommended"], "user", cutoff=5)
    for rank in (1, 6):
        with pytest.raises(ValueError, match="rank"):
            slipped_discount(b, rank)


@pytest.mark.parametrize(("conventions", "cutoff", "expected"), [
    (LINEAR, 3, 0.5025), (LINEAR, 5, 0.6650),
    (Conventions.preset("ranx_burges"), 3, 0.5234), (Conventions.preset("ranx_burges"), 5, 0.6470),
])
def test_graded_example(graded, conventions, cutoff, expected):
    truth, run = graded
    # ranking d3, d1, d4, d5, d2 with grades 0, 3, 1, -, 2
    b = explain_ndcg(truth, run, "q1", cutoff=cutoff, conventions=conventions)
    assert round(b.ndcg, 4) == expected
    assert b.ranked["item"].tolist() == ["d3", "d1", "d4", "d5", "d2"][:cutoff]


def test_graded_threshold_does_not_change_ndcg_unless_asked(graded):
    truth, run = graded
    at_two = RelevanceMapping.identity(2)
    b = explain_ndcg(truth, run, "q1", cutoff=3, relevance=at_two, conventions=LINEAR)
    assert round(b.ndcg, 4) == 0.5025
    cut = explain_ndcg(truth, run, "q1", cutoff=3, relevance=at_two,
                       conventions=replace(LINEAR, threshold_gains=True))
    # gains = 0, 3, 0 (d4's grade 1 is below the threshold); ideal 3, 2
    assert cut.ndcg == pytest.approx((3 / log2(3)) / (3 + 2 / log2(3)))


def test_latex_writes_out_the_users_numbers(textbook):
    truth, runs = textbook
    lines = explain_ndcg(truth, runs["recommended"], "user", cutoff=5).latex()
    text = "\n".join(lines)
    assert r"\frac{1}{\log_2 2}" in lines[1] and r"\frac{0}{\log_2 3}" in lines[1]
    assert "1.5000" in text and "2.9485" in text and "0.5087" in text
    assert r"2^{g_i} - 1" in lines[0]
    linear = explain_ndcg(truth, runs["recommended"], "user", cutoff=5, conventions=LINEAR)
    assert r"\frac{g_i}" in linear.latex()[0]


def test_latex_of_long_lists_keeps_only_the_terms_with_gain(movies):
    truth, runs = movies
    b = explain_ndcg(truth, runs["personalized"], "u0001", cutoff=50)
    dcg_line = b.latex()[1]
    assert dcg_line.count(r"\frac") == int((b.ranked["gain"] > 0).sum())
    assert "ranks without gain add 0" in dcg_line


def test_user_without_a_list_and_user_unknown(textbook):
    truth, runs = textbook
    empty = explain_ndcg(truth, runs["recommended"].iloc[0:0], "user", cutoff=5)
    assert empty.list_length == 0 and empty.dcg == 0 and empty.ndcg == 0
    assert len(empty.ranked) == 0 and round(empty.idcg, 4) == 2.9485
    stranger = explain_ndcg(truth, runs["recommended"], "nobody", cutoff=5)
    assert stranger.idcg == 0 and stranger.ndcg == 0
    assert "IDCG is 0" in stranger.latex()[3]


@pytest.mark.parametrize("cutoff", [0, -1, 2.5, True])
def test_cutoff_must_be_a_positive_integer(textbook, cutoff):
    truth, runs = textbook
    with pytest.raises(ValueError, match="cutoff"):
        explain_ndcg(truth, runs["recommended"], "user", cutoff=cutoff)


def test_compare_conventions_marks_the_active_one(textbook):
    truth, runs = textbook
    table = compare_conventions(truth, runs["recommended"], "user", cutoff=5,
                                conventions=RETRIEVED)
    assert len(table) == 4 and table["active"].sum() == 1
    active = table[table["active"]].iloc[0]
    assert (active["gain"], active["ideal"]) == ("exponential", "retrieved")
    by_ideal = table.groupby("ideal")["ndcg"].first().round(4).to_dict()
    assert by_ideal == {"ground_truth": 0.5087, "retrieved": 0.9197}


# ----- the breakdown equals the evaluation, user by user --------------------------------


CONVENTION_VARIANTS = [
    Conventions(),
    Conventions.preset("trec_eval"),
    Conventions.preset("retrieved_ideal"),
    Conventions(gain="linear", ideal="retrieved", threshold_gains=True),
    Conventions(ties="item_asc"),
    Conventions(ties="input", missing_users="skip"),
    Conventions.preset("torchmetrics"),
    Conventions.preset("evidently"),
    Conventions.preset("lenskit"),
    Conventions(discount="clipped", ideal="retrieved"),
]
MAPPINGS = [
    RelevanceMapping.binary(4),
    RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),
    RelevanceMapping.identity(3),
]


@pytest.fixture(scope="module")
def movies_by_user(movies):
    truth, runs = movies
    return ({user: rows for user, rows in truth.groupby("user", sort=False)},
            {model: {user: rows for user, rows in run.groupby("user", sort=False)}
             for model, run in runs.items()})


@pytest.mark.parametrize("conventions", CONVENTION_VARIANTS, ids=lambda c: c.describe()[:40])
@pytest.mark.parametrize("relevance", MAPPINGS, ids=lambda m: m.kind)
def test_breakdown_equals_evaluate_on_the_demo(movies, movies_by_user, conventions, relevance):
    """12 random users per model and cutoff (plus users without a list), 3 cutoffs, 4 models,
    6 convention sets, 3 relevance mappings: 2,600 users in all."""
    truth, runs = movies
    truth_by_user, runs_by_user = movies_by_user
    evaluation = evaluate(GroundTruth.from_frame(truth), runs, relevance=relevance,
                          conventions=conventions, max_cutoff=20)
    rng = np.random.default_rng(7)
    for model in MOVIE_MODELS:
        missing = [u for u in truth_by_user if u not in runs_by_user[model]][:3]
        for cutoff in (1, 5, 20):
            values = evaluation.per_user_at(model, "ndcg", cutoff)
            users = [*rng.choice(values.index.to_numpy(), size=12, replace=False),
                     *[u for u in missing if u in values.index]]
            for user in users:
                rows = runs_by_user[model].get(user, runs[model].iloc[0:0])
                b = explain_ndcg(truth_by_user[user], rows, user, cutoff=cutoff,
                                 relevance=relevance, conventions=conventions)
                assert b.ndcg == pytest.approx(values[user], abs=1e-12), (model, cutoff, user)


def tied_data(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores with one decimal, so most lists hold ties; rows in a shuffled order."""
    rng = np.random.default_rng(seed)
    rows, judged = [], []
    for u in range(60):
        items = rng.choice(40, size=15, replace=False)
        for item in items:
            rows.append((f"u{u}", f"i{item:02d}", round(float(rng.random()), 1)))
        for item in rng.choice(40, size=8, replace=False):
            judged.append((f"u{u}", f"i{item:02d}", int(rng.integers(0, 4))))
    run = pd.DataFrame(rows, columns=["user", "item", "score"]).sample(frac=1, random_state=seed)
    truth = pd.DataFrame(judged, columns=["user", "item", "rating"])
    return truth, run.reset_index(drop=True)


@pytest.mark.parametrize("ties", ["item_desc", "item_asc", "input"])
def test_ties_are_broken_as_ranked_run_does(ties):
    truth, run = tied_data(3)
    conventions = Conventions(ties=ties, gain="linear")
    prepared = GroundTruth.from_frame(truth)
    evaluation = evaluate(prepared, {"m": RankedRun.from_frame(run, prepared, ties=ties)},
                          relevance=RelevanceMapping.identity(1), conventions=conventions,
                          max_cutoff=10)
    values = evaluation.per_user_at("m", "ndcg", 10)
    for user in values.index:
        b = explain_ndcg(truth, run, user, cutoff=10, conventions=conventions)
        assert b.ndcg == pytest.approx(values[user], abs=1e-12)
    some_user = run[run["user"] == "u0"]
    order = explain_ndcg(truth, run, "u0", cutoff=15, conventions=conventions).ranked
    top_score = some_user["score"].max()
    tied = some_user[some_user["score"] == top_score]["item"].tolist()
    expected = {"item_desc": sorted(tied, reverse=True), "item_asc": sorted(tied),
                "input": tied}[ties]
    assert order["item"].tolist()[:len(tied)] == expected


# ----- users: worst served, disagreement, surprise, spread ------------------------------


def test_worst_users_are_the_lowest_values(movie_evaluation):
    table = worst_users(movie_evaluation, "personalized", "ndcg", 10, count=15)
    values = movie_evaluation.per_user_at("personalized", "ndcg", 10)
    assert len(table) == 15
    assert list(table.columns) == ["user", "relevant", "personalized", "popularity",
                                   "top_heavy", "random"]
    assert table["personalized"].is_monotonic_increasing
    assert table["personalized"].max() <= values.sort_values().iloc[15]
    zeros = table[table["personalized"] == 0]
    best_other = zeros[["popularity", "top_heavy", "random"]].max(axis=1)
    assert best_other.is_monotonic_decreasing
    assert (table["relevant"] >= 1).all()


def test_worst_users_count_must_be_positive(movie_evaluation):
    with pytest.raises(ValueError, match="count"):
        worst_users(movie_evaluation, "random", "ndcg", 10, count=0)


def test_largest_disagreement_is_the_max_gap(movie_evaluation):
    found = largest_disagreement(movie_evaluation, "personalized", "top_heavy", "ndcg", 10)
    paired = movie_evaluation.paired("ndcg", 10)
    gaps = (paired["top_heavy"] - paired["personalized"]).abs()
    assert abs(found.difference) == pytest.approx(gaps.max())
    assert found.value_a == pytest.approx(paired.loc[found.user, "personalized"])
    assert found.value_b == pytest.approx(paired.loc[found.user, "top_heavy"])
    with pytest.raises(ValueError, match="two different"):
        largest_disagreement(movie_evaluation, "random", "random", "ndcg", 10)


def test_surprise_user_is_seeded_and_counted(movie_evaluation):
    first = surprise_user(movie_evaluation, "top_heavy", seed=1)
    assert first == surprise_user(movie_evaluation, "top_heavy", seed=1)
    picks = {surprise_user(movie_evaluation, "top_heavy", seed=s) for s in range(20)}
    assert len(picks) > 10
    counted = set(movie_evaluation.truth.users[movie_evaluation.included("top_heavy")])
    assert picks <= counted


def test_distribution_summary_matches_numpy(movie_evaluation):
    table = distribution_summary(movie_evaluation, "hit_rate", 5).set_index("model")
    for model in MOVIE_MODELS:
        values = movie_evaluation.per_user_at(model, "hit_rate", 5).to_numpy()
        row = table.loc[model]
        assert row["users"] == len(values) == 1940
        assert row["mean"] == pytest.approx(values.mean())
        assert row["median"] == pytest.approx(np.median(values))
        assert row["share_zero"] == pytest.approx(np.mean(values == 0))


# ----- the other metrics written out ------------------------------------------------------


def test_textbook_arithmetic_of_every_binary_metric(textbook):
    truth, runs = textbook
    # rel = 1, 0, 1, 0, 0; |R| = 5 (A, C, X, Y, Z)
    run = runs["recommended"]
    p = explain_metric(truth, run, "user", "precision", cutoff=5)
    assert (p.numerator, p.denominator, p.value) == (2, 5, 0.4)
    assert p.latex()[1] == r"\mathrm{P@5} = \frac{2}{5} = 0.4000"
    r = explain_metric(truth, run, "user", "recall", cutoff=5)
    assert (r.numerator, r.denominator) == (2, 5) and r.denominator_words() == (
        "|R| = 5 relevant items")
    ap = explain_metric(truth, run, "user", "map", cutoff=5)
    assert ap.hit_ranks == (1, 3)
    assert ap.numerator == pytest.approx(1 / 1 + 2 / 3) and ap.denominator == 5
    assert ap.value == pytest.approx((1 + 2 / 3) / 5)  # 0.3333
    assert ap.latex()[1] == (r"\mathrm{AP@5} = \frac{\frac{1}{1} + \frac{2}{3}}{5} = "
                             r"\frac{1.6667}{5} = 0.3333")
    assert ap.ranked["precision"].tolist() == pytest.approx([1, 1 / 2, 2 / 3, 2 / 4, 2 / 5])
    moved = explain_metric(truth, runs["c_at_position_5"], "user", "mrr", cutoff=1)
    assert moved.value == 1 and moved.latex()[1] == r"\mathrm{RR@1} = \frac{1}{1} = 1.0000"


def test_graded_example_arithmetic_and_threshold(graded):
    truth, run = graded
    # ranking d3 (0), d1 (3), d4 (1), d5 (-), d2 (2); relevant: grade >= 1
    rr = explain_metric(truth, run, "q1", "mrr", cutoff=5)
    assert (rr.numerator, rr.denominator, rr.value) == (1, 2, 0.5)
    ap = explain_metric(truth, run, "q1", "map", cutoff=5)
    assert ap.value == pytest.approx((1 / 2 + 2 / 3 + 3 / 5) / 3)  # 0.5889
    two = RelevanceMapping.identity(2)
    ap2 = explain_metric(truth, run, "q1", "map", cutoff=5, relevance=two)
    assert ap2.value == pytest.approx((1 / 2 + 2 / 5) / 2)  # 0.45
    variants = metric_variants(truth, run, "q1", "precision", cutoff=5)
    assert variants["choice"].tolist() == ["grade ≥ 1", "grade ≥ 2", "grade ≥ 3"]
    assert variants["value"].tolist() == pytest.approx([3 / 5, 2 / 5, 1 / 5])
    assert variants["active"].tolist() == [True, False, False]
    hr = explain_metric(truth, run, "q1", "hit_rate", cutoff=1)
    assert hr.value == 0 and "no relevant item in the top 1" in hr.latex()[1]


def test_ap_denominator_is_named_with_the_users_numbers():
    # |R| = 8, hits at ranks 1 and 3, K = 5 (the conventions document's third example)
    truth = pd.DataFrame({"user": "u", "item": [f"r{i}" for i in range(8)], "rating": 1})
    run = pd.DataFrame({"user": "u", "item": ["r0", "x1", "r1", "x2", "x3"],
                        "score": [5.0, 4, 3, 2, 1]})
    values = {}
    for denominator in ("relevant", "min_k_relevant", "hits"):
        ap = explain_metric(truth, run, "u", "map", cutoff=5,
                            conventions=Conventions(ap_denominator=denominator))
        values[denominator] = (round(ap.value, 4), ap.denominator_words())
    assert values == {
        "relevant": (0.2083, "|R| = 8 relevant items (trec_eval)"),
        "min_k_relevant": (0.3333, "min(K, |R|) = min(5, 8) = 5"),
        "hits": (0.8333, "the 2 hits in the top 5"),
    }


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), cutoff=st.integers(1, 12),
       denominator=st.sampled_from(["relevant", "min_k_relevant", "hits",
                                    "min_shown_relevant"]),
       threshold=st.sampled_from([1, 2]), counted=st.sampled_from(["ground_truth", "in_list"]),
       precision=st.sampled_from(["cutoff", "list_length"]),
       recall=st.sampled_from(["relevant", "min_k_relevant"]))
def test_written_arithmetic_equals_evaluate(seed, cutoff, denominator, threshold, counted,
                                            precision, recall):
    truth, run = random_data(seed, n_users=4)
    conventions = Conventions(ap_denominator=denominator, relevant_items=counted,
                              precision_denominator=precision, recall_denominator=recall)
    relevance = RelevanceMapping.identity(threshold)
    for user in truth["user"].unique():
        for metric in ("precision", "recall", "hit_rate", "mrr", "map"):
            shown = explain_metric(truth, run, user, metric, cutoff=cutoff,
                                   relevance=relevance, conventions=conventions)
            fraction = shown.numerator / shown.denominator if shown.denominator else 0.0
            assert shown.value == pytest.approx(fraction, abs=1e-12), (user, metric)


def test_both_gain_columns_in_the_ndcg_rows(graded):
    truth, run = graded
    b = explain_ndcg(truth, run, "q1", cutoff=5, conventions=LINEAR)
    # grades 0, 3, 1, 0, 2: linear g, exponential 2^g - 1
    assert b.ranked["gain_linear"].tolist() == [0, 3, 1, 0, 2]
    assert b.ranked["gain_exponential"].tolist() == [0, 7, 1, 0, 3]
    assert b.ranked["gain"].tolist() == b.ranked["gain_linear"].tolist()
    assert b.ideal["gain_exponential"].tolist() == [7, 3, 1]


def test_the_list_only_conventions_are_written_with_the_users_numbers():
    # 3 relevant items, 1 of them in the 2-item list; K = 5
    truth = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "rating": 1})
    run = pd.DataFrame({"user": "u", "item": ["a", "x"], "score": [2.0, 1.0]})
    conventions = Conventions(relevant_items="in_list", precision_denominator="list_length")
    recall = explain_metric(truth, run, "u", "recall", cutoff=5, conventions=conventions)
    assert (recall.value, recall.denominator_words()) == (
        1.0, "|R| = 1 relevant items in the model's list")
    precision = explain_metric(truth, run, "u", "precision", cutoff=5, conventions=conventions)
    assert precision.value == 0.5
    assert precision.denominator_words() == "min(K, list length) = min(5, 2) = 2"
    assert r"\min(K, |\text{list}|)" in precision.latex()[0]
    assert precision.latex()[1] == r"\mathrm{P@5} = \frac{1}{2} = 0.5000"
    ndcg = explain_ndcg(truth, run, "u", cutoff=5, conventions=conventions)
    assert (ndcg.ndcg, ndcg.n_relevant, len(ndcg.ideal)) == (1.0, 1, 1)


def test_lenskit_conventions_are_written_with_the_users_numbers():
    # 3 relevant items; the list holds a (rank 1), x, c (rank 3); K = 2 and 5
    truth = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "rating": 1})
    run = pd.DataFrame({"user": "u", "item": ["a", "x", "c"], "score": [3.0, 2.0, 1.0]})
    lenskit = Conventions.preset("lenskit")
    recall = explain_metric(truth, run, "u", "recall", cutoff=2, conventions=lenskit)
    assert (recall.value, recall.denominator_words()) == (0.5, "min(K, |R|) = min(2, 3) = 2")
    assert r"\min(K, |R|)" in recall.latex()[0]
    ap = explain_metric(truth, run, "u", "map", cutoff=5, conventions=lenskit)
    assert ap.denominator_words() == "min(|R|, items in the top K) = min(3, 3) = 3"
    assert ap.value == pytest.approx((1 + 2 / 3) / 3, abs=1e-12)
    ndcg = explain_ndcg(truth, run, "u", cutoff=5, conventions=lenskit)
    assert ndcg.ranked["discount"].tolist() == pytest.approx([1.0, 1.0, 1 / np.log2(3)])
    assert ndcg.ndcg == pytest.approx((1 + 1 / np.log2(3)) / (2 + 1 / np.log2(3)), abs=1e-12)
    lines = ndcg.latex()
    assert r"\log_2 \max(i, 2)" in lines[0] and r"\frac{1}{\log_2 2}" in lines[1]
