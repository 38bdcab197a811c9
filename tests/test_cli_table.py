"""``rankmetrics evaluate --format table``: the decision in one sentence above the means, the
dashboard's marks (★ significantly best, ≈ not distinguishable) from the same paired test, a
legend that says which test made them; and the formats programs read left as they were."""

from __future__ import annotations

import argparse
import io
import json

import pandas as pd
import pytest

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.cli import main
from rankmetrics.cli.results import render_results
from rankmetrics.io import read_run, read_truth
from rankmetrics.report.verdict import leader_marks, leader_verdict
from rankmetrics.stats import compare_models
from tests.helpers import MOVIES

MODELS = ("personalized", "popularity", "top_heavy")
RUNS = [arg for model in MODELS for arg in ("--run", str(MOVIES / f"{model}.parquet"))]
# the app's suggestion for the demo's stars: grades 5 -> 3, 4 -> 2, 3 -> 1; grade 2 relevant
RELEVANCE = ["--grades", "5=3,4=2,3=1", "--threshold", "2"]


def table_of(capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *RUNS, *RELEVANCE,
                 "--format", "table", *args])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def legend(lines: list[str]) -> str:
    """The line under the table that says what the marks mean."""
    return next(line for line in lines if line.startswith("★ significantly better"))


def cells(lines: list[str]) -> dict[tuple[str, str], list[str]]:
    """(metric, cutoff) -> each model's cell (value and mark), from the printed table."""
    out, metric = {}, None
    start = next(i for i, line in enumerate(lines) if line.startswith("metric")) + 1
    for line in lines[start:]:
        words = line.split()
        if not words or not words[0][0].isalpha() and not words[0].isdigit():
            break
        if words[0].isalpha() or "_" in words[0]:
            metric, words = words[0], words[1:]
        cutoff, rest = words[0], words[1:]
        values = []
        for word in rest:
            if word in ("★", "≈"):
                values[-1] += " " + word
            else:
                values.append(word)
        out[metric, cutoff] = values
    return out


@pytest.fixture(scope="module")
def movies():
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {model: read_run(MOVIES / f"{model}.parquet") for model in MODELS}
    return evaluate(truth, runs, relevance=RelevanceMapping.graded({3: 1, 4: 2, 5: 3},
                                                                    threshold=2), max_cutoff=20)


def test_the_table_opens_with_the_decision_and_marks_the_leaders(capsys, movies):
    code, lines, _ = table_of(capsys, "--cutoffs", "5,10,20")
    assert code == 0
    assert lines[0] == (
        "top_heavy is best on 4 of 6 metrics at K = 10; on Recall it cannot be told apart from "
        "personalized; personalized is best on Precision; the leader changes with K on "
        "Precision and Recall.")  # HitRate's changes at K = 50, past the table's cutoffs
    assert lines[1] == "" and lines[2].startswith("users averaged: personalized 1940")
    shown = cells(lines)
    assert shown["recall", "10"] == ["0.2351 ≈", "0.0645", "0.2404 ≈"]
    assert shown["ndcg", "10"][2].endswith(" ★") and shown["precision", "10"][0].endswith(" ★")
    # every mark is the dashboard's: the leader verdict of the same paired test
    for (metric, cutoff), row in shown.items():
        marks = leader_marks(leader_verdict(compare_models(movies.paired(metric, int(cutoff)),
                                                           n_bootstrap=200)))
        assert [cell.partition(" ")[2] for cell in row] == [marks.get(model, "")
                                                            for model in MODELS], (metric, cutoff)
    assert legend(lines) == (
        "★ significantly better than every other model on that row; ≈ the leaders the data "
        "cannot tell apart (randomization test, Holm correction, 5% significance level, on the "
        "1,940 users every model counts).")
    # the movies' lists are mostly unjudged: the table ends saying so
    assert lines[-1].startswith("Only ") and lines[-1].endswith(" is judged: unjudged items "
                                                                "count as not relevant, so "
                                                                "the values may be too low.")


def test_the_legend_names_the_test_chosen(capsys):
    code, lines, _ = table_of(capsys, "--cutoffs", "10", "--metrics", "ndcg,recall", "--test",
                              "t", "--correction", "bonferroni", "--confidence", "0.99")
    assert code == 0
    assert lines[0] == ("top_heavy is best on NDCG at K = 10; on Recall it cannot be told "
                        "apart from personalized.")
    assert "(paired t-test, Bonferroni correction, 1% significance level, on the 1,940 users" \
        in legend(lines)


def test_many_users_get_the_quick_test_and_a_long_table_is_tested_at_the_usual_cutoffs(
        capsys, monkeypatch):
    monkeypatch.setattr("rankmetrics.report.verdict.QUICK_FLIPS", 1_000)
    code, lines, _ = table_of(capsys, "--max-cutoff", "25", "--metrics", "ndcg")
    assert code == 0
    assert lines[0].startswith("top_heavy is best on NDCG at K = 10")
    assert "(paired t-test, Holm correction" in legend(lines)
    assert ("With 1,940 users, to keep the table quick, the paired t-test stands in for the "
            "randomization test; --format latex runs it in full.") in legend(lines)
    assert legend(lines).endswith("Tested at K = 1, 3, 5, 10, 20 (a table of more than 20 "
                              "cutoffs is tested at these).")
    shown = cells(lines)
    assert shown["ndcg", "10"][2].endswith(" ★") and not shown["ndcg", "11"][2].endswith("★")


def test_one_model_or_no_test_prints_the_means_alone(capsys, movies):
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), "--run",
                 str(MOVIES / "popularity.parquet"), *RELEVANCE, "--cutoffs", "10",
                 "--format", "table"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("users averaged: popularity 1940\n")
    assert "★" not in out and "significantly" not in out
    # an engine that keeps no per-user values (Spark) says why nothing is marked
    args = argparse.Namespace(format="table", per_user=False, test="randomization",
                              correction="holm", confidence=0.95)
    text = render_results(movies.summary(["ndcg"], [10]), args, movies.conventions,
                          movies.relevance, movies, tested=False)
    assert text.splitlines()[0].startswith("users averaged:") and "★" not in text
    assert text.endswith("No significance marks: --engine spark keeps no per-user values to "
                         "test (--engine local tests them).\n")


def test_csv_json_and_latex_carry_no_headline_or_marks(capsys):
    args = ["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), *RUNS, *RELEVANCE,
            "--cutoffs", "10", "--metrics", "ndcg,recall"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "model,metric,cutoff,value,users"
    assert len(pd.read_csv(io.StringIO(out))) == 6 and "★" not in out
    assert main([*args, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"relevance", "conventions", "users", "results"}
    assert main([*args, "--format", "latex", "--test", "t"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(r"\begin{table}") and "★" not in out and "best on" not in out
