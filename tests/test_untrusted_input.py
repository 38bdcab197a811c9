"""Input meant to break things: grades whose gain overflows, cutoffs far beyond the data,
ids that are spreadsheet formulas or terminal escape sequences, huge values in messages.

The command line runs as a subprocess with a memory limit and a timeout, so a regression
fails here instead of taking the machine (or CI) down.
"""

from __future__ import annotations

import io
import math
import resource
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rankmetrics.errors import DataError
from rankmetrics.evaluation import evaluate
from rankmetrics.export import quote_formula, to_csv
from rankmetrics.relevance import MAX_GRADE, RelevanceMapping
from tests.helpers import REPO

IO_FILES = REPO / "tests" / "data" / "io"
MEMORY_LIMIT = 2 << 30  # bytes of address space the command may use
TIME_LIMIT = 120  # seconds


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def cli(*args: object) -> subprocess.CompletedProcess:
    """``rankmetrics evaluate ARGS`` in a subprocess with bounded memory and time."""
    return subprocess.run(
        [sys.executable, "-m", "rankmetrics", "evaluate", *map(str, args)],
        capture_output=True, text=True, timeout=TIME_LIMIT, preexec_fn=_limit_memory,
        cwd=REPO,
    )


def error_line(result: subprocess.CompletedProcess) -> str:
    """The one error line of a failed run (and that it is the only thing wrong)."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, result.stderr
    return errors[0]


def table(result: subprocess.CompletedProcess) -> pd.DataFrame:
    assert result.returncode == 0, result.stderr
    return pd.read_csv(io.StringIO(result.stdout))


# ----- grades whose gain cannot be represented -------------------------------------------


def test_a_grade_whose_gain_overflows_is_refused_naming_the_largest():
    result = cli("--truth", IO_FILES / "truth.csv", "--run", IO_FILES / "run.csv",
                 "--grades", "2=2000,1=1")
    line = error_line(result)
    assert "--grades" in line and "2000" in line and str(MAX_GRADE) in line


def test_a_negative_grade_is_refused():
    result = cli("--truth", IO_FILES / "truth.csv", "--run", IO_FILES / "run.csv",
                 "--grades", "2=-3,1=1")
    line = error_line(result)
    assert "--grades" in line and "-3" in line and "negative" in line


def test_the_largest_grade_gives_finite_values_in_the_library():
    truth = pd.DataFrame({"user": ["u"] * 3, "item": list("abc"), "rating": [5, 4, 1]})
    run = pd.DataFrame({"user": ["u"] * 3, "item": list("cba"), "score": [3, 2, 1]})
    mapping = RelevanceMapping.graded({5: MAX_GRADE, 4: MAX_GRADE, 1: 1})
    ev = evaluate(truth, {"m": run}, relevance=mapping, max_cutoff=3)
    for metric in ("dcg", "ndcg"):
        assert np.isfinite(ev.curve("m", metric)).all()
    with pytest.raises(ValueError, match=str(MAX_GRADE)):
        RelevanceMapping.graded({5: MAX_GRADE + 1})
    with pytest.raises(ValueError, match="negative"):
        RelevanceMapping.graded({5: 3, 1: -1})


def test_ratings_used_as_grades_above_the_largest_are_refused():
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "rating": [2000, 1]})
    run = pd.DataFrame({"user": ["u"], "item": ["a"], "score": [1.0]})
    with pytest.raises(ValueError, match=f"2000.*{MAX_GRADE}"):
        evaluate(truth, {"m": run}, max_cutoff=2).curve("m", "ndcg")


def test_junk_grades_of_minus_one_still_count_as_no_gain():
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "rating": [-1, 1]})
    run = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "score": [2.0, 1.0]})
    ndcg = evaluate(truth, {"m": run}, max_cutoff=2).curve("m", "ndcg")
    assert ndcg[1] == pytest.approx(1 / math.log2(3))


# ----- cutoffs far beyond the data -------------------------------------------------------


def test_a_huge_cutoff_on_tiny_data_takes_little_memory():
    result = cli("--truth", IO_FILES / "qrels.txt", "--run", IO_FILES / "run.csv",
                 "--preset", "trec_eval", "--metrics", "precision,recall,ndcg,map,dcg",
                 "--cutoffs", "2,100000000")
    values = table(result).set_index(["metric", "cutoff"])["value"]
    assert values["precision", 100000000] == pytest.approx(values["precision", 2] * 2 / 1e8)
    for metric in ("recall", "ndcg", "map", "dcg"):
        assert values[metric, 100000000] == values[metric, 2]


@pytest.mark.parametrize("option", ["--cutoffs", "--max-cutoff"])
def test_an_absurd_cutoff_is_one_line_naming_the_option_and_range(option):
    result = cli("--truth", IO_FILES / "qrels.txt", "--run", IO_FILES / "run.csv",
                 option, "100000000000000000000")
    line = error_line(result)
    assert option in line and "100000000000000000000" in line and "[1, " in line


def _random_data(seed: int, n_users: int = 30) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ground truths longer than the lists (|R| up to 12, lists up to 6), graded 0-3."""
    rng = np.random.default_rng(seed)
    truth_rows, run_rows = [], []
    for user in range(n_users):
        items = rng.permutation(40)
        for item in items[:rng.integers(1, 13)]:
            truth_rows.append((f"u{user}", f"i{item}", int(rng.integers(0, 4))))
        for rank, item in enumerate(rng.permutation(40)[:rng.integers(0, 7)]):
            run_rows.append((f"u{user}", f"i{item}", 10.0 - rank))
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rating"])
    run = pd.DataFrame(run_rows, columns=["user", "item", "score"])
    return truth, run


@pytest.mark.parametrize("preset", ["default", "trec_eval", "retrieved_ideal"])
@pytest.mark.parametrize("ap_denominator", ["relevant", "min_k_relevant", "hits"])
def test_values_beyond_the_data_equal_computing_every_cutoff(preset, ap_denominator):
    from rankmetrics.conventions import Conventions

    truth, run = _random_data(7)
    conventions = Conventions.preset(preset, ap_denominator=ap_denominator)
    far = evaluate(truth, {"m": run}, conventions=conventions, max_cutoff=10**9)
    full = evaluate(truth, {"m": run}, conventions=conventions, max_cutoff=40)
    assert far.width <= 40
    cutoffs = [1, 3, 6, 7, 12, 13, 40]
    for metric in ("precision", "recall", "hit_rate", "mrr", "map", "dcg", "ndcg",
                   "r_precision"):
        near, beyond = (ev.summary([metric], cutoffs) for ev in (full, far))
        np.testing.assert_allclose(beyond["value"], near["value"], rtol=1e-12, err_msg=metric)
        per_near, per_far = (ev.per_user_table([metric], cutoffs) for ev in (full, far))
        np.testing.assert_allclose(per_far["value"], per_near["value"], rtol=1e-12)
    np.testing.assert_allclose(far.per_user_at("m", "ndcg", 40), full.per_user("m", "ndcg")[40])
    huge = far.summary(["precision", "ndcg"], [10**9]).set_index("metric")["value"]
    assert huge["precision"] == pytest.approx(full.curve("m", "precision")[39] * 40 / 1e9)
    assert huge["ndcg"] == full.curve("m", "ndcg")[39]


def test_the_ndcg_breakdown_at_a_huge_cutoff_equals_the_one_at_the_list_length():
    from rankmetrics.explain import explain_ndcg

    truth, run = _random_data(3, n_users=1)
    near, far = (explain_ndcg(truth, run, "u0", cutoff=k) for k in (40, 10**12))
    assert (far.dcg, far.idcg) == (near.dcg, near.idcg)
    pd.testing.assert_frame_equal(far.ideal, near.ideal)


# ----- text that reaches other tools -----------------------------------------------------

FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd", "@SUM(A1:A2)", "-2+3", "\tx"]


def test_formula_like_text_cells_are_quoted_and_numbers_kept():
    assert quote_formula("\rx") == "'\rx"
    frame = pd.DataFrame({"user": [*FORMULAS, "plain"], "value": [-1.5, 2, 3, 4, 5, -7]})
    written = pd.read_csv(io.StringIO(to_csv(frame)), keep_default_na=False)
    assert written["user"].tolist() == [f"'{text}" for text in FORMULAS] + ["plain"]
    assert written["value"].tolist() == [-1.5, 2, 3, 4, 5, -7]
    raw = pd.read_csv(io.StringIO(to_csv(frame, formulas="raw")), keep_default_na=False)
    assert raw["user"].tolist()[:4] == FORMULAS[:4]


def test_per_user_csv_from_the_command_line_is_safe_for_spreadsheets(tmp_path):
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\n\"=HYPERLINK(\"\"http://x\"\")\",@SUM(1),1\n"
                     "-2+3,+cmd,1\n", encoding="utf-8")
    run = tmp_path / "run.csv"
    run.write_text("user,item,score\n\"=HYPERLINK(\"\"http://x\"\")\",@SUM(1),1\n"
                   "-2+3,+cmd,-1\n", encoding="utf-8")
    base = ("--truth", truth, "--run", f"m={run}", "--per-user", "--metrics", "ndcg",
            "--cutoffs", "1", "--threshold", "1")
    users = table(cli(*base))["user"].tolist()
    assert sorted(users) == sorted(["'=HYPERLINK(\"http://x\")", "'-2+3"])
    raw = table(cli(*base, "--csv-formulas", "raw"))["user"].tolist()
    assert sorted(raw) == sorted(["=HYPERLINK(\"http://x\")", "-2+3"])


# ----- messages ------------------------------------------------------------------------


def test_control_characters_in_messages_are_shown_escaped():
    error = DataError("unknown id '\x1b]0;owned\x07\x1b[2J\x9b\nnext'", file="a\x1bb.csv",
                      column="us\rer")
    text = str(error)
    assert "\\x1b]0;owned\\x07\\x1b[2J\\x9b\\nnext" in text
    assert "a\\x1bb.csv" in text and "us\\rer" in text
    assert not any(ord(char) < 32 or 127 <= ord(char) < 160 for char in text)


def test_long_values_in_messages_are_cut():
    error = DataError(f"the header '{'h' * 1_000_000}' names no user column", file="x.csv")
    text = str(error)
    assert len(text) < 400 and "…" in text and text.endswith("' names no user column")


def test_escape_sequences_from_a_file_do_not_reach_the_terminal(tmp_path):
    run = tmp_path / "run.jsonl"
    line = '{"user": "\\u001b]0;owned\\u0007\\u009b\\u001b[2J", "item": "i", "score": 1}\n'
    run.write_text(line * 2, encoding="utf-8")
    result = cli("--truth", IO_FILES / "qrels.txt", "--run", run)
    error = error_line(result)
    assert not any(char in result.stderr for char in "\x1b\x07\x9b")
    assert "\\x1b]0;owned\\x07\\x9b\\x1b[2J" in error


@pytest.mark.parametrize("header", ["h" * 1_000_000, "user,item," + "r" * 1_000_000])
def test_a_huge_header_gives_a_short_error_line(tmp_path, header):
    truth = tmp_path / "truth.csv"
    truth.write_text(header + "\nu,i,1\n", encoding="utf-8")
    line = error_line(cli("--truth", truth, "--run", IO_FILES / "run.csv"))
    assert len(line) < 1000 and "…" in line


def test_a_run_option_without_a_file_names_the_option():
    line = error_line(cli("--truth", IO_FILES / "qrels.txt", "--run", "m="))
    assert "--run m=" in line and "no file" in line


def test_a_run_option_naming_a_folder_names_the_option(tmp_path):
    line = error_line(cli("--truth", IO_FILES / "qrels.txt", "--run", f"m={tmp_path}"))
    assert f"--run m={tmp_path}" in line
