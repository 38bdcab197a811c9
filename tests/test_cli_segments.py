"""The command line's segment table: the library's table, in every output format."""

from __future__ import annotations

import io
import json

import pandas as pd

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.cli import main
from rankmetrics.io import read_attributes, read_run, read_truth
from rankmetrics.segments import compare_segments, segment_users
from tests.helpers import MOVIES, REPO

SIMPSON = REPO / "data" / "simpson"
MODELS = ("personalized", "top_heavy")


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["evaluate", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def movies_args(*extra: str) -> list[str]:
    runs = [arg for model in MODELS for arg in ("--run", str(MOVIES / f"{model}.parquet"))]
    return ["--truth", str(MOVIES / "ground_truth.csv"), *runs, "--binary", "4",
            "--segments", str(MOVIES / "users.csv"), *extra]


def test_csv_table_is_the_librarys(capsys):
    code, out, err = run_cli(capsys, *movies_args("--segment-by", "plan", "--test", "t"))
    assert code == 0
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {model: read_run(MOVIES / f"{model}.parquet") for model in MODELS}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=100)
    segmentation = segment_users(evaluation, "plan",
                                 attributes=read_attributes(MOVIES / "users.csv"))
    expected = compare_segments(evaluation, segmentation, "ndcg", 10, test="t").table()
    printed = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert printed["segment"].tolist() == expected["segment"].tolist()
    pd.testing.assert_frame_equal(printed[list(MODELS)], expected[list(MODELS)],
                                  check_exact=False, rtol=1e-15)
    assert printed["winner"].tolist() == ["top_heavy", "personalized", "top_heavy"]
    # each row says what it measured, so the file stands on its own
    assert set(printed["metric"]) == {"ndcg"} and set(printed["cutoff"]) == {10}
    assert ("rankmetrics: warning: top_heavy is best overall, but personalized is best for "
            "plan = premium (9% of users), significantly.") in err


def test_table_format_names_the_test_and_the_correction(capsys):
    code, out, _ = run_cli(capsys, *movies_args("--segment-by", "age", "--buckets", "2",
                                                "--correction", "bonferroni",
                                                "--segment-metric", "recall",
                                                "--segment-cutoff", "20", "--format", "table"))
    assert code == 0
    first, header = out.splitlines()[:2]
    assert first.startswith("Recall@20 by age; significant: the winner beats every other "
                            "model (randomization test, Bonferroni correction over all segment "
                            "x pair tests")
    assert header.split() == ["segment", "users", "share", *MODELS, "winner", "significant"]
    assert "18–46" in out and "47–70" in out and "(no value)" in out


def test_json_holds_segments_models_and_the_simpson_warning(capsys):
    code, out, _ = run_cli(
        capsys, "--truth", SIMPSON / "ground_truth.csv", "--run", SIMPSON / "thorough.csv",
        "--run", SIMPSON / "cautious.csv", "--missing-users", "skip",
        "--segments", SIMPSON / "users.csv", "--segment-by", "user_type", "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["baseline"] == "thorough"
    assert [row["segment"] for row in document["segments"]] == ["new", "returning"]
    assert document["warnings"][0].startswith("Simpson's paradox: cautious")
    assert len(document["models"]) == 4


def test_ground_truth_size_needs_no_file(capsys):
    code, out, _ = run_cli(capsys, "--truth", SIMPSON / "ground_truth.csv", "--run",
                           SIMPSON / "thorough.csv", "--run", SIMPSON / "cautious.csv",
                           "--segment-by", "ground-truth size")
    assert code == 0
    assert pd.read_csv(io.StringIO(out))["segment"].tolist() == [1]


def test_mistakes_end_in_one_line(capsys):
    code, _, err = run_cli(capsys, *movies_args())
    assert code == 1
    assert err.endswith("rankmetrics: error: --segments needs --segment-by COLUMN: the column "
                        "to split the users by (or --save, to keep the file in the saved "
                        "evaluation for the dashboard's segments).\n")
    code, _, err = run_cli(capsys, *movies_args("--segment-by", "planet"))
    assert code == 1
    assert ("rankmetrics: error: --segment-by: by= must be one of 'plan', 'country', 'age', "
            "'ground-truth size'. Got 'planet'.") in err
    code, _, err = run_cli(capsys, "--truth", MOVIES / "ground_truth.csv", "--run",
                           MOVIES / "random.parquet", "--run", MOVIES / "top_heavy.parquet",
                           "--segments", MOVIES / "ground_truth.csv", "--segment-by", "x")
    assert code == 1
    assert "--segments" in err and "ground_truth.csv" in err and "user 'u0001' is on rows" in err


def test_activity_from_the_training_interactions(capsys):
    code, out, err = run_cli(
        capsys, "--truth", MOVIES / "ground_truth.csv", "--run", MOVIES / "personalized.parquet",
        "--run", MOVIES / "top_heavy.parquet", "--interactions", MOVIES / "train.csv",
        "--segment-by", "activity", "--buckets", "2", "--test", "t")
    assert code == 0, err
    printed = pd.read_csv(io.StringIO(out))
    assert len(printed) == 2 and printed["users"].sum() == 2000
    code, _, err = run_cli(capsys, "--truth", MOVIES / "ground_truth.csv", "--run",
                           MOVIES / "top_heavy.parquet", "--run", MOVIES / "random.parquet",
                           "--segment-by", "activity")
    assert code == 1 and err.endswith("rankmetrics: error: --segment-by activity needs "
                                      "--interactions FILE: each user's training "
                                      "interactions.\n")


def test_options_of_the_overall_table_are_said_to_be_unused(capsys):
    code, out, err = run_cli(capsys, *movies_args(
        "--segment-by", "plan", "--test", "t", "--metrics", "ndcg,coverage,novelty",
        "--interactions", str(MOVIES / "train.csv")))
    assert code == 0 and out.startswith("segment,users,share,")
    assert ("rankmetrics: warning: --segment-by prints the segment table only (ndcg at K = "
            "10), so --metrics is not used: choose its metric and K with --segment-metric and "
            "--segment-cutoff.") in err
    # the lists are 50 long: no warning about the overall table's default cutoffs (up to 100)
    assert "fewer than 100 recommended items" not in err


def test_no_unused_warning_without_overall_options(capsys):
    code, _, err = run_cli(capsys, *movies_args("--segment-by", "plan", "--test", "t"))
    assert code == 0 and "is not used" not in err and "are not used" not in err
