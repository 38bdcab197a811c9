"""The command line: every demo data set, every file format, the output formats and errors."""

from __future__ import annotations

import gzip
import io
import json
import math
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from rankmetrics.cli import main
from tests.helpers import MOVIES, REPO, TEXTBOOK

IO_FILES = REPO / "tests" / "data" / "io"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["evaluate", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def summary(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


def value(table: pd.DataFrame, model: str, metric: str, cutoff: int) -> float:
    row = table[(table.model == model) & (table.metric == metric) & (table.cutoff == cutoff)]
    assert len(row) == 1, (model, metric, cutoff)
    return float(row.value.iloc[0])


# Every run file below ranks u1: 007, i2 and u2: i1, 007 (the list files add i12 at rank 3).
# qrels.txt: u1 {007: 1, i3: 0}, u2 {i1: 2, i9: 1}; trec_eval preset, grade >= 1 relevant.
# u1: rel = 1, 0  |R| = 1   DCG@2 = 1                     IDCG@2 = 1
# u2: rel = 1, 0  |R| = 2   DCG@2 = 2 (linear gain of 2)   IDCG@2 = 2 + 1 / log2(3)
EXPECTED = {
    ("precision", 1): 1.0,
    ("precision", 2): (1 / 2 + 1 / 2) / 2,
    ("recall", 2): (1 / 1 + 1 / 2) / 2,
    ("mrr", 2): 1.0,
    ("map", 2): (1 / 1 + 1 / 2) / 2,
    ("ndcg", 2): (1 / 1 + 2 / (2 + 1 / math.log2(3))) / 2,
}


def _compressed_and_parquet(tmp_path: Path) -> list[Path]:
    table = pd.read_csv(IO_FILES / "run.csv", dtype=str)
    parquet = tmp_path / "run.parquet"
    table.assign(prediction=table.prediction.astype(float)).to_parquet(parquet)
    gz = tmp_path / "run.csv.gz"
    gz.write_bytes(gzip.compress((IO_FILES / "run.csv").read_bytes()))
    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(IO_FILES / "run.csv", "run.csv")
    return [parquet, gz, archive]


@pytest.mark.parametrize(
    "run_file",
    ["run.csv", "run.tsv", "run_semicolon.csv", "run.jsonl", "run_trec.txt", "list_run.csv",
     "list_run.jsonl", "parquet", "csv.gz", "zip"],
)
def test_every_format_gives_the_hand_computed_values(capsys, tmp_path, run_file):
    extra = {p.name.split(".", 1)[1]: p for p in _compressed_and_parquet(tmp_path)}
    path = extra[run_file] if run_file in extra else IO_FILES / run_file
    code, out, err = run_cli(
        capsys, "--truth", IO_FILES / "qrels.txt", "--run", f"model={path}",
        "--preset", "trec_eval", "--threshold", "1", "--cutoffs", "1,2",
        "--metrics", "precision,recall,mrr,map,ndcg",
    )
    assert code == 0, err
    table = summary(out)
    assert list(table.columns) == ["model", "metric", "cutoff", "value", "users"]
    assert set(table.users) == {2}
    for (metric, cutoff), expected in EXPECTED.items():
        assert value(table, "model", metric, cutoff) == pytest.approx(expected, abs=1e-9)


def test_textbook_numbers(capsys):
    code, out, _ = run_cli(
        capsys, "--truth", TEXTBOOK / "ground_truth.csv",
        "--run", TEXTBOOK / "recommended.csv", "--run", TEXTBOOK / "c_at_position_5.csv",
        "--cutoffs", "5", "--metrics", "precision,recall,map,ndcg",
    )
    assert code == 0
    table = summary(out)
    # rel = 1, 0, 1, 0, 0 against 5 liked items; ideal from all ground truth
    assert value(table, "recommended", "precision", 5) == pytest.approx(2 / 5)
    assert value(table, "recommended", "recall", 5) == pytest.approx(2 / 5)
    assert value(table, "recommended", "map", 5) == pytest.approx((1 + 2 / 3) / 5)
    idcg = sum(1 / math.log2(i + 1) for i in range(1, 6))
    assert value(table, "recommended", "ndcg", 5) == pytest.approx(1.5 / idcg)
    code, out, _ = run_cli(
        capsys, "--truth", TEXTBOOK / "ground_truth.csv",
        "--run", TEXTBOOK / "recommended.csv", "--run", TEXTBOOK / "c_at_position_5.csv",
        "--cutoffs", "5", "--metrics", "ndcg", "--preset", "retrieved_ideal",
    )
    table = summary(out)
    retrieved_idcg = 1 + 1 / math.log2(3)
    assert value(table, "recommended", "ndcg", 5) == pytest.approx(1.5 / retrieved_idcg)
    # rel = 1, 0, 0, 0, 1: C at position 5 is discounted by log2(6), not log2(5)
    c_at_5 = (1 + 1 / math.log2(6)) / retrieved_idcg
    assert value(table, "c_at_position_5", "ndcg", 5) == pytest.approx(c_at_5)
    assert round(c_at_5, 4) == 0.8503


def test_graded_textbook_example(capsys):
    code, out, _ = run_cli(
        capsys, "--truth", TEXTBOOK / "graded_ground_truth.csv",
        "--run", TEXTBOOK / "graded_ranking.csv", "--preset", "trec_eval", "--threshold", "1",
        "--cutoffs", "3,5", "--metrics", "ndcg,map,precision,recall",
    )
    assert code == 0
    table = summary(out)
    assert round(value(table, "graded_ranking", "ndcg", 3), 4) == 0.5025
    assert round(value(table, "graded_ranking", "ndcg", 5), 4) == 0.6650
    assert round(value(table, "graded_ranking", "map", 5), 4) == 0.5889
    assert value(table, "graded_ranking", "precision", 5) == pytest.approx(0.6)
    assert value(table, "graded_ranking", "recall", 5) == pytest.approx(1.0)


def test_movies_demo_matches_the_library_on_the_same_files(capsys):
    from rankmetrics import Conventions, RelevanceMapping, evaluate

    runs = [MOVIES / f"{name}.parquet" for name in
            ("popularity", "personalized", "top_heavy", "random")]
    code, out, err = run_cli(
        capsys, "--truth", MOVIES / "ground_truth.csv", *sum((["--run", r] for r in runs), []),
        "--cutoffs", "1,10,50",
    )
    assert code == 0
    assert "1-5 stars" in err  # the suggested mapping is reported
    table = summary(out)
    truth = pd.read_csv(MOVIES / "ground_truth.csv", dtype={"user": str, "item": str})
    expected = evaluate(
        truth, {r.stem: pd.read_parquet(r) for r in runs},
        relevance=RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),
        conventions=Conventions(), max_cutoff=50,
    ).summary(["precision", "recall", "hit_rate", "mrr", "map", "ndcg"], [1, 10, 50])
    merged = table.merge(expected, on=["model", "metric", "cutoff"], suffixes=("", "_lib"))
    assert len(merged) == len(expected) == 4 * 6 * 3
    assert (merged.value - merged.value_lib).abs().max() < 1e-9
    assert (merged.users == merged.users_lib).all()
    assert set(table.users) == {1940}  # 60 of 2,000 users have no 4 or 5 star rating


def test_default_cutoffs_warn_only_about_lists_shorter_than_the_others(capsys):
    # every list of the demo is 50 long: the default cutoffs (up to 100) are not a choice to
    # warn about; asking for K = 100 is
    args = ["--truth", MOVIES / "ground_truth.csv", "--run", MOVIES / "popularity.parquet"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0 and "popularity,precision,100," in out
    assert "recommended items" not in err
    code, _, err = run_cli(capsys, *args, "--cutoffs", "10,100")
    assert code == 0
    assert ("2000 of 2000 users in popularity.parquet have fewer than 100 recommended items "
            "(the shortest list has 50)") in err


def test_per_user_json_and_table_formats(capsys, tmp_path):
    args = ["--truth", IO_FILES / "qrels.txt", "--run", f"m={IO_FILES / 'run.csv'}",
            "--preset", "trec_eval", "--cutoffs", "2", "--metrics", "ndcg"]
    code, out, _ = run_cli(capsys, *args, "--per-user")
    per_user = summary(out)
    assert list(per_user.columns) == ["model", "user", "metric", "cutoff", "value"]
    assert dict(zip(per_user.user, per_user.value, strict=True)) == pytest.approx(
        {"u1": 1.0, "u2": 2 / (2 + 1 / math.log2(3))}
    )
    target = tmp_path / "out.json"
    code, out, _ = run_cli(capsys, *args, "--format", "json", "--output", target)
    assert code == 0 and out == ""
    document = json.loads(target.read_text())
    assert document["conventions"]["gain"] == "linear"
    assert document["results"][0]["value"] == pytest.approx(EXPECTED[("ndcg", 2)])
    code, out, _ = run_cli(capsys, *args, "--format", "table")
    assert "users averaged: m 2" in out and "0.8801" in out


def test_per_user_r_precision_has_an_empty_cutoff(capsys):
    """The textbook list A B C D E with A, C relevant and |R| = 5: R-Precision 2/5."""
    code, out, _ = run_cli(capsys, "--truth", TEXTBOOK / "ground_truth.csv", "--run",
                           f"a={TEXTBOOK / 'recommended.csv'}", "--per-user", "--metrics",
                           "r_precision,precision", "--cutoffs", "1,5")
    assert code == 0
    table = summary(out)
    assert table[["metric", "value"]].values.tolist() == [
        ["r_precision", 0.4], ["precision", 1.0], ["precision", 0.4]]
    assert table.cutoff.isna().tolist() == [True, False, False]


def test_explicit_options_override_the_preset(capsys):
    args = ["--truth", IO_FILES / "qrels.txt", "--run", f"m={IO_FILES / 'run.csv'}",
            "--preset", "trec_eval", "--cutoffs", "2", "--metrics", "ndcg"]
    _, linear, _ = run_cli(capsys, *args)
    _, exponential, _ = run_cli(capsys, *args, "--gain", "exponential")
    # u2's grade-2 item gains 2 (linear) or 2^2 - 1 = 3 (exponential)
    u2 = 3 / (3 + 1 / math.log2(3))
    assert value(summary(exponential), "m", "ndcg", 2) == pytest.approx((1 + u2) / 2)
    assert value(summary(linear), "m", "ndcg", 2) != value(summary(exponential), "m", "ndcg", 2)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("user,item,score\nu1,007,0.9\nu1,i2,abc\n", ["bad_run.csv", "row 3", "score", "abc"]),
        ("user,item,score\nu1,007,0.9\nu1,007,0.5\n", ["bad_run.csv", "007", "more than once"]),
        ("user,thing\nu1,007\n", ["bad_run.csv", "thing"]),
        ("", ["bad_run.csv", "empty"]),
    ],
)
def test_bad_input_is_one_line_and_exit_code_1(capsys, tmp_path, content, expected):
    bad = tmp_path / "bad_run.csv"
    bad.write_text(content)
    code, out, err = run_cli(capsys, "--truth", IO_FILES / "qrels.txt", "--run", bad)
    assert code == 1
    assert out == ""
    errors = [line for line in err.splitlines() if line.startswith("rankmetrics: error:")]
    assert len(errors) == 1
    for fragment in expected:
        assert fragment in errors[0]
    assert "Traceback" not in err


def test_module_entry_point_never_shows_a_traceback(tmp_path):
    bad = tmp_path / "ratings.csv"
    bad.write_text("user,item,rating\nu1,i1,5\nu1,i1,3\n")
    result = subprocess.run(
        [sys.executable, "-m", "rankmetrics", "evaluate", "--truth", str(bad),
         "--run", str(IO_FILES / "run.csv")],
        capture_output=True, text=True, cwd=REPO, check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "ratings.csv" in result.stderr and "rated 5 (row 2) and 3 (row 3)" in result.stderr


def test_bad_option_values_are_reported(capsys):
    code, _, err = run_cli(capsys, "--truth", IO_FILES / "qrels.txt", "--run",
                           IO_FILES / "run.csv", "--cutoffs", "1,x")
    assert code == 1 and "--cutoffs" in err
    code, _, err = run_cli(capsys, "--truth", IO_FILES / "qrels.txt", "--run",
                           IO_FILES / "run.csv", "--metrics", "ndgc")
    assert code == 1 and "The 'metric' argument must be one of 'precision'," in err
    assert "Got 'ndgc' instead." in err


def test_our_programs_ask_numpy_and_linux_for_ordinary_pages(monkeypatch):
    from numpy._core import multiarray

    from rankmetrics import runtime

    calls = []
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    monkeypatch.setattr(multiarray, "_set_madvise_hugepage", lambda on: calls.append(on) or on)
    monkeypatch.setattr(runtime, "no_huge_pages_for_process",
                        lambda: calls.append("process") or True)
    assert runtime.prefer_ordinary_pages() and calls == [False, "process"]
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    assert not runtime.prefer_ordinary_pages() and calls == [False, "process"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux process setting")
def test_linux_stops_huge_pages_for_the_process_that_asks():
    # in a child process: the setting lasts for the process's life
    code = ("import ctypes; from rankmetrics.runtime import no_huge_pages_for_process; "
            "assert no_huge_pages_for_process(); "
            "print(ctypes.CDLL(None).prctl(42, 0, 0, 0, 0))")  # PR_GET_THP_DISABLE
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=REPO)
    assert shown.stdout.strip() == "1"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a glibc process setting")
@pytest.mark.parametrize("keep", [False, True])
def test_the_program_keeps_freed_memory_for_reuse_and_the_library_does_not(keep):
    # In a child process: a freed 200 MB array goes back to Linux unless the process asked
    # to keep freed memory, as the command line's program does.
    code = ("import numpy as np; from rankmetrics import runtime; "
            f"agreed = runtime.keep_freed_memory() if {keep} else False; "
            "rss = lambda: int(open('/proc/self/statm').read().split()[1]) * 4096; "
            "a = np.ones(25_000_000); before = rss(); del a; "
            "print(agreed, (before - rss()) // 2**20)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=REPO).stdout.split()
    assert shown[0] == str(keep)
    returned_mib = int(shown[1])
    assert returned_mib < 20 if keep else returned_mib > 150


def test_the_program_is_main_in_a_process_that_keeps_freed_memory(monkeypatch):
    from rankmetrics import cli

    calls = []
    monkeypatch.setattr(cli, "keep_freed_memory", lambda: calls.append("kept") or True)
    monkeypatch.setattr(cli, "main", lambda: calls.append("main") or 3)
    with pytest.raises(SystemExit) as ended:
        cli.run()
    assert ended.value.code == 3 and calls == ["kept", "main"]
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["rankmetrics"] == "rankmetrics.cli:run"


def test_model_files_warnings_and_errors_come_in_the_order_of_the_files(capsys, tmp_path):
    # Each model file's own warnings and its check against the ground truth come file by
    # file, and a check's error stops the command before a later file's problem.
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\nu1,a,1\nu2,b,1\nu3,c,1\n")
    one = tmp_path / "one.csv"  # a user the ground truth does not have
    one.write_text("user,item,score\nu1,a,1\nu2,b,1\nu3,c,1\nstranger,a,1\n")
    two = tmp_path / "two.csv"  # no list for u3
    two.write_text("user,item,score\nu1,a,1\nu2,b,1\n")
    for files, expected in (((one, two), ["stranger", "'u3'"]), ((two, one), ["'u3'", "stranger"])):
        runs = sum((["--run", f"{path.stem}={path}"] for path in files), [])
        code, _, err = run_cli(capsys, "--truth", truth, *runs, "--cutoffs", "1")
        assert code == 0
        warnings = [line for line in err.splitlines() if line.startswith("rankmetrics: warning")]
        assert len(warnings) == 2
        assert [word in line for word, line in zip(expected, warnings, strict=True)] == [True] * 2
    strangers = tmp_path / "strangers.csv"
    strangers.write_text("user,item,score\nnobody,a,1\n")
    code, _, err = run_cli(capsys, "--truth", truth, "--run", f"s={strangers}",
                           "--run", f"gone={tmp_path / 'missing.csv'}", "--cutoffs", "1")
    assert code == 1
    assert "none of the 1 users in strangers.csv" in err and "missing.csv" not in err
