"""A saved evaluation with beyond-accuracy inputs holds their results: every metric at every K,
the per-user ones at the saved cutoffs, the popularity deciles, the options and the inputs'
fingerprints, read back equal to the evaluation's own; a bundle of format version 1 (written
before these results were saved) still opens; the command line saves them with --save."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankmetrics import BeyondOptions, RelevanceMapping, evaluate, load_bundle
from rankmetrics.bundle import FORMAT_VERSION
from rankmetrics.cli import main
from rankmetrics.figures.beyond import tradeoff
from rankmetrics.io import read_attributes, read_interactions, read_run, read_truth
from rankmetrics.metrics import LIST_METRICS
from tests.helpers import MOVIE_MODELS, MOVIES, random_data

FORMAT_1 = Path(__file__).resolve().parent / "data" / "bundles" / "format_1.zip"
OPTIONS = BeyondOptions(popularity="users", long_tail="bottom_items", long_tail_share=0.6,
                        distribution="recommended")


def random_beyond_inputs(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training interactions and item attributes (one or two genres) over random_data's
    items i0..i59, with a few items never seen in training."""
    rng = np.random.default_rng(seed)
    items = np.array([f"i{number}" for number in range(55)])
    interactions = pd.DataFrame({"user": [f"t{n}" for n in rng.integers(0, 40, 400)],
                                 "item": rng.choice(items, 400, p=np.linspace(2, 0.1, 55)
                                                    / np.linspace(2, 0.1, 55).sum())})
    genres = np.array(["drama", "comedy", "action", "horror"])
    attributes = pd.DataFrame({"item": [f"i{number}" for number in range(60)],
                               "genres": ["|".join(rng.choice(genres, rng.integers(1, 3),
                                                              replace=False))
                                          for _ in range(60)]})
    return interactions, attributes


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    truth, run = random_data(21, ratings="stars", n_users=60)
    _, other = random_data(22, ratings="stars", n_users=60)
    interactions, attributes = random_beyond_inputs(23)
    evaluation = evaluate(truth, {"first": run, "second": other},
                          relevance=RelevanceMapping.binary(4), max_cutoff=25,
                          interactions=interactions, item_attributes=attributes,
                          beyond_options=OPTIONS)
    folder = evaluation.save(tmp_path_factory.mktemp("bundle") / "b", chosen_cutoff=7,
                             sample=10)
    return evaluation, folder


def test_beyond_results_read_back_equal_to_the_evaluations(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    live = evaluation.beyond
    assert bundle.beyond is not None and live is not None
    assert bundle.beyond.metrics == live.metrics and len(live.metrics) == 16
    assert bundle.beyond.per_user_metrics == live.per_user_metrics == LIST_METRICS
    # every metric at every K, exactly: the table the page and the command line show
    pd.testing.assert_frame_equal(bundle.beyond.summary(), live.summary(), check_exact=True)
    pd.testing.assert_frame_equal(bundle.beyond.summary(["gini", "ild"], [7]),
                                  live.summary(["gini", "ild"], [7]), check_exact=True)
    for model in bundle.models:
        for metric in live.metrics:
            np.testing.assert_array_equal(bundle.beyond.curve(model, metric),
                                          live.curve(model, metric))
            assert bundle.beyond.users(model, metric) == live.users(model, metric)
        for metric in LIST_METRICS:  # per-user values at every saved cutoff, users by id
            for cutoff in bundle.cutoffs:
                pd.testing.assert_series_equal(
                    bundle.per_user_at(model, metric, cutoff),
                    evaluation.per_user_at(model, metric, cutoff).sort_index(),
                    check_exact=True)
    assert bundle.width == evaluation.width  # the last K at which a value can change
    # the per-user ones are averaged like the accuracy metrics
    pd.testing.assert_frame_equal(bundle.summary(["arp", "ndcg"], [3, 7]),
                                  evaluation.summary(["arp", "ndcg"], [3, 7]), check_exact=True)
    for cutoff in bundle.cutoffs:
        pd.testing.assert_frame_equal(bundle.beyond.popularity_deciles(cutoff),
                                      live.popularity_deciles(cutoff), check_exact=True)


def test_long_tail_accuracy_per_user_gives_the_intervals_of_every_user(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    long_tail = pd.read_parquet(folder / "beyond_long_tail.parquet")
    assert list(long_tail.columns[:3]) == ["model", "user", "relevant"]
    assert "recall_long_tail@7" in long_tail.columns and "ndcg_long_tail@20" in long_tail
    for model in bundle.models:  # the users with a relevant long-tail item, by id
        rows = long_tail[long_tail["model"] == model].set_index("user").sort_index()
        expected = evaluation.beyond.long_tail.per_user_at(model, "ndcg", 7).sort_index()
        np.testing.assert_array_equal(rows["ndcg_long_tail@7"], expected)
        assert list(rows.index) == list(expected.index)
    ours = bundle.beyond.long_tail_bands("recall_long_tail", 7, n_bootstrap=40)
    fresh = evaluation.beyond.long_tail.confidence_bands(["recall"], cutoffs=[7],
                                                          n_bootstrap=40)
    assert list(ours["metric"]) == ["recall_long_tail"] * 2
    np.testing.assert_allclose(ours["mean"], fresh["mean"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours["mean"], [evaluation.beyond.curve(model, "recall_long_tail")
                                              [6] for model in bundle.models], atol=1e-12)
    with pytest.raises(ValueError, match="per-user values at K = 1, 3, 5, 7, 10, 20; got"):
        bundle.beyond.long_tail_bands("ndcg_long_tail", 8)


def test_the_options_choices_and_inputs_are_recorded(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    info = json.loads((folder / "evaluation.json").read_text())
    assert info["format_version"] == FORMAT_VERSION == 2
    assert bundle.beyond.options == OPTIONS
    assert bundle.beyond.choices() == evaluation.beyond.choices()
    assert bundle.beyond.choices()["ild_distance"] == "jaccard"
    interactions = bundle.beyond.inputs_read["interactions"]
    assert (interactions.rows, interactions.users) == (400, 40)
    items = bundle.beyond.inputs_read["item_attributes"]
    assert (items.rows, items.users) == (60, None)


def test_per_user_beyond_values_give_the_confidence_bands_of_every_user(saved):
    evaluation, folder = saved
    bundle = load_bundle(folder)
    ours = bundle.confidence_bands(["novelty", "categories"], cutoffs=[7], n_bootstrap=40)
    fresh = evaluation.confidence_bands(["novelty", "categories"], cutoffs=[7], n_bootstrap=40)
    np.testing.assert_allclose(ours["mean"], fresh["mean"], rtol=0, atol=1e-12)


def test_the_deciles_are_kept_at_the_saved_cutoffs_only(saved):
    bundle = load_bundle(saved[1])
    with pytest.raises(ValueError, match=r"deciles at K = 1, 3, 5, 7, 10, 20; got cutoff=4"):
        bundle.beyond.popularity_deciles(4)
    with pytest.raises(ValueError, match="The bundle holds .*; not gini"):
        bundle.per_user_at("first", "gini", 7)  # a system metric has no per-user values


def test_an_archive_holds_the_same_beyond_results(saved, tmp_path):
    evaluation, folder = saved
    archive = evaluation.save(tmp_path / "deeper" / "b.zip", chosen_cutoff=7, sample=10)
    names = zipfile.ZipFile(archive).namelist()
    assert {"beyond_means.parquet", "beyond_deciles.parquet",
            "beyond_long_tail.parquet"} <= set(names)
    from_bytes = load_bundle(archive.read_bytes())
    pd.testing.assert_frame_equal(from_bytes.beyond.summary(), load_bundle(folder).beyond
                                  .summary(), check_exact=True)


def test_a_catalogue_alone_saves_the_system_metrics_without_deciles(tmp_path):
    truth, run = random_data(31, n_users=20)
    evaluation = evaluate(truth, {"m": run}, max_cutoff=10, catalogue="all")
    bundle = load_bundle(evaluation.save(tmp_path / "c", sample=5))
    assert bundle.beyond.metrics == ("coverage", "gini", "exposure_gini", "entropy",
                                   "personalization")
    assert bundle.beyond.per_user_metrics == () and bundle.beyond.inputs_read == {}
    # the metrics it was saved with (later versions have more)
    pd.testing.assert_frame_equal(bundle.summary(), evaluation.summary(bundle.metrics),
                                  check_exact=True)
    assert bundle.width == evaluation.width
    pd.testing.assert_frame_equal(bundle.beyond.summary(), evaluation.beyond.summary(),
                                  check_exact=True)
    assert not list((tmp_path / "c").glob("beyond_[dl]*"))  # no deciles, no long tail
    with pytest.raises(ValueError, match="saved without them"):
        bundle.beyond.popularity_deciles(5)


def test_an_evaluation_without_beyond_inputs_saves_none(tmp_path):
    truth, run = random_data(5, ratings="stars", n_users=20)
    folder = evaluate(truth, {"m": run}, max_cutoff=5).save(tmp_path / "plain", sample=5)
    assert "beyond" not in json.loads((folder / "evaluation.json").read_text())
    assert not list(folder.glob("beyond_*"))
    bundle = load_bundle(folder)
    assert bundle.beyond is None
    assert list(pd.read_parquet(folder / "per_user").columns[3:6]) == [
        "precision@1", "precision@3", "precision@5"]


def test_a_bundle_of_format_version_1_still_opens():
    """tests/data/bundles/format_1.zip was written by rankmetrics before bundles held
    beyond-accuracy results (format version 1), from the data evaluated here."""
    assert json.loads(zipfile.ZipFile(FORMAT_1).read("evaluation.json"))["format_version"] == 1
    truth, run = random_data(5, ratings="stars", n_users=20)
    _, other = random_data(6, ratings="stars", n_users=20)
    evaluation = evaluate(truth, {"first": run, "second": other},
                          relevance=RelevanceMapping.binary(4), max_cutoff=12)
    bundle = load_bundle(FORMAT_1)
    assert bundle.beyond is None
    # the metrics it was saved with (later versions have more)
    pd.testing.assert_frame_equal(bundle.summary(), evaluation.summary(bundle.metrics),
                                  check_exact=True)
    pd.testing.assert_series_equal(bundle.per_user_at("second", "ndcg", 10),
                                   evaluation.per_user_at("second", "ndcg", 10).sort_index())
    with pytest.raises(ValueError, match="The bundle holds precision.*; not arp"):
        bundle.per_user_at("first", "arp", 10)


def movie_arguments(*more: str) -> list[str]:
    return ["evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
            *[argument for name in MOVIE_MODELS[:2]
              for argument in ("--run", f"{name}={MOVIES / f'{name}.parquet'}")],
            "--threshold", "4", "--sample-users", "20", *more]


def test_the_command_line_saves_the_beyond_results_of_its_inputs(tmp_path, capsys):
    train, items = MOVIES / "train.csv", MOVIES / "items.csv"
    assert main(movie_arguments("--metrics", "ndcg", "--max-cutoff", "20",
                                "--interactions", str(train),
                                "--item-attributes", str(items), "--long-tail",
                                "bottom_items", "--save", str(tmp_path / "b"))) == 0
    capsys.readouterr()
    bundle = load_bundle(tmp_path / "b")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS[:2]}
    evaluation = evaluate(read_truth(MOVIES / "ground_truth.csv"), runs,
                          relevance=RelevanceMapping.identity(4),  # as --threshold 4
                          max_cutoff=20, interactions=read_interactions(train),
                          item_attributes=read_attributes(items, key="item"),
                          beyond_options=BeyondOptions(long_tail="bottom_items"))
    pd.testing.assert_frame_equal(bundle.beyond.summary(), evaluation.beyond.summary(),
                                  check_exact=True)
    assert bundle.beyond.options.long_tail == "bottom_items"
    for name, path in (("interactions", train), ("item_attributes", items)):
        print_ = bundle.beyond.inputs_read[name]
        assert print_.content_hash == hashlib.sha256(path.read_bytes()).hexdigest()
        assert print_.hash_kind == "sha256 of the file"
    assert (bundle.beyond.inputs_read["interactions"].rows,
            bundle.beyond.inputs_read["item_attributes"].rows) == (70062, 1500)
    # the printed table is the accuracy asked for; the bundle holds the rest
    assert main(movie_arguments("--metrics", "ndcg,coverage", "--cutoffs", "10",
                                "--interactions", str(train))) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    coverage = printed[printed["metric"] == "coverage"].set_index("model")["value"]
    saved = bundle.beyond.summary(["coverage"], [10]).set_index("model")["value"]
    two = list(MOVIE_MODELS[:2])
    np.testing.assert_allclose(coverage[two], saved[two], rtol=1e-9)  # CSV: 10 digits


def test_a_listed_catalogue_file_is_fingerprinted(tmp_path, capsys):
    catalogue = tmp_path / "catalogue.csv"
    catalogue.write_text("item\n" + "\n".join(f"m{n:04d}" for n in range(1, 101)) + "\n")
    assert main(movie_arguments("--catalogue", str(catalogue), "--save",
                                str(tmp_path / "c.zip"))) == 0
    bundle = load_bundle(tmp_path / "c.zip")
    assert bundle.beyond.metrics == ("coverage", "gini", "exposure_gini", "entropy",
                                   "personalization")
    assert bundle.beyond.choices()["catalogue_items"] == 100
    assert bundle.beyond.inputs_read["catalogue"].rows == 100
    assert bundle.beyond.inputs_read["catalogue"].content_hash == hashlib.sha256(
        catalogue.read_bytes()).hexdigest()


def test_without_save_the_inputs_alone_change_nothing(tmp_path, capsys):
    assert main(movie_arguments("--metrics", "ndcg", "--cutoffs", "10", "--interactions",
                                str(tmp_path / "missing.csv"))) == 0  # not read: not used
    assert "ndcg" in capsys.readouterr().out


def test_spark_refuses_the_beyond_inputs_naming_them(tmp_path, capsys):
    code = main(["evaluate", "--engine", "spark", "--truth", str(tmp_path), "--run",
                 f"m={tmp_path}", "--interactions", str(MOVIES / "train.csv"), "--catalogue",
                 "all", "--save", str(tmp_path / "b")])
    assert code == 1
    assert ("--engine spark computes the accuracy metrics only, so --interactions, "
            "--catalogue cannot be used with it: evaluate with --engine local"
            in capsys.readouterr().err)
    assert not (tmp_path / "b").exists()


def test_a_trade_off_point_without_an_interval_has_no_bar():
    points = pd.DataFrame({"model": ["a", "b"], "x": [0.5, 0.25], "x_low": [np.nan, 0.2],
                           "x_high": [np.nan, 0.3], "y": [0.1, 0.2], "y_low": [0.05, 0.15],
                           "y_high": [0.15, 0.25]})
    fig = tradeoff(points, "ndcg", "coverage", 10)
    first, second = fig.data
    assert first.error_x.visible is False
    assert first.error_y.array == (pytest.approx(0.15 - 0.1),)
    assert "[" not in first.hovertemplate.split("<br>")[1]  # Coverage@10 without interval
    assert second.error_x.array == (pytest.approx(0.05),)
    assert "[0.2000, 0.3000]" in second.hovertemplate


def test_a_bundle_keeps_each_users_activity_to_split_the_users_by(tmp_path):
    from rankmetrics.io import interaction_counts
    from rankmetrics.segments import (
        ACTIVITY,
        COLD_START,
        N_BUCKETS,
        quantile_buckets,
        segment_users,
    )

    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS[:2]}
    train = read_interactions(MOVIES / "train.csv")
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10,
                          interactions=train)
    saved = load_bundle(evaluation.save(tmp_path / "b.zip", sample=20))
    counts = interaction_counts(train)
    users = truth.table["user"].unique()
    pd.testing.assert_series_equal(saved.beyond.activity.loc[users],
                                   counts.reindex(users, fill_value=0), check_names=False,
                                   check_index_type=False)
    held = list(saved.users)  # the users some model counts
    cold = segment_users(saved, COLD_START)
    live = segment_users(evaluation, COLD_START, training_counts=counts)
    assert label_of(cold, held) == {user: label for user, label in label_of(
        live, list(evaluation.truth.users)).items() if user in set(held)}
    active = segment_users(saved, ACTIVITY)
    codes, labels = quantile_buckets(counts.reindex(held, fill_value=0).to_numpy(float),
                                     N_BUCKETS)
    assert active.labels == tuple(labels)
    assert label_of(active, held) == {user: labels[code]
                                      for user, code in zip(held, codes, strict=True)}
    # saved without training interactions: the split says what it needs
    plain = load_bundle(evaluate(truth, runs, max_cutoff=10).save(tmp_path / "p", sample=5))
    with pytest.raises(ValueError, match="'activity' and 'cold start' need the training "
                                         "interactions, which a saved evaluation holds"):
        segment_users(plain, ACTIVITY)


def label_of(segmentation, users) -> dict[str, str]:
    """Each user's segment (the segments partition the users)."""
    return {user: segmentation.labels[int(np.argmax(segmentation.members[:, position]))]
            for position, user in enumerate(users)}


def test_the_tradeoff_points_of_a_saved_evaluation_are_the_evaluations(saved):
    from rankmetrics.tradeoff import tradeoff_points

    evaluation, folder = saved
    bundle = load_bundle(folder)
    for metric in ("aplt", "recall_long_tail", "gini"):
        live = tradeoff_points(evaluation, "ndcg", metric, 7, n_bootstrap=50,
                               n_system_bootstrap=20)
        ours = tradeoff_points(bundle, "ndcg", metric, 7, n_bootstrap=50, n_system_bootstrap=20)
        assert list(ours["model"]) == list(live["model"]) == ["first", "second"]
        # the values are the same; the intervals resample the same users in another order
        # (a bundle keeps them by id), and a system metric's needs every user's list
        np.testing.assert_allclose(ours[["x", "y"]], live[["x", "y"]], rtol=0, atol=1e-12)
        direct = evaluation.beyond.bands(metric, 7, n_bootstrap=20 if metric == "gini" else 50)
        np.testing.assert_allclose(live["x_low"], direct["ci_low"], rtol=0, atol=0)
        assert ours[["x_low", "x_high"]].isna().all().all() == (metric == "gini")
    with pytest.raises(ValueError, match="metric"):
        tradeoff_points(bundle, "ndcg", "surprise", 7)
