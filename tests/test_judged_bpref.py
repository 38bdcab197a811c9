"""bpref and Judged@K against the libraries that define them: trec_eval's ``bpref`` (pytrec_eval,
on the whole list and on each list cut to its top K; trec_eval's own outputs are in
test_trec_eval_fixtures.py) and ir_measures' ``Judged@K``, per user and as means over users, on
random graded data with ties, users missing from the model and users without relevant items."""

from __future__ import annotations

from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from ir_measures import Judged

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

ROOT = Path(__file__).resolve().parents[1]
MAX_CUTOFF = 35  # beyond the longest list (30)
STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2)


def _nested(table: pd.DataFrame, value: str) -> dict[str, dict[str, float]]:
    return {user: dict(zip(group["item"], group[value].tolist(), strict=True))
            for user, group in table.groupby("user", sort=False)}


def _qrels(truth: pd.DataFrame, relevance: RelevanceMapping) -> dict[str, dict[str, int]]:
    """The ground truth as trec_eval's integer grades."""
    grades = relevance.grades(truth["rating"].to_numpy()).astype(int)
    return _nested(truth.assign(rating=grades), "rating")


def _trec_eval_order(run: pd.DataFrame) -> pd.DataFrame:
    """Each user's list as trec_eval ranks it: score descending, equal scores by item id
    descending."""
    return run.sort_values(["user", "score", "item"], ascending=[True, False, False])


def _bpref(qrels, run: pd.DataFrame, level: int) -> pd.Series:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}, relevance_level=level)
    values = evaluator.evaluate(_nested(run, "score"))
    return pd.Series({user: measures["bpref"] for user, measures in values.items()})


CASES = [("grades", RelevanceMapping.identity(1), 1), ("grades", RelevanceMapping.identity(2), 2),
         ("stars", STARS, 2)]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("ratings", "relevance", "level"), CASES,
                         ids=["grades-l1", "grades-l2", "stars-l2"])
def test_bpref_of_the_whole_list_is_trec_evals(seed, ratings, relevance, level):
    truth, run = random_data(seed, ratings=ratings)  # scores with ties
    evaluation = evaluate(truth, {"model": run}, relevance=relevance,
                          conventions=Conventions.preset("trec_eval"), max_cutoff=MAX_CUTOFF)
    reference = _bpref(_qrels(truth, relevance), run, level)
    ours = evaluation.per_user("model", "bpref")[MAX_CUTOFF]
    shared = reference.index.intersection(ours.index)
    assert len(shared) >= 15
    np.testing.assert_allclose(ours[shared].to_numpy(), reference[shared].to_numpy(),
                               rtol=0, atol=1e-12)
    # the mean, as trec_eval -c: every counted user, 0 for those the model has no list for
    expected = reference.reindex(ours.index, fill_value=0.0).mean()
    assert evaluation.means(["bpref"])["model"]["bpref"][MAX_CUTOFF - 1] == pytest.approx(
        expected, rel=0, abs=1e-12)
    assert 0 < expected < 1


@pytest.mark.parametrize("seed", range(3))
def test_bpref_at_every_k_is_trec_evals_on_the_list_cut_to_its_top_k(seed):
    truth, run = random_data(10 + seed, ratings="stars")
    evaluation = evaluate(truth, {"model": run}, relevance=STARS,
                          conventions=Conventions.preset("trec_eval"), max_cutoff=MAX_CUTOFF)
    qrels = _qrels(truth, STARS)
    ordered = _trec_eval_order(run)
    per_user = evaluation.per_user("model", "bpref")
    means = evaluation.means(["bpref"])["model"]["bpref"]
    for cutoff in (1, 2, 3, 5, 8, 13, 21, 30):
        reference = _bpref(qrels, ordered.groupby("user", sort=False).head(cutoff), 2)
        shared = reference.index.intersection(per_user.index)
        np.testing.assert_allclose(per_user.loc[shared, cutoff].to_numpy(),
                                   reference[shared].to_numpy(), rtol=0, atol=1e-12)
        expected = reference.reindex(per_user.index, fill_value=0.0).mean()
        assert means[cutoff - 1] == pytest.approx(expected, rel=0, abs=1e-12), cutoff


def test_bpref_by_hand():
    # R = {a, c}, N = {b, x, y}: a comes first (1); c has one judged non-relevant item above
    # it (1 - 1 / min(2, 3) = 0.5); the unjudged item u is skipped
    truth = pd.DataFrame({"user": "q", "item": list("acbxy"), "rating": [1, 1, 0, 0, 0]})
    run = pd.DataFrame({"user": "q", "item": list("aubc"), "score": [4, 3, 2, 1]})
    evaluation = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                          max_cutoff=4)
    assert evaluation.per_user("m", "bpref").loc["q"].tolist() == [0.5, 0.5, 0.5, 0.75]
    # one judged non-relevant item in all: it outweighs both relevant items below it
    truth = pd.DataFrame({"user": "q", "item": list("acb"), "rating": [1, 1, 0]})
    run = pd.DataFrame({"user": "q", "item": list("bac"), "score": [3, 2, 1]})
    evaluation = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                          max_cutoff=3)
    assert evaluation.per_user("m", "bpref").loc["q"].tolist() == [0.0, 0.0, 0.0]


def _judged(qrels, run: pd.DataFrame, cutoffs) -> pd.DataFrame:
    measures = [Judged @ cutoff for cutoff in cutoffs]
    rows = ir_measures.iter_calc(measures, qrels, _nested(run, "score"))
    table = pd.DataFrame([(r.query_id, r.measure["cutoff"], r.value) for r in rows],
                         columns=["user", "cutoff", "value"])
    return table.pivot(index="user", columns="cutoff", values="value")


@pytest.mark.parametrize("seed", range(4))
def test_judged_is_ir_measures(seed):
    truth, run = random_data(20 + seed, tie_free=True)  # lists of 0 to 30 items
    cutoffs = [1, 3, 5, 10, 20, 30]
    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions.preset("trec_eval"), max_cutoff=MAX_CUTOFF)
    reference = _judged(_qrels(truth, RelevanceMapping.identity(1)), run, cutoffs)
    ours = evaluation.per_user("model", "judged")
    users = reference.index.intersection(ours.index)
    assert len(users) == len(ours)  # ir_measures gives 0 to a user without a list, as we do
    lengths = run.groupby("user").size().reindex(users, fill_value=0)
    for cutoff in cutoffs:
        np.testing.assert_allclose(ours.loc[users, cutoff], reference.loc[users, cutoff],
                                   rtol=0, atol=1e-12)
    assert (lengths < 20).sum() > 5  # shorter lists, divided by their length, were checked
    # means over the counted users, as ir_measures' mean over the same users
    means = evaluation.means(["judged"])["model"]["judged"]
    for cutoff in cutoffs:
        assert means[cutoff - 1] == pytest.approx(reference.loc[users, cutoff].mean(), rel=0,
                                                  abs=1e-12)
    assert 0 < means[-1] < 1


def test_a_negative_grade_is_no_judgment_as_in_trec_eval():
    # b (-1) ranked first is neither relevant nor judged non-relevant: a comes before every
    # judged non-relevant item; d has c above it, and N = 1
    qrels = {"q": {"a": 1, "b": -1, "c": 0, "d": 1}}
    scores = {"q": {"b": 4.0, "a": 3.0, "c": 2.0, "d": 1.0}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(scores)["q"]["bpref"]
    truth = pd.DataFrame({"user": "q", "item": list("abcd"), "rating": [1, -1, 0, 1]})
    run = pd.DataFrame({"user": "q", "item": list("bacd"), "score": [4.0, 3.0, 2.0, 1.0]})
    evaluation = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions.preset("trec_eval"), max_cutoff=4)
    assert evaluation.per_user_at("m", "bpref", 4)["q"] == reference == 0.5
    # and Judged@K does not count it: 3 of the 4 items are judged
    assert evaluation.per_user_at("m", "judged", 4)["q"] == 0.75
    assert evaluation.per_user_at("m", "judged", 1)["q"] == 0.0


# ----- the note next to the values ---------------------------------------------------------

MOVIES = ROOT / "data" / "movies"
MOVIE_MODELS = ("popularity", "personalized", "top_heavy", "random")


def _movie_shares(k: int) -> dict[str, float]:
    """Each demo model's mean share of its top ``k`` that the user rated, over the users the
    default conventions count (those with a rating of 4 or 5), 0 for a user without a list;
    straight from the files."""
    truth = pd.read_csv(MOVIES / "ground_truth.csv", dtype={"user": str, "item": str})
    rated = truth.groupby("user")["item"].agg(set)
    counted = truth.loc[truth["rating"] >= 4, "user"].unique()
    shares = {}
    for model in MOVIE_MODELS:
        run = pd.read_parquet(MOVIES / f"{model}.parquet")
        ranked = run.sort_values(["user", "score", "item"], ascending=[True, False, False])
        tops = ranked.groupby("user")["item"].apply(lambda items: list(items[:k]))
        shares[model] = float(np.mean([
            sum(item in rated[user] for item in tops.get(user, [])) / k for user in counted]))
    return shares


def _sentence(shares: dict[str, float], k: int) -> str:
    low, high = min(shares, key=shares.get), max(shares, key=shares.get)
    return (f"Only {shares[low]:.0%} ({low}) to {shares[high]:.0%} ({high}) of each model's "
            f"top {k} is judged: unjudged items count as not relevant, so the values may be "
            "too low.")


def test_the_command_line_says_how_little_is_judged(capsys):
    from rankmetrics.cli import main

    shares = _movie_shares(10)
    assert max(shares.values()) < 0.5  # the demo's lists are mostly unrated: a note is due
    runs = [argument for model in MOVIE_MODELS
            for argument in ("--run", str(MOVIES / f"{model}.parquet"))]
    assert main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--format", "table", "--cutoffs", "5,10"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == _sentence(shares, 10)
    # another format: on stderr, at the largest K asked for when 10 is not
    assert main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *runs,
                 "--cutoffs", "3,5"]) == 0
    shares = _movie_shares(5)
    low = sorted((share, model) for model, share in shares.items() if share < 0.5)
    assert 0 < len(low) < len(shares)  # top_heavy's top 5 is mostly rated
    listed = ", ".join(f"{model} {share:.0%}" for share, model in low)
    assert (f"rankmetrics: note: Little of some models' top 5 is judged ({listed}): unjudged "
            "items count as not relevant, so the values may be too low.\n"
            in capsys.readouterr().err)


def test_the_compare_page_says_how_little_is_judged():
    from tests.apptest import plain, start

    at = start("movies", "app_pages/compare.py")
    captions = [plain(c.value) for c in at.main.caption]
    assert f":material/info: {_sentence(_movie_shares(10), 10)}" in captions


def test_no_note_when_most_is_judged_and_one_names_the_models_that_need_it():
    from rankmetrics.judgments import judged_note, judged_shares

    truth = pd.DataFrame({"user": ["u"] * 4, "item": list("abcd"), "rating": [1, 1, 0, 0]})
    runs = {"judged": pd.DataFrame({"user": "u", "item": list("abcd"), "score": [4, 3, 2, 1]}),
            "half": pd.DataFrame({"user": "u", "item": list("axby"), "score": [4, 3, 2, 1]}),
            "few": pd.DataFrame({"user": "u", "item": list("awxy"), "score": [4, 3, 2, 1]})}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.identity(1), max_cutoff=4)
    assert judged_shares(evaluation, 4).tolist() == [1.0, 0.5, 0.25]
    assert judged_note(evaluation, 4) == ("Only 25% of few's top 4 is judged: unjudged items "
                                          "count as not relevant, so the values may be too low.")
    assert judged_note(evaluation, 4, threshold=0.6) == (
        "Little of some models' top 4 is judged (few 25%, half 50%): unjudged items count as "
        "not relevant, so the values may be too low.")
    assert judged_note(evaluation, 1) is None  # every model's first item is judged
    assert judged_note(evaluate(truth, {"judged": runs["judged"]}, max_cutoff=4), 4) is None
