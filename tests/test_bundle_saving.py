"""Saving a bundle where one was saved before: the folder (or archive) holds the new save's
files only, a folder of other files is never replaced, and a save that fails leaves the
earlier bundle as it was."""

from __future__ import annotations

import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.bundle import _write
from rankmetrics.evaluation import load_bundle

TRUTH = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"], "rating": [1, 1]})
RUN = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "b"], "score": [2, 1, 1]})


@pytest.fixture()
def evaluation():
    return evaluate(TRUTH, {"m": RUN}, max_cutoff=2)


def leftovers(folder):
    return [path.name for path in folder.iterdir() if path.name.startswith(".")]


def test_saving_again_keeps_only_the_new_save_s_files(evaluation, tmp_path):
    people = tmp_path / "people.csv"
    people.write_text("user,plan\nu1,gold\nu2,free\n")
    target = tmp_path / "bundle"
    evaluation.save(target, user_attributes=people)
    assert load_bundle(target).user_attributes is not None
    evaluation.save(target)  # without the user attributes this time
    assert load_bundle(target).user_attributes is None
    assert not (target / "user_attributes").exists()
    assert leftovers(tmp_path) == []


def test_a_folder_of_other_files_is_not_replaced(evaluation, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="folder of other files, not a saved evaluation"):
        evaluation.save(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("name", ["bundle", "bundle.zip"])
def test_a_failed_save_leaves_the_earlier_bundle_whole(evaluation, tmp_path, monkeypatch, name):
    target = tmp_path / name
    evaluation.save(target)
    before = load_bundle(target).summary()
    written = _write.write_bundle

    def fails_midway(folder, **files):
        written(folder, **files)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_write, "write_bundle", fails_midway)
    with pytest.raises(OSError):
        evaluate(TRUTH, {"m": RUN, "n": RUN}, max_cutoff=2).save(target)
    pd.testing.assert_frame_equal(load_bundle(target).summary(), before)
    assert leftovers(tmp_path) == []


def test_saving_again_swaps_the_folders_in_one_step(evaluation, tmp_path, monkeypatch):
    from pathlib import Path

    target = tmp_path / "bundle"
    evaluation.save(target)
    first = target.stat().st_ino

    def no_rename(self, other):  # two renames would leave a moment without a bundle
        raise AssertionError(f"renamed {self} to {other}")

    monkeypatch.setattr(Path, "rename", no_rename)
    evaluation.save(target)
    assert target.stat().st_ino != first  # the new folder, swapped in
    assert load_bundle(target).models == evaluation.models
    assert leftovers(tmp_path) == []
