"""A saved evaluation (bundle) reads back with the numbers it was saved with: means at every
K, per-user values at the saved cutoffs, user counts, and the raw rows of a reproducible
sample of users; folder and zip archive alike; newer or foreign formats are refused clearly."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, DataError, RelevanceMapping, evaluate, load_bundle
from rankmetrics.bundle import (
    FORMAT_VERSION,
    METADATA,
    bundle_cutoffs,
    content_sha256,
    sample_users,
)
from rankmetrics.cli import main
from rankmetrics.users import worst_users
from tests.helpers import MOVIES, random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    truth, run = random_data(11, ratings="stars", n_users=80)
    _, other = random_data(12, ratings="stars", n_users=80)
    evaluation = evaluate(truth, {"first": run, "second": other}, relevance=STARS,
                          conventions=Conventions.preset("trec_eval"), max_cutoff=40)
    folder = evaluation.save(tmp_path_factory.mktemp("bundle") / "b", chosen_cutoff=7,
                             sample=25)
    return evaluation, folder


def test_means_counts_and_per_user_values_read_back_exactly(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    assert bundle.models == ["first", "second"]
    assert bundle.cutoffs == [1, 3, 5, 7, 10, 20]  # the defaults up to K = 40, and K = 7
    pd.testing.assert_frame_equal(bundle.summary(), evaluation.summary())
    pd.testing.assert_frame_equal(bundle.summary(["ndcg", "r_precision"], [7]),
                                  evaluation.summary(["ndcg", "r_precision"], [7]))
    pd.testing.assert_frame_equal(bundle.user_counts(), evaluation.user_counts())
    for model in bundle.models:
        np.testing.assert_array_equal(bundle.curve(model, "map"), evaluation.curve(model, "map"))
        for metric, cutoff in [("ndcg", 7), ("precision", 1), ("r_precision", None)]:
            pd.testing.assert_series_equal(
                bundle.per_user_at(model, metric, cutoff),
                evaluation.per_user_at(model, metric, cutoff).sort_index())  # users by id
    pd.testing.assert_frame_equal(bundle.paired("mrr", 20),
                                  evaluation.paired("mrr", 20).sort_index())
    assert bundle.relevance == STARS and bundle.conventions == evaluation.conventions
    for model in bundle.models:  # the worst users, with their relevant items, as fresh
        pd.testing.assert_frame_equal(worst_users(bundle, model, "ndcg", 10),
                                      worst_users(evaluation, model, "ndcg", 10))


def test_a_cutoff_without_saved_per_user_values_says_which_are_saved(saved):
    bundle = load_bundle(saved[1])
    with pytest.raises(ValueError, match="K = 1, 3, 5, 7, 10, 20; got cutoff=8"):
        bundle.per_user_at("first", "ndcg", 8)


def test_the_sampled_users_raw_rows_give_their_own_values(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    users = bundle.sampled_users
    assert len(users) == 25
    assert sorted(users) == sorted(sample_users(list(evaluation.truth.users), 25))
    sample = bundle.sample_evaluation
    for model in bundle.models:
        # a user's values depend on the user's own rows only
        ours = sample.per_user_at(model, "ndcg", 10)
        full = evaluation.per_user_at(model, "ndcg", 10).reindex(ours.index)
        np.testing.assert_allclose(ours.to_numpy(), full.to_numpy(), rtol=0, atol=1e-15)


def test_the_sample_is_the_same_users_in_any_order():
    users = [f"user{number}" for number in range(500)]
    first = sample_users(users, 40)
    assert sample_users(users[::-1], 40) == first
    assert len(set(first)) == 40
    assert sample_users(users, 1000) == sample_users(users[::-1], 1000)  # all, in key order


def test_an_archive_holds_the_same_bundle_and_opens_from_bytes(saved, tmp_path):
    evaluation, _ = saved
    archive = evaluation.save(tmp_path / "b.zip", chosen_cutoff=7, sample=25)
    assert zipfile.is_zipfile(archive)
    for opened in (load_bundle(archive), load_bundle(archive.read_bytes())):
        pd.testing.assert_frame_equal(opened.summary(), evaluation.summary())
        pd.testing.assert_series_equal(opened.per_user_at("second", "map", 5),
                                       evaluation.per_user_at("second", "map", 5).sort_index())
        assert len(opened.sampled_users) == 25


def test_a_bundles_content_hash_is_its_archives_or_its_folders_files(saved, tmp_path):
    import shutil

    evaluation, folder = saved
    archive = evaluation.save(tmp_path / "b.zip", chosen_cutoff=7, sample=25)
    expected = hashlib.sha256(archive.read_bytes()).hexdigest()
    assert content_sha256(archive) == content_sha256(archive.read_bytes()) == expected
    copy = shutil.copytree(folder, tmp_path / "copy")
    assert content_sha256(copy) == content_sha256(folder)  # the files, not the folder's name
    (copy / METADATA).write_text((copy / METADATA).read_text() + " ")
    assert content_sha256(copy) != content_sha256(folder)


def _rewrite_metadata(folder, tmp_path, change) -> object:
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in folder.rglob("*"):
        if path.is_file():
            target = copy / path.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    info = json.loads((copy / "evaluation.json").read_text())
    change(info)
    (copy / "evaluation.json").write_text(json.dumps(info))
    return copy


def test_a_newer_format_is_refused_with_what_to_do(saved, tmp_path):
    newer = _rewrite_metadata(saved[1], tmp_path,
                              lambda info: info.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(DataError, match=f"format version {FORMAT_VERSION + 1}.*reads versions "
                       f"1 to {FORMAT_VERSION}. Upgrade rankmetrics"):
        load_bundle(newer)


def test_unknown_formats_and_other_files_are_refused(saved, tmp_path):
    foreign = _rewrite_metadata(saved[1], tmp_path, lambda info: info.update(format="other"))
    with pytest.raises(DataError, match="does not describe a saved rankmetrics evaluation"):
        load_bundle(foreign)
    with pytest.raises(DataError, match="no evaluation.json found"):
        load_bundle(tmp_path)
    with pytest.raises(DataError, match="not a bundle folder or zip archive"):
        load_bundle(b"user,item\n")


def test_bundle_cutoffs_keep_the_defaults_up_to_the_largest_k():
    assert bundle_cutoffs(100) == [1, 3, 5, 10, 20, 50, 100]
    assert bundle_cutoffs(100, chosen=[15]) == [1, 3, 5, 10, 15, 20, 50, 100]
    assert bundle_cutoffs(4) == [1, 3]


def test_the_command_line_saves_what_it_prints(tmp_path, capsys):
    truth, run = MOVIES / "ground_truth.csv", MOVIES / "popularity.parquet"
    code = main(["evaluate", "--truth", str(truth), "--run", f"pop={run}", "--cutoffs", "1,7",
                 "--metrics", "ndcg,map", "--save", str(tmp_path / "b"),
                 "--sample-users", "10"])
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert code == 0
    bundle = load_bundle(tmp_path / "b")
    assert bundle.cutoffs == [1, 3, 5, 7]
    # every main metric is kept, whatever --metrics printed: the dashboard draws them all
    assert set(bundle.metrics) >= {"precision", "recall", "hit_rate", "mrr", "map", "ndcg"}
    saved = bundle.summary(["ndcg", "map"], cutoffs=[1, 7])
    np.testing.assert_allclose(saved["value"], printed["value"], rtol=1e-9)  # CSV: 10 digits
    print_ = bundle.inputs["ground_truth"]
    assert print_.content_hash == hashlib.sha256(truth.read_bytes()).hexdigest()
    assert (print_.rows, print_.users) == (40297, 2000)
    assert bundle.inputs["pop"].content_hash == hashlib.sha256(run.read_bytes()).hexdigest()
    assert len(bundle.sampled_users) == 10
    # the sampled users' rows, as in the files (taken from the read tables' codes)
    rows = pd.read_csv(truth, dtype={"user": str, "item": str})
    expected = rows[rows["user"].isin(bundle.sampled_users)].reset_index(drop=True)
    pd.testing.assert_frame_equal(bundle.sample_truth, expected, check_dtype=False)
    listed = pd.read_parquet(run)
    assert len(bundle.sample_runs) == listed["user"].isin(bundle.sampled_users).sum()


def test_confidence_bands_at_the_saved_cutoffs_equal_a_fresh_evaluations(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    ours = bundle.confidence_bands(["ndcg", "r_precision"], cutoffs=[3, 7, 8], n_bootstrap=50)
    fresh = evaluation.confidence_bands(["ndcg", "r_precision"], cutoffs=[3, 7],
                                        n_bootstrap=50)
    # the same users, resampled with the same seed (in another order: by id, not as read)
    assert list(ours["cutoff"].dropna()) == list(fresh["cutoff"].dropna()) == [3, 7, 3, 7]
    np.testing.assert_allclose(ours["mean"], fresh["mean"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization"])
def test_tests_over_k_of_a_bundle_equal_those_of_every_user(saved, test):
    from rankmetrics.choosing_k.significance import significance_over_k
    from rankmetrics.stats import paired_comparison

    evaluation, folder = saved
    bundle = load_bundle(folder)
    got = significance_over_k(bundle, "map", test=test, correction="bh", n_permutations=500)
    expected = significance_over_k(evaluation, "map", cutoffs=bundle.cutoffs, test=test,
                                   correction="bh", n_permutations=500)
    if test == "randomization":  # the random sign flips follow the users' order: a bundle
        # keeps them sorted by id, so its p-values are those of every user taken in that order
        expected = pd.concat([
            paired_comparison(evaluation.paired("map", cutoff).sort_index(), test=test,
                              correction="bh", n_permutations=500).assign(cutoff=cutoff)
            for cutoff in bundle.cutoffs], ignore_index=True)[list(got.columns)]
    assert got["cutoff"].unique().tolist() == [1, 3, 5, 7, 10, 20]
    pd.testing.assert_frame_equal(got.drop(columns=["statistic", "p_value", "p_corrected"]),
                                  expected.drop(columns=["statistic", "p_value", "p_corrected"]),
                                  check_exact=False, rtol=0, atol=1e-12)
    for column in ("statistic", "p_value", "p_corrected"):
        np.testing.assert_allclose(got[column], expected[column], rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="has no cutoff"):
        significance_over_k(bundle, "r_precision")


def test_a_user_attributes_file_is_kept_as_it_was(saved, tmp_path):
    evaluation, folder = saved
    assert load_bundle(folder).user_attributes is None
    attributes = tmp_path / "people.tsv"
    attributes.write_bytes(b"user\tplan\nu1\tfree\n")
    kept = evaluation.save(tmp_path / "with", user_attributes=attributes, sample=5)
    assert load_bundle(kept).user_attributes == ("people.tsv", attributes.read_bytes())
