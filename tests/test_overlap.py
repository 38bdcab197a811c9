"""Work run beside other work (rankmetrics.overlap) and the command line that uses it: the
ground truth is read beside the first model file and each check against the ground truth runs
beside the next step, yet messages and errors come as if everything ran one after another."""

from __future__ import annotations

import threading

import pytest

import rankmetrics.cli.evaluate as evaluate_command
from rankmetrics.overlap import Outcome
from tests.test_cli import IO_FILES, run_cli


@pytest.fixture(autouse=True)
def _overlapping(monkeypatch):
    monkeypatch.delenv("RANKMETRICS_OVERLAP", raising=False)


def test_an_outcome_hands_over_the_value_or_raises_the_error_in_the_callers_thread():
    assert Outcome(lambda: 6 * 7, beside=True).get() == 42
    assert Outcome(lambda: 6 * 7).get() == 42

    def fail() -> None:
        raise ValueError("bad.csv, row 3: score 'abc' is not a number")

    for beside in (True, False):
        failed = Outcome(fail, beside=beside)
        with pytest.raises(ValueError, match="row 3: score 'abc'"):
            failed.get()
        with pytest.raises(ValueError, match="row 3: score 'abc'"):  # and again
            failed.get()


def test_work_beside_runs_while_the_caller_goes_on_and_work_here_runs_at_once():
    caller_went_on = threading.Event()
    beside = Outcome(lambda: caller_went_on.wait(timeout=10), beside=True)
    caller_went_on.set()  # the work is waiting for this: it cannot have run in this thread
    assert beside.get() is True
    ran: list[str] = []
    here = Outcome(lambda: ran.append(threading.current_thread().name))
    assert ran == [threading.current_thread().name]  # before get()
    here.get()
    assert len(ran) == 1


def _record_threads(monkeypatch, *names: str) -> dict[str, list[bool]]:
    """Wrap functions of rankmetrics.cli.evaluate to record, call by call, whether each ran on the
    main thread."""
    calls: dict[str, list[bool]] = {name: [] for name in names}
    for name in names:
        original = getattr(evaluate_command, name)

        def recorded(*args, _name=name, _original=original, **kwargs):
            calls[_name].append(threading.current_thread() is threading.main_thread())
            return _original(*args, **kwargs)

        monkeypatch.setattr(evaluate_command, name, recorded)
    return calls


def test_the_ground_truth_is_read_and_each_model_checked_beside_other_work(capsys, monkeypatch):
    calls = _record_threads(monkeypatch, "read_truth", "read_run", "check_against_truth")
    code, out, _ = run_cli(capsys, "--truth", IO_FILES / "qrels.txt",
                           "--run", f"a={IO_FILES / 'run.csv'}",
                           "--run", f"b={IO_FILES / 'run.tsv'}", "--cutoffs", "2")
    assert code == 0 and out.count("\na,") == out.count("\nb,") > 0
    assert calls == {"read_truth": [False], "read_run": [True, True],
                     "check_against_truth": [False, False]}


def test_rankmetrics_overlap_0_runs_every_step_in_turn_with_the_same_output(capsys, monkeypatch):
    arguments = ("--truth", IO_FILES / "qrels.txt", "--run", f"a={IO_FILES / 'run.csv'}",
                 "--run", f"b={IO_FILES / 'run.tsv'}", "--cutoffs", "1,2")
    overlapped = run_cli(capsys, *arguments)
    monkeypatch.setenv("RANKMETRICS_OVERLAP", "0")
    calls = _record_threads(monkeypatch, "read_truth", "read_run", "check_against_truth")
    assert run_cli(capsys, *arguments) == overlapped
    assert calls == {"read_truth": [True], "read_run": [True, True],
                     "check_against_truth": [True, True]}
    assert Outcome(threading.current_thread, beside=True).get() is threading.main_thread()


def test_the_ground_truths_error_comes_first_though_the_model_file_was_read_beside_it(
        capsys, tmp_path):
    truth = tmp_path / "ratings.csv"
    truth.write_text("user,item,rating\nu1,i1,5\nu1,i1,3\n")
    run = tmp_path / "bad_run.csv"
    run.write_text("user,item,score\nu1,007,0.9\nu1,i2,abc\n")
    code, out, err = run_cli(capsys, "--truth", truth, "--run", run)
    assert code == 1 and out == ""
    assert err.count("rankmetrics: error:") == 1
    assert f"--truth {truth}" in err and "ratings.csv" in err and "bad_run.csv" not in err
    code, _, err = run_cli(capsys, "--truth", IO_FILES / "qrels.txt", "--run", run)
    assert code == 1 and "bad_run.csv" in err and "row 3" in err


def test_a_relevance_option_error_comes_before_the_first_model_files(capsys, tmp_path):
    # The relevance options are checked once the ground truth is read, before any model file
    # is looked at: the model file read beside the ground truth must not speak first.
    run = tmp_path / "bad_run.csv"
    run.write_text("user,item,score\nu1,007,0.9\nu1,i2,abc\n")
    code, out, err = run_cli(capsys, "--truth", IO_FILES / "qrels.txt", "--run", run,
                             "--binary", "1", "--threshold", "2")
    assert code == 1 and out == ""
    assert "--binary cannot be combined" in err and "bad_run.csv" not in err


def test_the_last_checks_warnings_and_error_come_before_the_evaluation(capsys, tmp_path):
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\nu1,a,1\nu2,b,1\n")
    run = tmp_path / "run.csv"  # a user the ground truth does not have
    run.write_text("user,item,score\nu1,a,1\nu2,b,1\nstranger,a,1\n")
    code, _, err = run_cli(capsys, "--truth", truth, "--run", run, "--cutoffs", "1")
    assert code == 0
    lines = err.splitlines()
    stranger = next(i for i, line in enumerate(lines) if "stranger" in line)
    conventions = next(i for i, line in enumerate(lines) if "conventions:" in line)
    assert lines[stranger].startswith("rankmetrics: warning:") and stranger < conventions
    strangers = tmp_path / "strangers.csv"
    strangers.write_text("user,item,score\nnobody,a,1\n")
    code, out, err = run_cli(capsys, "--truth", truth, "--run", strangers, "--cutoffs", "1")
    assert code == 1 and out == ""
    assert "none of the 1 users in strangers.csv" in err and "conventions:" not in err


def test_a_duplicate_model_name_comes_after_the_previous_models_check(capsys, tmp_path):
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\nu1,a,1\nu2,b,1\n")
    strangers = tmp_path / "strangers.csv"
    strangers.write_text("user,item,score\nnobody,a,1\n")
    code, _, err = run_cli(capsys, "--truth", truth, "--run", f"m={strangers}",
                           "--run", f"m={IO_FILES / 'run.csv'}", "--cutoffs", "1")
    assert code == 1 and "none of the 1 users in strangers.csv" in err
    assert "Two runs are named" not in err
    code, _, err = run_cli(capsys, "--truth", truth, "--run", f"m={IO_FILES / 'run.csv'}",
                           "--run", f"m={IO_FILES / 'run.csv'}", "--cutoffs", "1")
    assert code == 1 and "Two runs are named 'm'" in err


def test_the_checks_warnings_come_before_those_of_the_beyond_accuracy_files(capsys, tmp_path):
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\nu1,a,1\nu2,b,1\n")
    run = tmp_path / "run.csv"
    run.write_text("user,item,score\nu1,a,1\nu2,b,1\nstranger,a,1\n")
    interactions = tmp_path / "train.csv"
    interactions.write_text("user,item\nu1,a\n,\nu2,b\n")
    code, _, err = run_cli(capsys, "--truth", truth, "--run", run, "--cutoffs", "1",
                           "--metrics", "ndcg,arp", "--interactions", interactions)
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("rankmetrics: warning:")]
    assert ["stranger" in line for line in warnings] == [True, False]
    assert "Skipped 1 empty row" in warnings[1]


def test_an_option_error_found_at_evaluation_comes_after_the_last_checks_warnings(capsys,
                                                                                 tmp_path):
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\nu1,a,1\nu2,b,1\n")
    run = tmp_path / "run.csv"
    run.write_text("user,item,score\nu1,a,1\nu2,b,1\nstranger,a,1\n")
    plans = tmp_path / "plans.csv"
    plans.write_text("user,plan\nu1,free\nu2,paid\n")
    code, out, err = run_cli(capsys, "--truth", truth, "--run", run, "--cutoffs", "1",
                             "--segments", plans)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert "stranger" in lines[-2] and lines[-2].startswith("rankmetrics: warning:")
    assert "--segments needs --segment-by" in lines[-1]
