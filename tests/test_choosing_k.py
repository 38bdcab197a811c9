"""Choosing K: crossovers, Kendall's tau, significance at every K, tie bounds.

Crossovers and tau on hand-built curves; the all-K tests against the single-K path of
rankmetrics.stats at each K; the tie bounds against every order of the ties of small lists.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from helpers import random_data
from scipy.stats import ttest_rel

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.choosing_k.order import (
    crossovers,
    curves,
    leaderboard,
    order_agreement,
    orders_differ,
    same_order_span,
    sampled_cutoffs,
    spans,
)
from rankmetrics.choosing_k.report import (
    agreement_sentence,
    k_report,
    order_sentence,
    relevance_sentence,
    relevance_variants,
    significance_sentence,
    ties_sentence,
)
from rankmetrics.choosing_k.significance import (
    cutoff_table,
    difference_band,
    discriminative_power,
    leaders_over_k,
    significance_over_k,
    winner_map,
)
from rankmetrics.choosing_k.ties import tie_bounds, tie_flags, tie_groups
from rankmetrics.metrics import MAIN_METRICS
from rankmetrics.stats import compare_models, paired_comparison


def table(**columns: list[float]) -> pd.DataFrame:
    length = len(next(iter(columns.values())))
    return pd.DataFrame(columns, index=pd.Index(range(1, length + 1), name="cutoff"))


# ----- crossovers, leaderboard, tau --------------------------------------------------------


def test_a_clean_crossing_is_found_at_the_first_cutoff_of_the_new_order():
    # a - b: +0.3, +0.1, -0.1, -0.3
    found = crossovers(table(a=[0.5, 0.4, 0.3, 0.2], b=[0.2, 0.3, 0.4, 0.5]))
    assert found[["cutoff", "ahead", "behind"]].values.tolist() == [[3, "b", "a"]]
    assert found["tied_from"].isna().all()
    assert found["value_ahead"].tolist() == [0.4]


def test_models_that_touch_without_crossing_do_not_cross():
    # a - b: +0.2, 0, 0, +0.1: they meet at K = 2-3 and a stays ahead
    assert crossovers(table(a=[0.5, 0.4, 0.4, 0.5], b=[0.3, 0.4, 0.4, 0.4])).empty


def test_a_crossing_through_a_tie_names_where_the_tie_began():
    # a - b: +0.1, 0, 0, -0.1, -0.2
    found = crossovers(table(a=[0.5, 0.4, 0.4, 0.3, 0.2], b=[0.4, 0.4, 0.4, 0.4, 0.4]))
    assert found[["cutoff", "ahead", "behind", "tied_from"]].values.tolist() == [[4, "b", "a", 2]]


def test_a_tie_at_the_first_cutoff_is_no_crossing_and_rounding_is_no_tie_breaker():
    # equal at K = 1, then a ahead; 1e-15 apart counts as equal
    assert crossovers(table(a=[0.4, 0.5], b=[0.4 + 1e-15, 0.3])).empty


def test_every_pair_and_several_crossings():
    # c starts last and passes b at K = 2 and a at K = 3; a passes b back at K = 4
    curves_table = table(a=[0.9, 0.8, 0.5, 0.6], b=[0.5, 0.4, 0.7, 0.5], c=[0.1, 0.6, 0.9, 0.9])
    found = crossovers(curves_table)
    assert found[["cutoff", "ahead", "behind"]].values.tolist() == [
        [2, "c", "b"], [3, "b", "a"], [3, "c", "a"], [4, "a", "b"]]


def test_leaderboard_shares_places_between_equal_means():
    board = leaderboard(table(a=[0.5, 0.4], b=[0.2, 0.4], c=[0.3, 0.1]))
    assert board.values.tolist() == [
        [1, 1, "a", 0.5], [1, 2, "c", 0.3], [1, 3, "b", 0.2],
        [2, 1, "a", 0.4], [2, 1, "b", 0.4], [2, 3, "c", 0.1]]


def test_kendall_tau_by_hand_with_a_tie():
    # K=1 order a > b > c (3, 2, 1); K=2: a=1, b=3, c=2 -> pairs (a,b) discordant,
    # (a,c) discordant, (b,c) concordant: tau = (1 - 2) / 3.
    # K=3: a=b=2, c=1 -> (a,b) tied in K=3 only, (a,c) (b,c) concordant:
    # tau-b = 2 / sqrt(3 * 2)
    curves_table = table(a=[3.0, 1.0, 2.0], b=[2.0, 3.0, 2.0], c=[1.0, 2.0, 1.0])
    tau = order_agreement(curves_table, 1)["kendall_tau"].to_numpy()
    np.testing.assert_allclose(tau, [1.0, -1 / 3, 2 / np.sqrt(6)], rtol=1e-12)


def test_kendall_tau_is_undefined_when_every_model_ties():
    tau = order_agreement(table(a=[1.0, 2.0], b=[1.0, 1.0]), 2)["kendall_tau"]
    assert np.isnan(tau.iloc[0]) and tau.iloc[1] == 1.0


def test_same_order_span_and_orders_differ():
    first = table(a=[0.1, 0.5, 0.5, 0.5, 0.1], b=[0.2, 0.4, 0.3, 0.2, 0.3])
    assert same_order_span(first, 3) == (2, 4)
    second = table(a=[0.1, 0.5, 0.2, 0.5, 0.3], b=[0.2, 0.4, 0.3, 0.2, 0.3])
    assert orders_differ(first, second) == [3, 5]  # at K = 5 a tie against an order


def test_spans_and_sampled_cutoffs():
    assert spans([4, 5, 6, 10]) == [(4, 6), (10, 10)]
    assert sampled_cutoffs(200, keep=[7]) == [1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 75, 100,
                                              150, 200]


def test_curves_of_an_evaluation_are_its_means(movie_evaluation):
    table_ndcg = curves(movie_evaluation, "ndcg")
    assert list(table_ndcg.columns) == movie_evaluation.models
    np.testing.assert_array_equal(table_ndcg["random"].to_numpy(),
                                  movie_evaluation.curve("random", "ndcg"))


# ----- significance at every K ----------------------------------------------------------


@pytest.fixture(scope="module")
def three_models():
    truth, run = random_data(4, n_users=60)
    _, other = random_data(5, n_users=60)
    _, third = random_data(6, n_users=60)
    runs = {"m1": run, "m2": other, "m3": third}
    ev = evaluate(truth, runs, relevance=RelevanceMapping.identity(1), max_cutoff=12)
    return ev


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
@pytest.mark.parametrize("metric", ["precision", "ndcg", "mrr"])
def test_all_k_p_values_equal_the_single_k_path(three_models, test, metric):
    ev = three_models
    over_k = significance_over_k(ev, metric, test=test, correction="holm")
    for cutoff in range(1, ev.max_cutoff + 1):
        single = paired_comparison(ev.paired(metric, cutoff), test=test, correction="holm",
                                   n_bootstrap=10)
        at = over_k.loc[over_k["cutoff"] == cutoff].reset_index(drop=True)
        assert at[["model_a", "model_b"]].values.tolist() == \
            single[["model_a", "model_b"]].values.tolist()
        np.testing.assert_allclose(at["p_value"], single["p_value"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(at["p_corrected"], single["p_corrected"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(at["statistic"], single["statistic"], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(at["difference"], single["difference"], rtol=0, atol=1e-12)
        assert at["significant"].tolist() == single["significant"].tolist()


def test_randomization_over_k_shares_flips_and_equals_the_single_k_result(three_models):
    ev = three_models
    cutoffs = [1, 3, 10]
    over_k = significance_over_k(ev, "ndcg", cutoffs=cutoffs, test="randomization",
                          n_permutations=300, seed=7)
    for cutoff in cutoffs:
        single = paired_comparison(ev.paired("ndcg", cutoff), test="randomization",
                                   n_permutations=300, n_bootstrap=10, seed=7)
        at = over_k.loc[over_k["cutoff"] == cutoff].reset_index(drop=True)
        assert at["p_value"].tolist() == single["p_value"].tolist()
        assert at["p_corrected"].tolist() == single["p_corrected"].tolist()


def test_identical_models_give_p_one_at_every_k():
    truth, run = random_data(2, n_users=20)
    ev = evaluate(truth, {"a": run, "b": run}, max_cutoff=5)
    for test in ("t", "wilcoxon", "randomization"):
        over_k = significance_over_k(ev, "recall", test=test, n_permutations=50)
        assert (over_k["p_value"] == 1.0).all() and (over_k["statistic"] == 0.0).all()


def test_discriminative_power_and_leaders_follow_the_tests(three_models):
    tests = significance_over_k(three_models, "ndcg", test="t")
    power = discriminative_power(tests)
    assert len(power) == 12 and (power["pairs"] == 3).all()
    counted = tests.groupby("cutoff")["significant"].sum().to_numpy()
    np.testing.assert_array_equal(power["significant_pairs"], counted)


def test_leaders_over_k_agree_with_model_comparison_leaders_at_every_k(movies):
    truth, runs = movies
    mapping = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=3)
    ev = evaluate(truth, runs, relevance=mapping, max_cutoff=50)
    leaders = leaders_over_k(significance_over_k(ev, "ndcg", test="t"))
    # top_heavy alone at small K, tied with personalized at large K
    assert leaders["significantly_best"].any() and not leaders["significantly_best"].all()
    for cutoff in range(1, 51):
        expected = compare_models(ev.paired("ndcg", cutoff), test="t", n_bootstrap=10).leaders()
        row = leaders.loc[leaders["cutoff"] == cutoff].iloc[0]
        assert (row["leaders"], row["significantly_best"]) == expected, cutoff


def test_a_model_far_ahead_is_significantly_best():
    rng = np.random.default_rng(1)
    users = [f"u{i}" for i in range(80)]
    truth = pd.DataFrame({"user": np.repeat(users, 3), "item": ["x", "y", "z"] * 80,
                          "rating": 1})
    good = pd.DataFrame({"user": np.repeat(users, 3), "item": ["x", "y", "z"] * 80,
                         "score": [3.0, 2.0, 1.0] * 80})
    noise = pd.DataFrame({"user": np.repeat(users, 3), "item": ["p", "q", "x"] * 80,
                          "score": np.tile([3.0, 2.0, 1.0], 80)})
    drop = (noise["item"] == "x") & (rng.random(240) < 0.5)
    weak = noise.assign(item=np.where(drop, "r", noise["item"]))
    ev = evaluate(truth, {"good": good, "noise": noise, "weak": weak}, max_cutoff=3)
    found = winner_map({"all": ev}, {"all": "precision"}, test="t")
    assert found["best"].tolist() == ["good"] * 3
    assert found["significantly_best"].all()
    marked = cutoff_table(ev, ["precision", "recall"], [1, 3], test="t")
    assert set(marked.loc[marked["significantly_best"], "model"]) == {"good"}
    assert marked["significantly_best"].sum() == 4


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_difference_band_is_the_paired_t_interval_at_every_k(three_models, confidence):
    band = difference_band(three_models, "map", "m1", "m3", confidence=confidence)
    assert band["cutoff"].tolist() == list(range(1, 13))
    for cutoff in range(1, 13):
        values = three_models.paired("map", cutoff)
        interval = ttest_rel(values["m3"], values["m1"]).confidence_interval(confidence)
        at = band.loc[band["cutoff"] == cutoff].iloc[0]
        assert at["ci_low"] == pytest.approx(interval.low, abs=1e-12)
        assert at["ci_high"] == pytest.approx(interval.high, abs=1e-12)
        assert at["difference"] == pytest.approx((values["m3"] - values["m1"]).mean(),
                                                 abs=1e-12)


# ----- ties -----------------------------------------------------------------------------


def _every_tie_order(truth: pd.DataFrame, run: pd.DataFrame, conventions: Conventions,
                     relevance: RelevanceMapping, max_cutoff: int) -> np.ndarray:
    """(orders x metrics x cutoffs) values of one user's list under every order of its ties.

    Each order is the list of a user of its own (with the same ground truth), all evaluated
    at once: a user's values depend on that user's list only, and a one-user mean is the
    user's value."""
    run = run.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)
    groups = [list(group.index) for _, group in run.groupby("score", sort=False)]
    rows = np.array([[row for order in orders for row in order] for orders
                     in itertools.product(*(itertools.permutations(g) for g in groups))])
    users = [f"order{number}" for number in range(len(rows))]
    lists = pd.DataFrame({"user": np.repeat(users, rows.shape[1]),
                          "item": run["item"].to_numpy()[rows.ravel()],
                          "score": np.tile(np.arange(rows.shape[1], 0, -1, dtype=float),
                                           len(rows))})
    truths = pd.DataFrame({"user": np.repeat(users, len(truth)),
                           "item": np.tile(truth["item"].to_numpy(), len(rows)),
                           "rating": np.tile(truth["rating"].to_numpy(), len(rows))})
    ev = evaluate(truths, {"m": lists}, relevance=relevance, conventions=conventions,
                  max_cutoff=max_cutoff)
    per_metric = [ev.per_user("m", metric).loc[users].to_numpy() for metric in MAIN_METRICS]
    return np.stack(per_metric, axis=1)


@pytest.mark.parametrize("preset", ["default", "trec_eval"])
@pytest.mark.parametrize("seed", range(8))
def test_tie_bounds_equal_the_extremes_over_every_order_of_ties(preset, seed):
    rng = np.random.default_rng(seed)
    length = 7
    items = [f"i{n}" for n in range(length)]
    scores = rng.choice([3.0, 2.0, 1.0], size=length, p=[0.3, 0.4, 0.3])
    truth_items = rng.choice(items + ["z1", "z2"], size=5, replace=False)
    truth = pd.DataFrame({"user": "u", "item": truth_items,
                          "rating": rng.integers(0, 4, size=5)})
    truth.loc[0, "rating"] = 2  # at least one relevant item
    run = pd.DataFrame({"user": "u", "item": items, "score": scores})
    conventions = Conventions.preset(preset)
    relevance = RelevanceMapping.identity(2)
    ev = evaluate(truth, {"m": run}, relevance=relevance, conventions=conventions,
                  max_cutoff=length + 1)
    bounds = tie_bounds(ev, {"m": run}, MAIN_METRICS)
    every = _every_tie_order(truth, run, conventions, relevance, length + 1)
    for position, metric in enumerate(MAIN_METRICS):
        at = bounds.loc[bounds["metric"] == metric]
        np.testing.assert_allclose(at["pessimistic"], every[:, position].min(axis=0),
                                   atol=1e-12, err_msg=metric)
        np.testing.assert_allclose(at["optimistic"], every[:, position].max(axis=0),
                                   atol=1e-12, err_msg=metric)
        assert (at["pessimistic"] <= at["active"] + 1e-12).all()
        assert (at["active"] <= at["optimistic"] + 1e-12).all()


@pytest.mark.parametrize("levels", [2000, 3])
def test_tie_groups_are_the_runs_of_equal_scores_within_each_users_list(levels):
    # 2000 score levels: few ties; 3: most rows tie (the groups are then found from the
    # boundaries between runs, not from the tied rows)
    rng = np.random.default_rng(levels)
    users = np.repeat([f"u{n}" for n in range(30)], 12)
    run = pd.DataFrame({"user": users, "item": [f"i{n}" for n in range(len(users))],
                        "score": rng.integers(0, levels, len(users)).astype(float)})
    truth = pd.DataFrame({"user": run["user"].unique(), "item": "i0", "rating": 1})
    ev = evaluate(truth, {"m": run}, max_cutoff=12)
    groups = tie_groups(run, ev)
    first, stop = groups.ranks()
    found = sorted(zip(groups.user.tolist(), first.tolist(), stop.tolist(), strict=True))
    expected = []
    position = {user: n for n, user in enumerate(ev.truth.user_ids.to_pylist())}
    for user, rows in run.groupby("user"):
        ranked = rows["score"].sort_values(ascending=False, kind="stable").to_numpy()
        start = 0
        for stop_at in range(1, len(ranked) + 1):
            if stop_at == len(ranked) or ranked[stop_at] != ranked[start]:
                if stop_at - start >= 2:
                    expected.append((position[user], start, stop_at))
                start = stop_at
    assert found == sorted(expected)
    assert len(expected) > (60 if levels == 3 else 0)


def test_tied_share_counts_users_whose_top_k_set_depends_on_ties():
    # u1: scores 3, 2, 2, 2, 1 -> the tie at ranks 2-4 straddles K = 2 and 3
    # u2: scores 3, 3, 1 -> straddles K = 1; u3: no ties
    truth = pd.DataFrame({"user": ["u1", "u2", "u3"], "item": ["a", "a", "a"], "rating": 1})
    run = pd.DataFrame({
        "user": ["u1"] * 5 + ["u2"] * 3 + ["u3"] * 2,
        "item": ["a", "b", "c", "d", "e", "a", "b", "c", "a", "b"],
        "score": [3, 2, 2, 2, 1, 3, 3, 1, 2, 1],
    })
    ev = evaluate(truth, {"m": run}, max_cutoff=5)
    share = tie_bounds(ev, {"m": run}, ["precision"])["tied_share"].tolist()
    assert share == [1 / 3, 1 / 3, 1 / 3, 0.0, 0.0]


def test_without_ties_the_range_is_empty():
    truth, run = random_data(3, tie_free=True)
    ev = evaluate(truth, {"m": run}, max_cutoff=10)
    bounds = tie_bounds(ev, {"m": run}, MAIN_METRICS)
    assert (bounds["pessimistic"] == bounds["active"]).all()
    assert (bounds["optimistic"] == bounds["active"]).all()
    assert (bounds["tied_share"] == 0).all()


def test_tie_bounds_on_random_lists_hold_the_active_value():
    truth, run = random_data(8, n_users=40)
    _, other = random_data(9, n_users=40)
    runs = {"a": run, "b": other}
    for ties in ("item_desc", "item_asc", "input"):
        ev = evaluate(truth, runs, conventions=Conventions(ties=ties), max_cutoff=15)
        bounds = tie_bounds(ev, runs, MAIN_METRICS)
        assert (bounds["pessimistic"] <= bounds["active"] + 1e-12).all()
        assert (bounds["active"] <= bounds["optimistic"] + 1e-12).all()
        assert (bounds["tied_share"] > 0).any()


def test_tie_flags_compare_the_range_with_the_gap_to_the_nearest_model():
    bounds = pd.DataFrame({
        "model": ["a", "b", "c"], "metric": "ndcg", "cutoff": 5,
        "pessimistic": [0.40, 0.30, 0.10], "active": [0.45, 0.35, 0.10],
        "optimistic": [0.50, 0.36, 0.10], "tied_share": [0.1, 0.1, 0.0],
    })
    flags = tie_flags(bounds, "ndcg", 5)
    # gaps: a 0.10 (to b), b 0.10, c 0.25; ranges 0.10, 0.06, 0
    assert flags["model"].tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(flags["gap"], [0.10, 0.10, 0.25])
    assert flags["flagged"].tolist() == [False, False, False]
    wider = bounds.assign(optimistic=[0.56, 0.36, 0.10])
    assert tie_flags(wider, "ndcg", 5)["flagged"].tolist() == [True, False, False]


# ----- the summary in words ----------------------------------------------------------------


def test_order_sentence_same_order_everywhere_and_with_crossings():
    steady = table(a=[0.5, 0.6, 0.7], b=[0.1, 0.2, 0.3], c=[0.0, 0.1, 0.2])
    assert order_sentence(steady, "ndcg", 2).text == (
        "On NDCG, the order of the three models is the same at every K from 1 to 3.")
    crossing = table(a=[0.5, 0.4, 0.3, 0.2, 0.1], b=[0.2, 0.3, 0.35, 0.4, 0.5])
    assert order_sentence(crossing, "recall", 1).text == (
        "On Recall, the order of the two models at K = 1 holds from K = 1 to 2; b passes a "
        "at K = 3.")
    assert order_sentence(table(a=[0.1, 0.2]), "ndcg", 1).text == (
        "With one model there is no order to change.")


def test_agreement_sentence():
    ndcg = table(a=[0.5, 0.6, 0.7], b=[0.1, 0.2, 0.3])
    precision = table(a=[0.5, 0.1, 0.1], b=[0.1, 0.2, 0.3])  # b ahead from K = 2
    mrr = table(a=[0.1, 0.6, 0.7], b=[0.2, 0.2, 0.3])  # b ahead at K = 1 only
    recall = ndcg * 2
    assert agreement_sentence({"ndcg": ndcg, "recall": recall}, "ndcg").text == (
        "Every metric (Recall) orders the models as NDCG does, at every K.")
    text = agreement_sentence({"ndcg": ndcg, "precision": precision, "mrr": mrr,
                               "recall": recall}, "ndcg").text
    assert text == ("Compared with NDCG, Precision orders the models differently from K = 2, "
                    "MRR at K = 1; Recall agrees at every K.")


def _power(rows: list[tuple[int, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["cutoff", "pairs", "significant_pairs"])


def test_significance_sentences():
    how = "(paired t-test, Holm correction)"
    assert significance_sentence(_power([(1, 6, 6), (2, 6, 6)]), "ndcg", "t", "holm",
                                 1).text == (
        f"On NDCG, every pair of models differs significantly at every K tested {how}.")
    assert significance_sentence(_power([(1, 6, 4), (2, 6, 6), (3, 6, 6)]), "ndcg", "t",
                                 "holm", 3).text == (
        f"On NDCG, every pair differs significantly at K = 2-3 {how}; at K = 1, 2 of 6 pairs "
        "do not.")
    assert significance_sentence(_power([(1, 6, 5), (2, 6, 6)]), "map", "t", "holm",
                                 1).text == (
        f"On MAP, every pair differs significantly at K = 2 {how}; at K = 1, 1 of 6 pairs "
        "does not.")
    assert significance_sentence(_power([(1, 3, 1), (2, 3, 2), (3, 3, 2)]), "recall", "t",
                                 "holm", 3).text == (
        f"On Recall, no K separates every pair of models {how}; the most, 2 of 3 pairs, "
        "differ at K = 2-3.")
    assert significance_sentence(_power([(1, 1, 0), (2, 1, 1), (3, 1, 1)]), "ndcg",
                                 "wilcoxon", "bh", 3).text == (
        "On NDCG, the two models differ significantly at K = 2-3 (Wilcoxon signed-rank test, "
        "Benjamini-Hochberg correction); at K = 1 they do not.")
    # cutoffs tested with gaps (a saved evaluation's): no "5-20" claiming the K between
    saved = _power([(1, 1, 0), (3, 1, 0), (5, 1, 1), (10, 1, 1), (20, 1, 1), (50, 1, 0)])
    assert significance_sentence(saved, "ndcg", "t", "holm", 10).text == (
        f"On NDCG, the two models differ significantly at K = 5, 10 and 20 {how}; at "
        "K = 1, 3 and 50 they do not.")


def test_relevance_sentences():
    same = pd.DataFrame({"row": ["rating >= 4", "rating >= 5"], "cutoff": [10, 10],
                         "best": ["a", "a"], "significantly_best": [True, False]})
    assert relevance_sentence(same, "ndcg", 10).text == (
        "a is best on NDCG at K = 10 under every relevance mapping tried (rating >= 4; "
        "rating >= 5), significantly so under 1 of 2.")
    split = same.assign(best=["a", "b"], cutoff=[5, 5])
    assert relevance_sentence(split, "ndcg", 10).text == (
        "The best model on NDCG at K = 5 depends on the relevance mapping: a under "
        "rating >= 4; b under rating >= 5.")


def test_ties_sentences():
    bounds = pd.DataFrame({
        "model": ["a", "b"], "metric": "ndcg", "cutoff": 5,
        "pessimistic": [0.40, 0.30], "active": [0.45, 0.35], "optimistic": [0.46, 0.36],
        "tied_share": [0.25, 0.0],
    })
    assert ties_sentence(bounds, "ndcg", 5).text == (
        "Ties change no conclusion at K = 5: every model's NDCG@5 moves less between tie "
        "orders than its gap to the nearest model (25.0% of users at most have tied items "
        "across the cutoff).")
    wide = bounds.assign(pessimistic=[0.30, 0.30])
    assert ties_sentence(wide, "ndcg", 5).text == (
        "Ties could change the order at K = 5: a's NDCG@5 lies between 0.3000 and 0.4600 "
        "depending on the order of tied scores, more than its gap to the nearest model "
        "(0.1000).")
    assert ties_sentence(bounds.assign(tied_share=0.0), "ndcg", 5).text == (
        "No list has tied scores across a cutoff, so the tie rule changes nothing.")


def test_relevance_variants_move_the_threshold_around_the_current_one():
    stars = np.array([1.0, 2, 3, 4, 5, np.nan])
    graded = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2)
    variants = relevance_variants(graded, stars)
    assert list(variants) == ["grade >= 1", "grade >= 2", "grade >= 3"]
    assert variants["grade >= 3"] == RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=3)
    assert list(relevance_variants(RelevanceMapping.binary(4), stars, most=2)) == [
        "rating >= 3", "rating >= 4"]


def test_k_report_on_the_movies_demo(movies, tmp_path):
    truth, runs = movies
    mapping = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2)
    ev = evaluate(truth, runs, relevance=mapping, max_cutoff=20)
    report = k_report(ev, metric="ndcg", cutoff=10, runs=runs)
    assert [s.kind for s in report.summary] == ["order", "metrics", "significance",
                                                "relevance", "ties"]
    written = report.write_tables(tmp_path)
    assert {path.name for path in written} >= {"summary.csv", "crossovers.csv",
                                               "tie_bounds.csv", "cutoff_table.csv"}
    read = pd.read_csv(tmp_path / "discriminative_power.csv")
    assert read["cutoff"].tolist() == list(range(1, 21))


# ----- the command line --------------------------------------------------------------------


def test_k_report_command_prints_the_summary_and_writes_the_tables(tmp_path, capsys):
    from helpers import MOVIES

    from rankmetrics.cli import main

    runs = [f"--run={MOVIES / name}.parquet" for name in ("popularity", "personalized")]
    code = main(["k-report", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--output-dir", str(tmp_path), "--metric", "recall", "--max-cutoff", "20",
                 "--cutoff", "5", "--binary", "4", "--thresholds", "3,4,5"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split("]")[0] for line in out] == [
        "[order", "[metrics", "[significance", "[relevance", "[ties"]
    winners = pd.read_csv(tmp_path / "winners_by_relevance.csv")
    assert winners["row"].unique().tolist() == ["rating >= 3", "rating >= 4", "rating >= 5"]
    assert pd.read_csv(tmp_path / "curves.csv")["cutoff"].tolist() == list(range(1, 21))


def test_k_report_defaults_fit_a_small_largest_k(tmp_path, capsys):
    # --max-cutoff 8 alone: the reported K (10 by default) and the table's cutoffs (1, 5, 10)
    # become those up to 8, and no error names an option that was not typed
    from helpers import MOVIES

    from rankmetrics.cli import main

    runs = [f"--run={MOVIES / name}.parquet" for name in ("popularity", "personalized")]
    code = main(["k-report", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--output-dir", str(tmp_path), "--max-cutoff", "8", "--binary", "4"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    table = pd.read_csv(tmp_path / "cutoff_table.csv")
    assert sorted(table["cutoff"].unique()) == [1, 5]
    assert "at K = 8" in captured.out
    assert main(["k-report", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--output-dir", str(tmp_path), "--max-cutoff", "8", "--cutoffs", "1,9"]) == 1
    assert "--cutoffs" in capsys.readouterr().err  # a cutoff typed past the largest K


def test_k_report_command_on_a_saved_evaluation(tmp_path, capsys):
    from helpers import MOVIES

    from rankmetrics.cli import main

    runs = [f"--run={MOVIES / name}.parquet" for name in ("popularity", "personalized")]
    files = ["--truth", str(MOVIES / "ground_truth.csv"), *runs]
    assert main(["evaluate", *files, "--binary", "4", "--max-cutoff", "20",
                 "--save", str(tmp_path / "saved.zip")]) == 0
    capsys.readouterr()
    code = main(["k-report", "--bundle", str(tmp_path / "saved.zip"), "--output-dir",
                 str(tmp_path / "out"), "--metric", "recall", "--cutoff", "5",
                 "--thresholds", "3,4,5"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split(": ")[0] for line in out[2:]] == [
        "[significance] At the saved cutoffs 1, 3, 5, 10, 20",
        "[relevance] On the 1,000 sampled users", "[ties] On the 1,000 sampled users"]
    curves = pd.read_csv(tmp_path / "out" / "curves.csv")
    assert curves["cutoff"].tolist() == list(range(1, 21))
    assert sorted(pd.read_csv(tmp_path / "out" / "pairs_over_k.csv")["cutoff"].unique()) == [
        1, 3, 5, 10, 20]
    winners = pd.read_csv(tmp_path / "out" / "winners_by_relevance.csv")
    assert winners["row"].unique().tolist() == ["rating >= 3", "rating >= 4", "rating >= 5"]
    # the same curves as the report of the files at the same settings
    assert main(["k-report", *files, "--binary", "4", "--max-cutoff", "20", "--cutoff", "5",
                 "--metric", "recall", "--output-dir", str(tmp_path / "files")]) == 0
    pd.testing.assert_frame_equal(curves, pd.read_csv(tmp_path / "files" / "curves.csv"),
                                  check_exact=False, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("given", "expected"), [
    (["--threshold", "3"], "leave out --threshold (or evaluate"),
    (["--truth", "t.csv", "--max-cutoff", "10", "--gain", "linear"],
     "leave out --truth, --max-cutoff, --gain (or evaluate"),
    ([], "--bundle missing.zip: "),
])
def test_k_report_command_on_a_saved_evaluation_refuses_what_it_keeps(tmp_path, capsys, given,
                                                                     expected):
    from rankmetrics.cli import main

    code = main(["k-report", "--bundle", "missing.zip", "--output-dir", str(tmp_path),
                 *given])
    error = capsys.readouterr().err.strip()
    assert code == 1 and expected in error and error.count("\n") == 0


def test_k_report_command_needs_files_or_a_saved_evaluation(tmp_path, capsys):
    from rankmetrics.cli import main

    assert main(["k-report", "--output-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == (
        "rankmetrics: error: k-report needs --truth FILE and at least one --run FILE, or "
        "--bundle PATH (a saved evaluation).")


def test_k_report_command_refuses_a_bad_cutoff_in_one_line(tmp_path, capsys):
    from helpers import MOVIES

    from rankmetrics.cli import main

    code = main(["k-report", "--truth", str(MOVIES / "ground_truth.csv"),
                 f"--run={MOVIES / 'random.parquet'}", "--output-dir", str(tmp_path),
                 "--cutoff", "80", "--max-cutoff", "50"])
    assert code == 1
    assert capsys.readouterr().err.strip() == (
        "rankmetrics: error: --cutoff: a cutoff must be a whole number in the range [1, 50]. "
        "Got '80'.")


@pytest.mark.parametrize("metric", ["precision", "ndcg"])
def test_wilcoxon_over_k_equals_scipy_on_many_tied_users_and_on_few_users(movies, metric):
    truth, runs = movies
    big = evaluate(truth, runs, max_cutoff=15)  # 2,000 users: the normal approximation
    small_truth, small_run = random_data(10, n_users=30)  # under 50 users: scipy's own
    _, other = random_data(11, n_users=30)
    small = evaluate(small_truth, {"a": small_run, "b": other}, max_cutoff=15)
    for ev in (big, small):
        over_k = significance_over_k(ev, metric, test="wilcoxon")
        for cutoff in (1, 4, 15):
            single = paired_comparison(ev.paired(metric, cutoff), test="wilcoxon",
                                       n_bootstrap=10)
            at = over_k.loc[over_k["cutoff"] == cutoff].reset_index(drop=True)
            np.testing.assert_allclose(at["p_value"], single["p_value"], rtol=0, atol=1e-12)
            np.testing.assert_allclose(at["statistic"], single["statistic"], rtol=1e-12)
