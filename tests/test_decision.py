"""The decision in words, on constructed data for each kind of sentence: a clear winner, a tie,
a lead that is not significant, and a leader that changes with K; and the LaTeX table's
significance superscripts on the same data."""

from __future__ import annotations

import pandas as pd
import pytest

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.report.decision import (
    decision_summary,
    describe_across,
    describe_verdict,
    leader_by_cutoff,
)
from rankmetrics.report.latex import latex_escape, latex_table, letter

USERS = [f"u{n:02d}" for n in range(40)]


def model(hit_rank: dict[str, int | None], length: int = 10) -> pd.DataFrame:
    """A model's output: each user's one relevant item ("hit") at the given rank (None: not
    listed), the rest of the list unjudged items."""
    rows = []
    for user in USERS:
        rank = hit_rank.get(user)
        for position in range(1, length + 1):
            item = "hit" if position == rank else f"other{position}"
            rows.append((user, item, float(length - position)))
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def evaluated(length: int = 10, **ranks):
    truth = pd.DataFrame({"user": USERS, "item": "hit", "rating": 1})
    runs = {name: model(hit_rank, length) for name, hit_rank in ranks.items()}
    return evaluate(truth, runs, relevance=RelevanceMapping.binary(1), max_cutoff=10)


def summary(evaluation, metric="hit_rate", cutoff=1):
    """The verdict on one metric, its sentence and the sentence on whether it holds across K."""
    decision = decision_summary(evaluation, [metric], cutoff, test="t", n_bootstrap=200)[0]
    return decision.verdict, describe_verdict(decision.verdict), describe_across(decision)


def test_clear_winner():
    # strong: the hit at rank 1 for all 40 users; weak: for the first 8 only.
    ev = evaluated(1, weak={u: 1 for u in USERS[:8]}, strong=dict.fromkeys(USERS, 1))
    found, sentence, across = summary(ev)
    assert found.kind == "winner" and found.best == "strong"
    assert (found.best_mean, found.runner_up_mean) == (1.0, 8 / 40)
    assert found.difference == pytest.approx(1 - 8 / 40)
    assert sentence.startswith("On HitRate@1, strong is the best model: 1.000 against 0.200 "
                               "for weak (the next best), +0.800 (95% interval")
    assert "significantly better than every other model (paired t-test, Holm" in sentence
    # every list ends at rank 1: past K = 1 no value changes but Precision's 1/K
    assert across == ("strong has the highest HitRate at every K checked (1); past K = 1 "
                      "nothing in the lists can change the order.")


def test_tie():
    same = {u: 2 for u in USERS[::2]}
    ev = evaluated(2, first=same, second=same)
    found, sentence, across = summary(ev, "mrr", 5)
    assert found.kind == "tie" and set(found.leaders) == {"first", "second"}
    assert sentence == ("On MRR@5, first and second are tied: the same mean, 0.250 "
                        "(40 users); nothing separates them.")
    assert across == ("first and second share the highest MRR at every K checked (1 and 2); "
                      "past K = 2 nothing in the lists can change the order.")


def test_lead_that_is_not_significant():
    # a: hit at rank 1 for users 0-20 (21 users); b: for users 1-20 and 39 swapped in: 20.
    ev = evaluated(a={u: 1 for u in USERS[:21]}, b={u: 1 for u in [*USERS[1:20], USERS[39]]})
    found, sentence, _ = summary(ev)
    assert found.kind == "not_significant" and found.best == "a"
    assert found.difference == pytest.approx(21 / 40 - 20 / 40)
    assert ("On HitRate@1, a has the highest mean, 0.525 against 0.500 for b (the next "
            "best), +0.025 (95% interval") in sentence
    assert sentence.endswith("the data cannot tell a and b apart.")


def test_leader_that_changes_with_k():
    # early: rank 1 for half the users, nothing for the others; late: rank 3 for everyone.
    ev = evaluated(3, early={u: 1 for u in USERS[:20]}, late=dict.fromkeys(USERS, 3))
    # the lists end at rank 3: no K past it is checked
    assert leader_by_cutoff(ev, "hit_rate") == [(1, ("early",)), (3, ("late",))]
    found, sentence, across = summary(ev, "hit_rate", 1)
    assert found.kind == "winner" and found.best == "early"
    assert across == "The leader on HitRate changes with K: early at K = 1, late at K = 3."
    found, _, _ = summary(ev, "hit_rate", 5)
    assert found.best == "late" and found.difference == pytest.approx(0.5)


def test_latex_table_marks_the_models_each_beats():
    ev = evaluated(weak={u: 1 for u in USERS[:8]}, strong=dict.fromkeys(USERS, 1),
                   **{"half_&_half": {u: 1 for u in USERS[:20]}})
    text = latex_table(ev, ["hit_rate", "r_precision"], [1, 5], test="t")
    rows = {line.split(" & ")[1]: line for line in text.splitlines() if line[:2] in
            ("a ", "b ", "c ")}
    # letters: a = weak, b = strong, c = half_&_half; strong beats both, half beats weak
    assert rows["strong"].startswith(r"b & strong & \textbf{1.0000}$^{ac}$")
    assert rows[r"half\_\&\_half"].startswith(r"c & half\_\&\_half & 0.5000$^{a}$")
    assert rows["weak"].startswith("a & weak & 0.2000 &")
    assert " & Model & HitRate@1 & HitRate@5 & R-Precision" in text
    assert text.count(r"\\") == 4 and text.startswith(r"\begin{table}")


def test_latex_escapes_and_letters():
    assert latex_escape(r"\input{x}_$%#~^<>") == (
        r"\textbackslash{}input\{x\}\_\$\%\#\textasciitilde{}\textasciicircum{}"
        r"\textless{}\textgreater{}")
    assert [letter(i) for i in (0, 25, 26, 27)] == ["a", "z", "aa", "ab"]
    ev = evaluated(only=dict.fromkeys(USERS, 1))
    with pytest.raises(ValueError, match="at least two models"):
        latex_table(ev)


def test_the_command_line_writes_the_latex_table(capsys):
    from rankmetrics.cli import main
    from tests.helpers import MOVIES

    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
                 "--run", str(MOVIES / "personalized.parquet"),
                 "--run", str(MOVIES / "random.parquet"), "--cutoffs", "10",
                 "--metrics", "ndcg", "--format", "latex", "--test", "t", "--binary", "4"])
    out = capsys.readouterr().out
    assert code == 0
    assert r"a & personalized & \textbf{" in out and "}$^{b}$ \\\\" in out
    assert "b & random & 0." in out and "paired t-test, Holm correction" in out


def test_across_segments():
    from rankmetrics.report.decision import describe_across_segments
    from rankmetrics.segments import compare_segments, segment_users

    # users 0-19 have one relevant item, users 20-39 three (ground-truth size splits them);
    # "few" finds it at rank 1 for the first 20 users only, "steady" at rank 2 for them and
    # at rank 1 for the others: MRR "steady" 0.75 overall, but "few" leads among the first.
    truth = pd.DataFrame([(u, f"hit{j}", 1) for n, u in enumerate(USERS)
                          for j in range(1 if n < 20 else 3)], columns=["user", "item", "rating"])
    ranks = {**dict.fromkeys(USERS[:20], 2), **dict.fromkeys(USERS[20:], 1)}
    steady = model(ranks).replace({"item": {"hit": "hit0"}})
    few = model(dict.fromkeys(USERS[:20], 1)).replace({"item": {"hit": "hit0"}})
    ev = evaluate(truth, {"steady": steady, "few": few}, relevance=RelevanceMapping.binary(1),
                  max_cutoff=5)
    split = segment_users(ev, "ground-truth size", n_buckets=2)
    result = compare_segments(ev, split, "mrr", 5, test="t", min_users=10, n_bootstrap=200)
    assert describe_across_segments(result) == (
        "By ground-truth size: steady leads on MRR@5 over all users, but not in every "
        "segment: few in 1 (50% of the users, significantly).")
    result = compare_segments(ev, split, "mrr", 5, test="t", min_users=30, n_bootstrap=200)
    assert describe_across_segments(result) == (
        "By ground-truth size: no segment has enough users to test (at least 30).")


def test_a_saved_evaluation_past_its_lists_end_checks_no_k_beyond_them(tmp_path):
    # the movies demo's lists hold 50 items; evaluated and saved to K = 100
    from rankmetrics import load_bundle
    from rankmetrics.io import read_run, read_truth
    from tests.apptest import MOVIE_MODELS
    from tests.helpers import MOVIES

    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    ev = evaluate(read_truth(MOVIES / "ground_truth.csv"), runs,
                  relevance=RelevanceMapping.binary(4), max_cutoff=100)
    assert max(int(run.lengths.max()) for run in ev.runs.values()) == 50
    saved = load_bundle(ev.save(tmp_path / "movies", sample=10))
    assert saved.width == ev.width == 50
    for evaluation in (ev, saved):
        decision = decision_summary(evaluation, ["ndcg"], 10, test="t", n_bootstrap=10)[0]
        across = describe_across(decision)
        # checked at K = 1, 3, 5, 10, 20 and 50, not 100 ("personalized at K = 50 to 100")
        assert across == ("The leader on NDCG changes with K: top_heavy at K = 1 to 20, "
                          "personalized at K = 50."), across
