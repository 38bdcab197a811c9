"""ERR and RBP against the libraries that define them: ERR@k as gdeval computes it (ir_measures
runs gdeval's own Perl script, which prints five decimals) with its fixed g_max = 4 (the paper's
recursion itself, to 1e-12, is in test_metric_registry.py), RBP as ranx's ``rbp`` computes it
(on 0/1 labels, and on grades for the graded form), per user and as means over users, on random
graded data; RBP's residual against what making the unjudged items relevant adds."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import ERR
from ranx import Qrels, Run
from ranx import evaluate as ranx_evaluate

from rankmetrics import Conventions, RelevanceMapping, evaluate
from tests.helpers import random_data

MAX_CUTOFF = 35  # beyond the longest list (30)
CUTOFFS = (1, 2, 3, 5, 10, 20, 30)


def _nested(table: pd.DataFrame, value: str) -> dict[str, dict[str, float]]:
    return {user: dict(zip(group["item"], group[value].tolist(), strict=True))
            for user, group in table.groupby("user", sort=False)}


def _numbered(truth: pd.DataFrame, run: pd.DataFrame):
    """gdeval reads numeric topic ids: the users as numbers."""
    ids = {user: str(1000 + n) for n, user in enumerate(sorted(set(truth["user"])
                                                               | set(run["user"])))}
    return truth.assign(user=truth["user"].map(ids)), run.assign(user=run["user"].map(ids))


@pytest.mark.parametrize("seed", range(4))
def test_err_is_gdevals_with_its_highest_grade_4(seed):
    truth, run = random_data(seed, tie_free=True)  # grades 0-3
    truth, run = _numbered(truth, run)
    evaluation = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions.preset("trec_eval", max_grade=4),
                          max_cutoff=MAX_CUTOFF)
    qrels = _nested(truth, "rating")
    ours = evaluation.per_user("m", "err")
    means = evaluation.means(["err"])["m"]["err"]
    for cutoff in CUTOFFS:
        reference = pd.Series({row.query_id: row.value for row in ir_measures.iter_calc(
            [ERR @ cutoff], qrels, _nested(run, "score"))})
        shared = reference.index.intersection(ours.index)
        assert len(shared) >= 15
        # gdeval prints five decimals: equal to the last one it prints
        np.testing.assert_allclose(ours.loc[shared, cutoff], reference[shared], rtol=0,
                                   atol=5e-6 + 1e-12)
        # a user without a list scores 0 (missing_users="zero"): the mean over every counted
        # user
        expected = reference.reindex(ours.index).fillna(0.0).mean()
        assert means[cutoff - 1] == pytest.approx(expected, rel=0, abs=5e-6 + 1e-12), cutoff
        assert means[cutoff - 1] == pytest.approx(ours[cutoff].mean(), rel=0, abs=1e-12)
    assert means[-1] > 0


def test_err_divides_by_the_mappings_highest_grade_by_default():
    truth, run = random_data(5, ratings="stars")
    stars = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2)
    default = evaluate(truth, {"m": run}, relevance=stars, max_cutoff=10)
    three = evaluate(truth, {"m": run}, relevance=stars, max_cutoff=10,
                     conventions=Conventions(max_grade=3))
    four = evaluate(truth, {"m": run}, relevance=stars, max_cutoff=10,
                    conventions=Conventions(max_grade=4))
    assert default.max_grade == 3.0
    pd.testing.assert_frame_equal(default.per_user("m", "err"), three.per_user("m", "err"))
    assert (four.per_user("m", "err") <= default.per_user("m", "err")).all().all()
    assert four.means(["err"])["m"]["err"][-1] < default.means(["err"])["m"]["err"][-1]
    # for ratings used as grades, the highest grade in the ground truth
    graded = evaluate(truth.assign(rating=truth["rating"] - 3), {"m": run},
                      relevance=RelevanceMapping.identity(1), max_cutoff=10)
    assert graded.max_grade == 2.0


def test_a_highest_grade_below_the_data_is_refused_with_what_to_do():
    truth = pd.DataFrame({"user": "u", "item": ["a"], "rating": [3]})
    run = pd.DataFrame({"user": "u", "item": ["a"], "score": [1.0]})
    evaluation = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions(max_grade=2), max_cutoff=1)
    with pytest.raises(ValueError, match=r"g_max = 2 is below a grade of the ground truth "
                       r"\(3\).*at least 3"):
        evaluation.means(["err"])


def _ranx(truth: pd.DataFrame, run: pd.DataFrame, p: float) -> pd.Series:
    """ranx's rbp of each user with a judgment and a list (ranx multiplies each rank's
    weight by the grade as given)."""
    in_run = set(run["user"])
    qrels = {user: {item: int(grade) for item, grade in items.items()}
             for user, items in _nested(truth, "rating").items() if user in in_run}
    scores = {user: items for user, items in _nested(run, "score").items() if user in qrels}
    values = ranx_evaluate(Qrels(qrels), Run(scores), f"rbp.{round(p * 100):02d}"
                           if p < 1 else "rbp", return_mean=False, make_comparable=True)
    return pd.Series(dict(zip(Qrels(qrels).keys(), values, strict=True)))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_is_ranxs_on_zero_one_labels(seed, p):
    truth, run = random_data(30 + seed, tie_free=True)
    binary = truth.assign(rating=(truth["rating"] >= 2).astype(int))  # 0/1 labels
    evaluation = evaluate(binary, {"m": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions.preset("trec_eval", rbp_persistence=p),
                          max_cutoff=MAX_CUTOFF)
    reference = _ranx(binary, run, p)
    ours = evaluation.per_user("m", "rbp")[MAX_CUTOFF]
    assert len(reference) >= 15
    np.testing.assert_allclose(ours[reference.index], reference, rtol=0, atol=1e-12)
    expected = reference.reindex(ours.index).fillna(0.0).mean()
    assert evaluation.means(["rbp"])["m"]["rbp"][-1] == pytest.approx(expected, rel=0,
                                                                     abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_graded_rbp_is_ranxs_on_grades_over_the_highest_grade(seed):
    truth, run = random_data(40 + seed, tie_free=True)  # grades 0-3
    evaluation = evaluate(truth, {"m": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions.preset("trec_eval", rbp_gain="graded"),
                          max_cutoff=MAX_CUTOFF)
    assert evaluation.max_grade == 3.0
    reference = _ranx(truth, run, 0.8) / 3.0  # ranx weighs by the grade itself
    ours = evaluation.per_user("m", "rbp")[MAX_CUTOFF]
    np.testing.assert_allclose(ours[reference.index], reference, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_the_residual_is_what_relevant_unjudged_items_would_add(seed):
    # were every unjudged item of the top K relevant, RBP@K would rise by the residual less
    # p^K (the ranks after K, which no item of the top K fills); rbp + residual never passes 1
    truth, run = random_data(50 + seed, tie_free=True)
    k = 10
    options = {"relevance": RelevanceMapping.identity(1), "max_cutoff": k,
               "conventions": Conventions(rbp_persistence=0.7, missing_users="skip")}
    evaluation = evaluate(truth, {"m": run}, **options)
    top = (run.sort_values(["user", "score"], ascending=[True, False])
           .groupby("user").head(k))
    judged = set(zip(truth["user"], truth["item"], strict=True))
    unjudged = top[[(u, i) not in judged for u, i in zip(top["user"], top["item"],
                                                          strict=True)]]
    filled = pd.concat([truth, unjudged[["user", "item"]].assign(rating=1)],
                       ignore_index=True)
    more = evaluate(filled, {"m": run}, **options)
    rbp, residual = (evaluation.per_user("m", metric)[k] for metric in ("rbp",
                                                                          "rbp_residual"))
    users = rbp.index.intersection(more.per_user("m", "rbp").index)
    added = more.per_user("m", "rbp").loc[users, k] - rbp[users]
    # a list of L < K items also leaves its empty ranks L+1..K to the residual: p^L - p^K
    shown = np.minimum(run.groupby("user").size().reindex(users, fill_value=0), k)
    np.testing.assert_allclose(added, residual[users] - 0.7 ** shown, rtol=0, atol=1e-12)
    assert (shown < k).sum() > 2 and (shown == k).sum() > 10
    assert (rbp + residual <= 1 + 1e-12).all() and (residual >= 0.7 ** k - 1e-12).all()
    assert (unjudged.groupby("user").size() > 0).sum() > 10  # the lists held unjudged items


def test_the_table_gives_rbp_as_an_interval_and_tests_only_what_higher_is_better_for(capsys):
    from pathlib import Path

    from rankmetrics.cli import main

    movies = Path(__file__).resolve().parents[1] / "data" / "movies"
    runs = ["--run", str(movies / "personalized.parquet"), "--run",
            str(movies / "top_heavy.parquet")]
    assert main(["evaluate", "--truth", str(movies / "ground_truth.csv"), *runs, "--metrics",
                 "ndcg,rbp,judged,rbp_residual", "--cutoffs", "10", "--rbp-persistence",
                 "0.9", "--format", "table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # the headline and the marks are of NDCG and RBP only: a higher Judged@K or residual is
    # not a better model
    assert lines[0] == "top_heavy is best on both metrics at K = 10."
    rows = {line.split()[0]: line for line in lines if line.split()[:1] in (
        ["judged"], ["rbp_residual"])}
    assert set(rows) == {"judged", "rbp_residual"}
    assert not any(mark in row for row in rows.values() for mark in ("★", "≈"))
    evaluation = evaluate(
        pd.read_csv(movies / "ground_truth.csv"),
        {name: pd.read_parquet(movies / f"{name}.parquet")
         for name in ("personalized", "top_heavy")},
        relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),  # as suggested
        conventions=Conventions(rbp_persistence=0.9), max_cutoff=10)
    means = evaluation.means(["rbp", "rbp_residual"])
    spans = ", ".join(
        f"{model} {means[model]['rbp'][9]:.4f} to "
        f"{means[model]['rbp'][9] + means[model]['rbp_residual'][9]:.4f}"
        for model in ("personalized", "top_heavy"))
    assert lines[-1] == f"RBP@10 (p = 0.9) with what unjudged items could add: {spans}."


def test_the_command_line_names_a_bad_persistence_or_highest_grade(capsys):
    from pathlib import Path

    from rankmetrics.cli import main

    movies = Path(__file__).resolve().parents[1] / "data" / "movies"
    base = ["evaluate", "--truth", str(movies / "ground_truth.csv"), "--run",
            str(movies / "popularity.parquet"), "--metrics", "err,rbp"]
    assert main([*base, "--rbp-persistence", "1.5"]) == 1
    assert capsys.readouterr().err.strip() == (
        "rankmetrics: error: --rbp-persistence must be a number strictly between 0 and 1 (0.8 "
        "is usual). Got 1.5.")
    assert main([*base, "--max-grade", "2"]) == 1  # the stars' grades go up to 3
    assert "at least 3, or leave it out" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--max-grade", "four"])
    assert "argument --max-grade: a number is needed, such as 0.8. Got 'four'." in (
        capsys.readouterr().err)
