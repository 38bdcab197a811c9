"""The upload registry's rules, without Streamlit: models are named after their files and
kept unique, renaming refuses empty or taken names, a new ground truth waits until it reads."""

from __future__ import annotations

from dashboard.uploads import Uploads, unique_name


def test_models_are_named_after_their_files_and_kept_unique():
    files = Uploads()
    files.add([("als.csv.gz", b"a"), ("als.parquet", b"b"), ("pop.tsv", b"c")], None)
    assert [spec.name for spec in files.runs] == ["als", "als (2)", "pop"]
    ids = [spec.id for spec in files.runs]
    assert [file_id.split("-")[0] for file_id in ids] == ["upload1", "upload2", "upload3"]
    # a random part too: two tabs on one workspace never number two files alike
    other = Uploads()
    other.add([("als.csv.gz", b"z")], None)
    assert other.runs[0].id != ids[0]
    assert files.runs[0].digest != files.runs[1].digest
    assert files.truth is None and files.truth_candidate is None


def test_renaming_refuses_empty_and_taken_names():
    files = Uploads()
    files.add([("a.csv", b"a"), ("b.csv", b"b")], None)
    first, second = (spec.id for spec in files.runs)
    assert files.rename_run(first, "  ") == "A model needs a name."
    assert files.rename_run(first, "b") == "Another model is already called 'b'."
    assert files.rename_run(first, " ALS v2 ") is None
    assert [spec.name for spec in files.runs] == ["ALS v2", "b"]
    files.remove_run(second)
    assert [spec.name for spec in files.runs] == ["ALS v2"]


def test_a_new_ground_truth_waits_until_accepted_and_rereading_keeps_both():
    files = Uploads()
    files.add([], ("ratings.csv", b"user,item,rating\n"))
    candidate = files.truth_candidate
    assert candidate.kind == "truth" and files.truth is None
    files.accept_truth()
    assert files.truth == candidate and files.truth_candidate is None
    files.read_with(candidate.id, {"user": "query"}, "csv")
    retry = files.truth_candidate
    assert files.truth == candidate  # still in use while the new choice is tried
    assert retry.id != candidate.id and retry.columns == (("user", "query"),)
    assert retry.format == "csv" and retry.digest == candidate.digest
    files.dismiss_truth()
    assert files.truth_candidate is None


def test_reading_a_model_again_changes_only_that_model():
    files = Uploads()
    files.add([("a.csv", b"a"), ("b.csv", b"b")], None)
    files.read_with(files.runs[1].id, {"score": "points"}, None)
    assert [spec.columns for spec in files.runs] == [(), (("score", "points"),)]


def test_unique_name_counts_up():
    assert unique_name("m", []) == "m"
    assert unique_name("m", ["m", "m (2)"]) == "m (3)"


def test_uploads_come_back_from_what_a_workspace_keeps():
    files = Uploads()
    files.add([("a.csv", b"a"), ("b.csv", b"b")], ("truth.csv", b"t"))
    files.accept_truth()
    files.add([], ("new truth.csv", b"n"))
    files.rename_run(files.runs[0].id, "first")
    stored, contents = files.stored()
    assert [(s.kind, s.slot, s.name) for s in stored] == [
        ("truth", "in_use", "truth"), ("truth", "candidate", "new truth"),
        ("run", "in_use", "first"), ("run", "in_use", "b")]
    assert set(contents.values()) == {b"a", b"b", b"t", b"n"}
    again = Uploads.from_stored(stored, contents.__getitem__)
    assert again.runs == files.runs and again.truth == files.truth
    assert again.truth_candidate == files.truth_candidate
    assert [spec.data for spec in again.runs] == [b"a", b"b"]
    assert again.next_id == files.next_id
