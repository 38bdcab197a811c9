"""Each preset against the library it reproduces, on random data, to 1e-9.

- ``trec_eval``: pytrec_eval-terrier (P, recall, map_cut, ndcg_cut, recip_rank, map, Rprec,
  success), including its tie order and relevance levels; ir_measures (P, R, AP, nDCG, RR,
  Rprec, Success, per user and their means); and ranx's ndcg / map / mrr / precision / recall
  / hit_rate / r-precision;
- ``ranx_burges``: ranx's ndcg_burges;
- ``retrieved_ideal``: scikit-learn's ndcg_score and dcg_score;
- ``ap_denominator="min_k_relevant"``: Microsoft Recommenders' map_at_k.

The random data has graded ratings (0-3 judgments or 1-5 stars), ties in scores (rounded to
one decimal) unless a reference breaks ties unpredictably, users missing from the model,
users without any relevant item, users unknown to the ground truth, lists of 0 to 30 items and
cutoffs beyond every list.
"""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from ir_measures import AP, RR, P, R, Rprec, Success, nDCG
from ranx import evaluate as ranx_evaluate
from recommenders.evaluation.python_evaluation import map_at_k
from sklearn.metrics import dcg_score, ndcg_score

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

MAX_CUTOFF = 40  # beyond the longest list (30)
STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})


def _grades_frame(truth: pd.DataFrame, relevance: RelevanceMapping) -> pd.DataFrame:
    """The ground truth with ratings mapped to integer grades (what the references take)."""
    grades = relevance.grades(truth["rating"].to_numpy()).astype(int)
    return truth.assign(rating=grades)


def _nested(table: pd.DataFrame, value: str, users) -> dict[str, dict[str, float]]:
    """{user: {item: value}} in the given user order."""
    groups = dict(tuple(table.groupby("user", sort=False)))
    return {
        user: dict(zip(groups[user]["item"], groups[user][value].tolist(), strict=True))
        for user in users
        if user in groups
    }


def _ours(evaluation, columns: dict[str, tuple[str, int | None]]) -> pd.DataFrame:
    """Our per-user values (counted users) as users x reference measure names."""
    per_user = {metric: evaluation.per_user("model", metric) for metric, _ in columns.values()}
    return pd.DataFrame({
        name: per_user[metric][cutoff] for name, (metric, cutoff) in columns.items()
    })


def _assert_close(ours: pd.DataFrame, reference: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        ours.loc[reference.index, reference.columns],
        reference,
        check_exact=False,
        rtol=0,
        atol=1e-9,
        check_names=False,
    )


# ----- trec_eval preset vs pytrec_eval ----------------------------------------------------

def _pytrec_measures(cutoffs, uncut: int) -> tuple[set[str], dict[str, tuple[str, int | None]]]:
    """pytrec_eval's measure requests and, per measure name it returns, our metric and cutoff
    (the uncut map and recip_rank at ``uncut``, at least the longest list)."""
    listed = ",".join(map(str, cutoffs))
    cut = {"P": "precision", "recall": "recall", "map_cut": "map", "ndcg_cut": "ndcg",
           "success": "hit_rate"}
    requests = {f"{measure}.{listed}" for measure in cut} | {"recip_rank", "map", "Rprec"}
    columns = {
        f"{measure}_{cutoff}": (metric, cutoff)
        for measure, metric in cut.items()
        for cutoff in cutoffs
    } | {"recip_rank": ("mrr", uncut), "map": ("map", uncut), "Rprec": ("r_precision", None)}
    return requests, columns


def _pytrec_eval(
    truth: pd.DataFrame, run: pd.DataFrame, relevance: RelevanceMapping, level: int, requests
) -> pd.DataFrame:
    """pytrec_eval's values (users x measure names) for the users in both truth and run."""
    graded = _grades_frame(truth, relevance)
    evaluator = pytrec_eval.RelevanceEvaluator(
        _nested(graded, "rating", graded["user"].unique()), requests, relevance_level=level
    )
    values = evaluator.evaluate(_nested(run, "score", run["user"].unique()))
    return pd.DataFrame(values).T


def _check_against_pytrec_eval(
    truth, run, relevance, level, *, cutoffs=range(1, MAX_CUTOFF + 1), uncut=MAX_CUTOFF,
    **options,
):
    # Only trec_eval's ground-truth threshold differs between the two: the same integer
    # grades go to pytrec_eval, whose relevance_level is our RelevanceMapping threshold.
    evaluation = evaluate(
        truth,
        {"model": run},
        relevance=relevance,
        conventions=Conventions.preset("trec_eval", **options),
        max_cutoff=uncut,
    )
    requests, columns = _pytrec_measures(cutoffs, uncut)
    reference = _pytrec_eval(truth, run, relevance, level, requests)[list(columns)]
    ours = _ours(evaluation, columns)
    # pytrec_eval returns only users in both the run and the ground truth
    in_run = set(run["user"])
    assert set(reference.index) == {user for user in ours.index if user in in_run}
    _assert_close(ours, reference)
    # means: trec_eval -c counts every ground-truth user, with 0 for users missing from the run
    means = evaluation.means({metric for metric, _ in columns.values()})["model"]
    reference_means = reference.reindex(ours.index, fill_value=0.0).mean()
    for name, (metric, cutoff) in columns.items():
        value = means[metric][0 if cutoff is None else cutoff - 1]
        assert value == pytest.approx(reference_means[name], rel=0, abs=1e-9), name
    return evaluation, reference


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    ("ratings", "relevance", "level"),
    [
        ("grades", RelevanceMapping.identity(1), 1),
        ("grades", RelevanceMapping.identity(2), 2),
        ("grades", RelevanceMapping.identity(3), 3),
        ("stars", STARS, 1),
        ("stars", RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2), 2),
    ],
    ids=["grades-l1", "grades-l2", "grades-l3", "stars-l1", "stars-l2"],
)
def test_trec_eval_preset_matches_pytrec_eval(seed, ratings, relevance, level):
    truth, run = random_data(seed, ratings=ratings)
    evaluation, reference = _check_against_pytrec_eval(truth, run, relevance, level)
    # the data exercises what it claims to: missing users, users without relevant items
    counts = evaluation.user_counts().iloc[0]
    assert counts["missing_from_model"] > 0
    assert counts["no_relevant_items"] > 0
    assert counts["unknown_to_ground_truth"] == 2


@pytest.mark.parametrize("seed", range(3))
def test_pytrec_eval_breaks_ties_by_item_id_descending(seed):
    truth, run = random_data(100 + seed)
    run = run.assign(score=run["score"].round(0))  # only two scores: ties everywhere
    relevance = RelevanceMapping.identity(1)
    _, reference = _check_against_pytrec_eval(truth, run, relevance, 1, ties="item_desc")
    ascending = evaluate(
        truth, {"model": run}, conventions=Conventions.preset("trec_eval", ties="item_asc"),
        max_cutoff=MAX_CUTOFF,
    )
    ours = _ours(ascending, _pytrec_measures(range(1, MAX_CUTOFF + 1), MAX_CUTOFF)[1])
    ours = ours.loc[reference.index, reference.columns]
    assert (ours - reference).abs().to_numpy().max() > 1e-3


def test_pytrec_eval_ties_scores_equal_in_float32_where_rankmetrics_does_not():
    # docs/conventions.md's one known difference: 1 + 1e-9 and 1 are one float32, so
    # pytrec_eval ties them and puts the larger id, b, first; rankmetrics ranks a first
    truth = pd.DataFrame({"user": ["u"], "item": ["a"], "rating": [1]})
    run = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "score": [1.0 + 1e-9, 1.0]})
    evaluator = pytrec_eval.RelevanceEvaluator({"u": {"a": 1}}, {"recip_rank"})
    assert evaluator.evaluate({"u": {"a": 1.0 + 1e-9, "b": 1.0}})["u"]["recip_rank"] == 0.5
    evaluation = evaluate(truth, {"model": run}, conventions=Conventions.preset("trec_eval"),
                          max_cutoff=2)
    assert evaluation.per_user_at("model", "mrr", 2)["u"] == 1.0


@pytest.mark.parametrize("level", [1, 2, 3])
def test_comment_fixtures_match_pytrec_eval(trec_qrels, trec_run, level):
    # 31 graded topics, a run of 301 topics x 100 passages (270 topics unknown to the qrels)
    truth, run = trec_qrels("qrels.comment.test"), trec_run("results.comment.test")
    _, reference = _check_against_pytrec_eval(
        truth, run, RelevanceMapping.identity(level), level,
        cutoffs=(1, 2, 3, 5, 10, 20, 50, 99, 100, 200), uncut=200,
    )
    assert len(reference) == 31


# ----- trec_eval preset vs ir_measures ------------------------------------------------------
#
# ir_measures 0.4.3 computes these measures with pytrec_eval and gives every qrels user missing
# from the run the measure's default, 0 (``Evaluator.iter_calc``): its means are trec_eval -c's.

IR_MEASURES_CUTOFFS = (1, 3, 5, 10, 30, 40)


def _ir_measures_requests(level: int) -> dict[object, tuple[str, int | None]]:
    """ir_measures measures at relevance level ``level`` and our metric and cutoff for each."""
    cut = {P: "precision", R: "recall", AP: "map", nDCG: "ndcg", Success: "hit_rate"}
    requests: dict[object, tuple[str, int | None]] = {
        # nDCG takes no level: like trec_eval's ndcg, it gains every positive grade
        (measure if measure is nDCG else measure(rel=level)) @ cutoff: (metric, cutoff)
        for measure, metric in cut.items()
        for cutoff in IR_MEASURES_CUTOFFS
    }
    requests |= {AP(rel=level): ("map", MAX_CUTOFF), RR(rel=level): ("mrr", MAX_CUTOFF),
                 nDCG: ("ndcg", MAX_CUTOFF), Rprec(rel=level): ("r_precision", None)}
    return requests


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(
    ("ratings", "relevance", "level"),
    [
        ("grades", RelevanceMapping.identity(1), 1),
        ("grades", RelevanceMapping.identity(2), 2),
        ("stars", STARS, 1),
    ],
    ids=["grades-l1", "grades-l2", "stars-l1"],
)
def test_trec_eval_preset_matches_ir_measures(seed, ratings, relevance, level):
    truth, run = random_data(700 + seed, ratings=ratings)
    evaluation = evaluate(truth, {"model": run}, relevance=relevance,
                          conventions=Conventions.preset("trec_eval"), max_cutoff=MAX_CUTOFF)
    requests = _ir_measures_requests(level)
    qrels = _grades_frame(truth, relevance).rename(
        columns={"user": "query_id", "item": "doc_id", "rating": "relevance"})
    scored = run.rename(columns={"user": "query_id", "item": "doc_id"})
    values: dict[str, dict[str, float]] = {}
    for value in ir_measures.iter_calc(list(requests), qrels, scored):
        values.setdefault(str(value.measure), {})[value.query_id] = value.value
    reference = pd.DataFrame(values)
    columns = {str(measure): target for measure, target in requests.items()}
    ours = _ours(evaluation, columns)
    # every ground-truth user, those missing from the run included; none unknown to it
    assert set(reference.index) == set(ours.index) == set(truth["user"])
    assert evaluation.user_counts().iloc[0]["missing_from_model"] > 0
    _assert_close(ours, reference[list(columns)])
    aggregate = ir_measures.calc_aggregate(list(requests), qrels, scored)
    means = evaluation.means({metric for metric, _ in requests.values()})["model"]
    for measure, (metric, cutoff) in requests.items():
        value = means[metric][0 if cutoff is None else cutoff - 1]
        assert value == pytest.approx(aggregate[measure], rel=0, abs=1e-9), str(measure)


# ----- ranx ---------------------------------------------------------------------------------
#
# What ranx 0.3.21 does (ranx/meta/evaluate.py, ranx/metrics/*.py):
# - Users whose judgments hold no relevant item (no grade >= the level) stay in the qrels and
#   get 0 for every metric (`if len(qrels) == 0: return 0.0` after `clean_qrels`; NDCG divides
#   by an IDCG of 0 replaced by 1), and they count in the mean: empty_users="zero".
# - Users missing from the run: `evaluate` refuses qrels and run with different users
#   (AssertionError) unless `make_comparable=True`, which gives each missing user an empty list
#   (every metric 0, counted in the mean) and drops run users unknown to the qrels:
#   missing_users="zero". Building ranx's Qrels/Run objects for make_comparable costs many
#   seconds of numba compilation, so the tests pass plain dicts and add the zeros themselves.
# - Plain dicts are matched by position, not by key: qrels and run must list the users in the
#   same order (`python_dict_to_typed_list` iterates `.values()`).
# - Ties are sorted with an unstable argsort: the tests use tie-free scores.
# - "-lN" drops the gain of grades below N as well (`clean_qrels` before DCG and IDCG):
#   ranx "ndcg@k-l2" is our identity(2) mapping with threshold_gains=True.

RANX_CUTOFFS = (1, 3, 5, 10, 30, 40)


def _ranx(truth: pd.DataFrame, run: pd.DataFrame, metrics: dict[str, tuple[str, int | None]]):
    """ranx's per-user values (users x ranx metric names) for the users in truth and run."""
    users = [user for user in truth["user"].unique() if user in set(run["user"])]
    qrels = _nested(truth, "rating", users)
    values = ranx_evaluate(qrels, _nested(run, "score", users), list(metrics), return_mean=False)
    return pd.DataFrame(values, index=pd.Index(users, name="user"))


def _check_against_ranx(truth, run, relevance, preset, metrics, **options):
    evaluation = evaluate(
        truth,
        {"model": run},
        relevance=relevance,
        conventions=Conventions.preset(preset, **options),
        max_cutoff=MAX_CUTOFF,
    )
    reference = _ranx(_grades_frame(truth, relevance), run, metrics)
    ours = _ours(evaluation, metrics)
    no_relevant = evaluation.n_relevant == 0
    assert no_relevant[evaluation.truth.users.get_indexer(reference.index)].any()
    _assert_close(ours, reference)
    # means with make_comparable: 0 for every ground-truth user missing from the run
    means = evaluation.means({metric for metric, _ in metrics.values()})["model"]
    reference_means = reference.reindex(ours.index, fill_value=0.0).mean()
    for name, (metric, cutoff) in metrics.items():
        value = means[metric][0 if cutoff is None else cutoff - 1]
        assert value == pytest.approx(reference_means[name], rel=0, abs=1e-9), name


@pytest.mark.parametrize("seed", range(3))
def test_ranx_burges_preset_matches_ranx_ndcg_burges(seed):
    truth, run = random_data(200 + seed, tie_free=True)
    metrics = {f"ndcg_burges@{cutoff}": ("ndcg", cutoff) for cutoff in RANX_CUTOFFS}
    _check_against_ranx(truth, run, RelevanceMapping.identity(1), "ranx_burges", metrics)


RANX_TREC_METRICS = {
    f"{name}@{cutoff}": (metric, cutoff)
    for name, metric in (
        ("ndcg", "ndcg"), ("map", "map"), ("mrr", "mrr"), ("precision", "precision"),
        ("recall", "recall"), ("hit_rate", "hit_rate"),
    )
    for cutoff in RANX_CUTOFFS
} | {"r-precision": ("r_precision", None)}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ratings", ["grades", "stars"])
def test_trec_eval_preset_matches_ranx(seed, ratings):
    truth, run = random_data(300 + seed, ratings=ratings, tie_free=True)
    relevance = RelevanceMapping.identity(1) if ratings == "grades" else STARS
    _check_against_ranx(truth, run, relevance, "trec_eval", RANX_TREC_METRICS)


@pytest.mark.parametrize("seed", range(2))
def test_ranx_relevance_level_is_a_threshold_on_gains_too(seed):
    truth, run = random_data(400 + seed, tie_free=True)
    metrics = {
        f"{name}@{cutoff}-l2": (metric, cutoff)
        for name, metric in (("ndcg", "ndcg"), ("map", "map"), ("precision", "precision"))
        for cutoff in RANX_CUTOFFS
    }
    _check_against_ranx(
        truth, run, RelevanceMapping.identity(2), "trec_eval", metrics, threshold_gains=True
    )


def test_ranx_refuses_users_missing_from_the_run():
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    with pytest.raises(AssertionError, match="make_comparable"):
        ranx_evaluate(qrels, {"u1": {"a": 1.0}}, ["ndcg@5", "map@5"])


# ----- retrieved_ideal preset vs scikit-learn -----------------------------------------------
#
# sklearn's ndcg_score(y_true, y_score, k) takes its ideal from the best k of the rows it is
# given. Fed a model's top-k rows of one user (a 1 x L matrix, L = min(k, list length)), that is
# the "retrieved" ideal: the model's own top-k list re-sorted. Fed a longer list, it picks the
# ideal from items below rank k as well (see the last test).

SKLEARN_CUTOFFS = (2, 3, 5, 10, 20, 40)


def _ranked_lists(run: pd.DataFrame, truth: pd.DataFrame, relevance) -> dict[str, pd.DataFrame]:
    """Each user's list sorted by score (tie-free) with the grade of every row."""
    grades = _grades_frame(truth, relevance)
    lists = run.merge(grades, on=["user", "item"], how="left").fillna({"rating": 0})
    lists = lists.sort_values(["user", "score"], ascending=[True, False])
    return dict(tuple(lists.groupby("user")))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(
    ("gain", "sklearn_gain"),
    [
        ("linear", lambda grades: grades),
        # exponential: give sklearn's linear gain the gains 2^g - 1 themselves
        ("exponential", lambda grades: 2.0 ** grades - 1),
    ],
    ids=["linear", "exponential"],
)
def test_retrieved_ideal_matches_sklearn_ndcg_score(seed, gain, sklearn_gain):
    truth, run = random_data(500 + seed, ratings="stars", tie_free=True, n_users=20)
    evaluation = evaluate(
        truth,
        {"model": run},
        relevance=STARS,
        conventions=Conventions.preset("retrieved_ideal", gain=gain),
        max_cutoff=MAX_CUTOFF,
    )
    lists = _ranked_lists(run, truth, STARS)
    compared = 0
    for cutoff in SKLEARN_CUTOFFS:
        ours = evaluation.per_user_at("model", "ndcg", cutoff)
        for user, value in ours.items():  # users with a relevant item (empty_users="skip")
            ranked = lists.get(user)
            if ranked is None or len(ranked) < 2:
                continue  # sklearn needs at least 2 rows
            top = ranked.head(cutoff)
            expected = ndcg_score(
                [sklearn_gain(top["rating"].to_numpy(float))], [top["score"]], k=cutoff
            )
            assert value == pytest.approx(expected, rel=0, abs=1e-9), (user, cutoff)
            compared += 1
    assert compared > 50


@pytest.mark.parametrize("seed", range(2))
def test_dcg_matches_sklearn_dcg_score(seed):
    truth, run = random_data(600 + seed, ratings="stars", tie_free=True, n_users=20)
    evaluation = evaluate(
        truth,
        {"model": run},
        relevance=STARS,
        conventions=Conventions.preset("retrieved_ideal", gain="linear", empty_users="zero"),
        max_cutoff=MAX_CUTOFF,
    )
    lists = _ranked_lists(run, truth, STARS)
    for cutoff in SKLEARN_CUTOFFS:
        ours = evaluation.per_user_at("model", "dcg", cutoff)
        for user, ranked in lists.items():
            if user in ours.index and len(ranked) >= 2:
                expected = dcg_score([ranked["rating"]], [ranked["score"]], k=cutoff)
                assert ours[user] == pytest.approx(expected, rel=0, abs=1e-9), (user, cutoff)


def test_sklearn_fed_a_longer_list_takes_its_ideal_from_below_the_cutoff():
    # grades along the ranking 1, 0, 2 and k = 2: the retrieved ideal re-sorts the top 2
    # (1, 0), so NDCG@2 = 1; sklearn given all three rows takes the ideal 2, 1 from them
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "c"], "rating": [1, 2]})
    run = pd.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    evaluation = evaluate(
        truth, {"model": run}, conventions=Conventions.preset("retrieved_ideal", gain="linear"),
        max_cutoff=3,
    )
    assert evaluation.per_user_at("model", "ndcg", 2)["u"] == 1.0
    assert ndcg_score([[1, 0]], [[3, 2]], k=2) == 1.0
    assert ndcg_score([[1, 0, 2]], [[3, 2, 1]], k=2) == pytest.approx(1 / (2 + 1 / np.log2(3)))


# ----- ap_denominator="min_k_relevant" vs Microsoft Recommenders ----------------------------
#
# recommenders 1.2.1 python_evaluation.map_at_k: every row of rating_true is relevant; the mean
# is over the users in both rating_true and rating_pred (users without relevant items and users
# missing from the model are left out), each AP@k divided by min(|R|, k).

@pytest.mark.parametrize("seed", range(2))
def test_min_k_relevant_matches_recommenders_map_at_k(seed):
    truth, run = random_data(800 + seed, tie_free=True)
    evaluation = evaluate(
        truth, {"model": run},
        conventions=Conventions(ap_denominator="min_k_relevant", missing_users="skip"),
        max_cutoff=MAX_CUTOFF,
    )
    relevant = truth[truth["rating"] >= 1].rename(columns={"user": "userID", "item": "itemID"})
    predicted = run.rename(columns={"user": "userID", "item": "itemID", "score": "prediction"})
    means = evaluation.curve("model", "map")
    for cutoff in (1, 3, 5, 10, 30):
        expected = map_at_k(relevant, predicted, k=cutoff)
        assert means[cutoff - 1] == pytest.approx(expected, rel=0, abs=1e-12), cutoff
    # the default |R| denominator gives other numbers on the same data
    default = evaluate(truth, {"model": run}, conventions=Conventions(missing_users="skip"),
                       max_cutoff=MAX_CUTOFF).curve("model", "map")
    assert abs(default[9] - map_at_k(relevant, predicted, k=10)) > 1e-3
