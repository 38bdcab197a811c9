"""ERR, RBP, bpref and Judged written out rank by rank: the parts add up to every user's value
of the whole evaluation (g_max the evaluation's, the same for every user), the hand-derived
values of a graded example, the choices that change each, and the Metrics explained page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.bundle import sample_users
from rankmetrics.conventions import Conventions
from rankmetrics.evaluation import load_bundle
from rankmetrics.explain import explain_steps, step_variants
from rankmetrics.relevance import RelevanceMapping
from tests.apptest import frame, go, ok, plain, start
from tests.test_app_bundle import open_archive

# q: d1 = 3, d2 = 2, d3 = 0, d4 = 1; the ranking d3, d1, d4, d5 (unjudged), d2
TRUTH = pd.DataFrame({"user": ["q"] * 4, "item": ["d1", "d2", "d3", "d4"],
                      "rating": [3, 2, 0, 1]})
RUN = pd.DataFrame({"user": ["q"] * 5, "item": ["d3", "d1", "d4", "d5", "d2"],
                    "score": [5, 4, 3, 2, 1]})


def random_data(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Grades -1..3 (trec_eval's -1: no judgment), unjudged and tied items, empty lists."""
    rng = np.random.default_rng(seed)
    truth, run = [], []
    for user in range(40):
        items = rng.choice(30, 10, replace=False)
        truth += [(f"u{user}", f"i{item}", int(rng.integers(-1, 4)))
                  for item in items[:rng.integers(1, 9)]]
        run += [(f"u{user}", f"i{item}", float(rng.integers(0, 4)))
                for item in rng.choice(30, rng.integers(0, 14), replace=False)]
    return (pd.DataFrame(truth, columns=["user", "item", "rating"]),
            pd.DataFrame(run, columns=["user", "item", "score"]))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("threshold", [1, 2])
@pytest.mark.parametrize("counted", ["ground_truth", "in_list"])
def test_the_parts_add_up_to_every_users_value(seed, threshold, counted):
    truth, run = random_data(seed)
    relevance = RelevanceMapping.identity(threshold)
    conventions = Conventions(empty_users="zero", missing_users="zero", rbp_persistence=0.7,
                              relevant_items=counted)
    evaluation = evaluate(truth, {"m": run}, relevance=relevance, conventions=conventions,
                          max_cutoff=8)
    for cutoff in (1, 4, 8):
        residual = evaluation.per_user_at("m", "rbp_residual", cutoff)
        for metric in ("err", "rbp", "bpref", "judged"):
            values = evaluation.per_user_at("m", metric, cutoff)
            for user, expected in values.items():
                steps = explain_steps(truth, run, user, metric, cutoff=cutoff,
                                      relevance=relevance, conventions=conventions,
                                      max_grade=evaluation.max_grade)
                total = float(steps.ranked["running"].iloc[-1]) if len(steps.ranked) else 0.0
                assert steps.value == pytest.approx(expected, abs=1e-12), (metric, user)
                assert total == pytest.approx(expected, abs=1e-12), (metric, user)
                if metric == "rbp":
                    assert steps.residual == pytest.approx(residual[user], abs=1e-12)
    assert evaluation.max_grade == 3.0  # the whole ground truth's highest grade


def test_the_graded_example_by_hand():
    err = explain_steps(TRUTH, RUN, "q", "err", cutoff=5)
    assert err.ranked["stop"].tolist() == [0.0, 7 / 8, 1 / 8, 0.0, 3 / 8]
    assert err.ranked["reached"].tolist() == pytest.approx(
        [1.0, 1.0, 1 / 8, 1 / 8 * 7 / 8, 1 / 8 * 7 / 8])
    assert err.value == pytest.approx(7 / 16 + 1 / 192 + 21 / 2560, abs=1e-12)
    assert err.latex()[1].endswith("= 0.4509")

    rbp = explain_steps(TRUTH, RUN, "q", "rbp", cutoff=5)
    assert rbp.value == pytest.approx(0.2 * (0.8 + 0.64 + 0.8**4), abs=1e-12)
    assert rbp.residual == pytest.approx(0.2 * 0.8**3 + 0.8**5, abs=1e-12)
    assert rbp.ranked["unknown"].tolist() == pytest.approx([0, 0, 0, 0.2 * 0.8**3, 0])
    assert "lies between 0.3699 and 0.8000" in rbp.words()

    bpref = explain_steps(TRUTH, RUN, "q", "bpref", cutoff=5)
    assert (bpref.n_relevant, bpref.n_nonrelevant) == (3, 1)
    assert bpref.ranked["nonrelevant_above"].tolist() == [0, 1, 1, 0, 1]
    assert bpref.value == 0.0
    # with d3 moved below the relevant items, each of them scores 1
    assert explain_steps(TRUTH, RUN.assign(score=[0, 4, 3, 2, 1]), "q", "bpref",
                         cutoff=5).value == pytest.approx(1.0)

    judged = explain_steps(TRUTH, RUN, "q", "judged", cutoff=5)
    assert judged.ranked["judged"].tolist() == [True, True, True, False, True]
    assert judged.latex()[1] == r"\mathrm{Judged@5} = \frac{4}{5} = 0.8000"


def test_the_choices_that_change_each_metric():
    err = step_variants(TRUTH, RUN, "q", "err", cutoff=5)
    assert err["choice"].tolist() == ["3 (the highest grade)", "4 (gdeval)"]
    assert err["active"].tolist() == [True, False]
    stop = [0, 7 / 16, 1 / 16, 0, 3 / 16]  # (2^g - 1) / 2^4
    reached, gdeval = 1.0, 0.0
    for rank, chance in enumerate(stop, start=1):
        gdeval += reached * chance / rank
        reached *= 1 - chance
    assert err["value"].iloc[1] == pytest.approx(gdeval, abs=1e-12)

    rbp = step_variants(TRUTH, RUN, "q", "rbp", cutoff=5,
                        conventions=Conventions(rbp_persistence=0.9))
    assert rbp["choice"].tolist() == ["p = 0.5", "p = 0.8", "p = 0.9", "p = 0.95"]
    assert rbp.loc[rbp["active"], "choice"].tolist() == ["p = 0.9"]
    for p, value, top in zip([0.5, 0.8, 0.9, 0.95], rbp["value"], rbp["up_to"], strict=True):
        assert value == pytest.approx((1 - p) * (p + p**2 + p**4), abs=1e-12)
        assert top == pytest.approx(value + (1 - p) * p**3 + p**5, abs=1e-12)

    bpref = step_variants(TRUTH, RUN, "q", "bpref", cutoff=5)
    # grade >= 2: R = {d1, d2}, N = {d3, d4}; d1 has d3 above (1/2), d2 has d3, d4 (2/2)
    assert dict(zip(bpref["choice"], bpref["value"], strict=True))["grade ≥ 2"] == (
        pytest.approx((1 - 1 / 2 + 1 - 2 / 2) / 2))
    assert step_variants(TRUTH, RUN, "q", "judged", cutoff=5).empty
    with pytest.raises(ValueError, match="ndcg"):
        explain_steps(TRUTH, RUN, "q", "ndcg", cutoff=5)


def test_the_metrics_explained_page_works_them_out():
    at = start("textbook_graded", "app_pages/explained.py")
    at.selectbox(key="preset").set_value("trec_eval").run()
    at.slider(key="cutoff").set_value(5).run()
    at.selectbox(key="explain_metric").set_value("rbp").run()
    ok(at)
    shown = {metric.label: metric.value for metric in at.metric}
    assert shown["RBP@5"] == "0.3699"
    assert shown["With what unjudged items could add"] == "0.3699 to 0.8000"
    rows = frame(at, "step_rows")
    assert rows["weight"].tolist() == pytest.approx([0.2 * 0.8**i for i in range(5)])
    assert rows["running"].iloc[-1] == pytest.approx(0.36992)
    variants = [table.value for table in at.main.dataframe if "Up to" in table.value.columns]
    assert list(variants[0].columns) == ["RBP@5", "Up to"]
    assert variants[0]["RBP@5"].tolist() == pytest.approx(
        [(1 - p) * (p + p**2 + p**4) for p in (0.5, 0.8, 0.95)])

    at.selectbox(key="explain_metric").set_value("err").run()
    ok(at)
    assert {metric.label: metric.value for metric in at.metric}["g_max"] == "3"
    assert frame(at, "step_rows")["running"].iloc[-1] == pytest.approx(
        7 / 16 + 1 / 192 + 21 / 2560, abs=1e-12)
    assert any("gdeval" in plain(text.value) for text in at.markdown)
    at.selectbox(key="explain_metric").set_value("judged").run()
    ok(at)
    assert {metric.label: metric.value for metric in at.metric}["Judged in the top 5"] == "4"


def test_a_saved_evaluation_keeps_err_s_g_max_of_its_whole_ground_truth(tmp_path):
    """Ratings used as grades: the highest grade, 4, belongs to a user outside the bundle's
    sample, whose sampled rows reach only 3. ERR's g_max is the whole ground truth's, so a
    sampled user's ERR written out from the saved evaluation is its saved value."""
    truth, run = random_data(2)
    users = list(dict.fromkeys(truth["user"]))
    sampled = set(sample_users(users, 5))
    outside = next(user for user in users if user not in sampled)
    truth = pd.concat([truth, pd.DataFrame({"user": [outside], "item": ["i_top"],
                                            "rating": [4]})], ignore_index=True)
    relevance = RelevanceMapping.identity(1)
    evaluation = evaluate(truth, {"m": run}, relevance=relevance, max_cutoff=5)
    saved = load_bundle(evaluation.save(tmp_path / "bundle", sample=5, metrics=["err"]))
    assert set(saved.sample_truth["user"]) == sampled
    assert saved.sample_truth["rating"].max() == 3
    assert saved.max_grade == evaluation.max_grade == 4.0
    user = next(user for user in sorted(sampled)
                if saved.per_user_at("m", "err", 5).get(user, 0) > 0)
    steps = explain_steps(saved.sample_truth, saved.sample_runs[saved.sample_runs["model"] == "m"],
                          user, "err", cutoff=5, relevance=relevance,
                          conventions=saved.conventions, max_grade=saved.max_grade)
    assert steps.max_grade == 4.0
    assert steps.value == pytest.approx(saved.per_user_at("m", "err", 5)[user], abs=1e-12)


def test_the_metrics_explained_page_of_a_saved_evaluation_uses_its_g_max(tmp_path):
    truth, run = random_data(3)
    users = list(dict.fromkeys(truth["user"]))
    outside = next(user for user in users if user not in set(sample_users(users, 5)))
    truth = pd.concat([truth, pd.DataFrame({"user": [outside], "item": ["i_top"],
                                            "rating": [4]})], ignore_index=True)
    evaluation = evaluate(truth, {"m": run, "n": run.assign(score=-run["score"])},
                          relevance=RelevanceMapping.identity(1), max_cutoff=10)
    archive = evaluation.save(tmp_path / "graded.zip", sample=5)
    at = open_archive(archive.read_bytes(), "graded.zip")
    go(at, "app_pages/explained.py")
    at.selectbox(key="explain_metric").set_value("err").run()
    ok(at)
    assert {metric.label: metric.value for metric in at.metric}["g_max"] == "4"
