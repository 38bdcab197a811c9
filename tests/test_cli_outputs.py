"""What the command line writes: never one of its own inputs, a full disk said in one sentence
that names the file, a file written whole or not at all, and Ctrl+C without a traceback."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from rankmetrics import cli
from rankmetrics.cli import main
from tests.helpers import MOVIES

TEXTBOOK = Path(__file__).resolve().parents[1] / "data" / "textbook"


@pytest.fixture()
def files(tmp_path):
    """The textbook example's ground truth and ranking, copied where they may be harmed."""
    for name in ("ground_truth.csv", "recommended.csv"):
        shutil.copy(TEXTBOOK / name, tmp_path / name)
    return tmp_path


def evaluate_args(folder: Path, *more: str) -> list[str]:
    return ["evaluate", "--truth", str(folder / "ground_truth.csv"),
            "--run", f"model={folder / 'recommended.csv'}", *more]


@pytest.mark.parametrize("option, target, flag", [
    ("--output", "ground_truth.csv", "--truth"),
    ("--output", "recommended.csv", "--run"),
    ("--save", "ground_truth.csv", "--truth"),
])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(files, capsys, option,
                                                                   target, flag):
    before = {path.name: path.read_bytes() for path in files.iterdir()}
    code = main(evaluate_args(files, option, str(files / target)))
    err = capsys.readouterr().err
    assert code == 1
    assert f"{option} {files / target} is the {flag} file" in err
    assert "Choose another file to write." in err and "Traceback" not in err
    assert {path.name: path.read_bytes() for path in files.iterdir()} == before


def test_a_link_to_an_input_is_the_input(files, capsys):
    (files / "link.csv").symlink_to(files / "ground_truth.csv")
    code = main(evaluate_args(files, "--output", str(files / "link.csv")))
    assert code == 1 and "is the --truth file" in capsys.readouterr().err


def test_saving_into_the_folder_of_the_inputs_is_refused(files, capsys):
    code = main(evaluate_args(files, "--save", str(files)))
    err = capsys.readouterr().err
    assert code == 1 and f"--save {files} is a folder holding the --truth file" in err
    assert sorted(path.name for path in files.iterdir()) == ["ground_truth.csv",
                                                            "recommended.csv"]


def test_the_report_of_a_bundle_does_not_write_over_the_bundle(files, capsys):
    bundle = files / "saved.zip"
    assert main(evaluate_args(files, "--save", str(bundle))) == 0
    saved = bundle.read_bytes()
    capsys.readouterr()
    code = main(["report", "--bundle", str(bundle), "--output", str(bundle)])
    assert code == 1 and "is the --bundle file" in capsys.readouterr().err
    assert bundle.read_bytes() == saved


def test_other_files_are_written_as_before(files, capsys):
    out = files / "results.csv"
    assert main(evaluate_args(files, "--output", str(out))) == 0
    assert out.read_text().startswith("model,metric,cutoff,value")
    assert [path.name for path in files.iterdir() if "partial" in path.name] == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_disk_is_one_sentence_naming_the_file(files, capsys):
    code = main(evaluate_args(files, "--output", "/dev/full"))
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines()[-1] == (
        "rankmetrics: error: Could not write --output /dev/full: there is no space left on "
        "the device: free some space or write elsewhere.")
    assert "Errno" not in err and "Traceback" not in err


def test_a_failed_write_keeps_the_old_file_whole(files, capsys, monkeypatch):
    out = files / "results.csv"
    out.write_text("the results of yesterday\n")

    def full(*_):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    code = main(evaluate_args(files, "--output", str(out)))
    assert code == 1 and "no space left on the device" in capsys.readouterr().err
    assert out.read_text() == "the results of yesterday\n"
    assert sorted(path.name for path in files.iterdir()) == ["ground_truth.csv",
                                                            "recommended.csv", "results.csv"]


def test_ctrl_c_stops_in_one_line(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_evaluate", interrupted)
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
                 "--run", str(MOVIES / "random.parquet")])
    assert code == 130
    assert capsys.readouterr().err == "rankmetrics: interrupted\n"


def test_a_full_disk_while_saving_is_one_sentence_naming_the_save(files, capsys,
                                                                  monkeypatch):
    import rankmetrics.bundle._write as write

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(write, "saved_in_place", full)
    code = main(evaluate_args(files, "--save", str(files / "saved")))
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines()[-1] == (
        f"rankmetrics: error: Could not save --save {files / 'saved'}: there is no space left "
        "on the device: free some space or save elsewhere.")
    assert "Errno" not in err and "Traceback" not in err
