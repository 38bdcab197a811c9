"""Spark gives the single machine's numbers (to 1e-12) for every metric, preset and option
combination the differential tests prove, on data spread over several Parquet files and
evaluated in many groups of users (uneven; one group holds only users the ground truth lacks;
users' rows come from several files). Its checks name users and items; its bundles open with
the same numbers as one machine's; the command line runs it on Parquet folders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, DataError, evaluate, load_bundle
from rankmetrics.cli import main
from tests.apptest import frame, go
from tests.helpers import random_data
from tests.test_app_bundle import compare_table, open_archive, segments_table
from tests.test_partition import COMBINATIONS, MAX_CUTOFF, STARS

pytestmark = pytest.mark.journey
PARTITIONS = 11


def _files(folder, table: pd.DataFrame, pieces: int, seed: int):
    """The table as ``pieces`` Parquet files of shuffled rows (a user's rows in several)."""
    folder.mkdir(parents=True)
    shuffled = table.sample(frac=1.0, random_state=seed, ignore_index=True)
    for number, part in enumerate(np.array_split(np.arange(len(shuffled)), pieces)):
        shuffled.iloc[part].to_parquet(folder / f"part-{number}.parquet", index=False)
    return str(folder)


@pytest.fixture(scope="module")
def data(tmp_path_factory, spark):
    """Two data sets (0-3 grades, 1-5 stars), each a ground truth and two models, as Spark
    DataFrames read from folders of Parquet files, and as pandas."""
    out = {}
    for ratings in ("grades", "stars"):
        folder = tmp_path_factory.mktemp(ratings)
        truth, first = random_data(21, ratings=ratings, n_users=60)
        _, second = random_data(22, ratings=ratings, n_users=60)
        frames = {"first": first, "second": second}
        paths = {"truth": _files(folder / "truth", truth, 3, 1)}
        paths |= {name: _files(folder / name, run, 4, 2) for name, run in frames.items()}
        out[ratings] = (truth, frames, paths)
    return out


def _spark_frames(spark, paths):
    return (spark.read.parquet(paths["truth"]),
            {name: spark.read.parquet(paths[name]) for name in ("first", "second")})


@pytest.mark.parametrize(("ratings", "relevance", "conventions"), COMBINATIONS)
def test_spark_equals_the_single_machine(spark, data, ratings, relevance, conventions):
    from rankmetrics.spark import evaluate_spark

    truth, runs, paths = data[ratings]
    options = {"relevance": relevance, "conventions": conventions, "max_cutoff": MAX_CUTOFF}
    single = evaluate(truth, runs, **options)
    spark_truth, spark_runs = _spark_frames(spark, paths)
    result = evaluate_spark(spark_truth, spark_runs, partitions=PARTITIONS, **options)
    expected, got = single.summary(), result.summary()
    pd.testing.assert_frame_equal(got.drop(columns="value"), expected.drop(columns="value"))
    np.testing.assert_allclose(got["value"], expected["value"], rtol=0, atol=1e-12)
    pd.testing.assert_frame_equal(result.user_counts(), single.user_counts())


def test_ties_in_input_order_follow_the_files_order(spark, tmp_path):
    from rankmetrics.spark import evaluate_spark

    truth, run = random_data(30, n_users=40)
    run = run.assign(score=run["score"].round(0))  # ties everywhere
    path = tmp_path / "run.parquet"
    run.to_parquet(path, index=False)  # one file: Spark reads its rows in order
    (tmp_path / "truth").mkdir()
    truth.to_parquet(tmp_path / "truth" / "t.parquet", index=False)
    conventions = Conventions(ties="input")
    single = evaluate(truth, {"m": run}, conventions=conventions, max_cutoff=MAX_CUTOFF)
    result = evaluate_spark(spark.read.parquet(str(tmp_path / "truth")),
                            {"m": spark.read.parquet(str(path))}, conventions=conventions,
                            max_cutoff=MAX_CUTOFF, partitions=PARTITIONS)
    np.testing.assert_allclose(result.summary()["value"], single.summary()["value"],
                               rtol=0, atol=1e-12)


def test_problems_are_named_by_user_and_item(spark):
    from rankmetrics.spark import evaluate_spark

    truth = spark.createDataFrame([("u1", "a", 1.0), ("u2", "b", 1.0)],
                                  "user string, item string, rating double")
    run = spark.createDataFrame(
        [("u1", "a", "0.9"), ("u1", "a", "0.5"), ("u2", "b", "high"), ("u2", "c", "0.1")],
        "user string, item string, score string")
    with pytest.raises(DataError) as raised:
        evaluate_spark(truth, {"als": run}, partitions=3)
    message = str(raised.value)
    assert ("model 'als': items listed more than once for one user (keep one row per user "
            "and item) (1): user 'u1', item 'a' (2 times).") in message
    assert "model 'als': score missing or not a number (1): user 'u2', item 'b': None." \
        in message


@pytest.mark.parametrize("kept", [None, [1, 3, 5, 7, 10, 20, 50]],
                         ids=["values in a pass of their own", "values kept with the means"])
def test_a_spark_bundle_and_a_single_machine_bundle_hold_the_same_numbers(spark, data,
                                                                          tmp_path, kept):
    from rankmetrics.spark import evaluate_spark

    truth, runs, paths = data["stars"]
    options = {"relevance": STARS, "max_cutoff": MAX_CUTOFF}
    users = sorted(truth["user"].unique())
    attributes = tmp_path / "tiers.csv"  # the dashboard's segments split both bundles by tier
    pd.DataFrame({"user": users, "tier": [("gold", "basic")[i % 2] for i in range(len(users))]}
                 ).to_csv(attributes, index=False)
    evaluate(truth, runs, **options).save(tmp_path / "one.zip", chosen_cutoff=7, sample=20,
                                          user_attributes=attributes)
    spark_truth, spark_runs = _spark_frames(spark, paths)
    evaluate_spark(spark_truth, spark_runs, partitions=PARTITIONS, per_user_cutoffs=kept,
                   **options).save(tmp_path / "spark.zip", chosen_cutoff=7, sample=20,
                                   user_attributes=attributes)
    assert load_bundle(tmp_path / "spark.zip").user_attributes == (
        "tiers.csv", attributes.read_bytes())
    one, other = load_bundle(tmp_path / "one.zip"), load_bundle(tmp_path / "spark.zip")
    assert (one.engine, other.engine) == ("single machine", "spark")
    assert one.cutoffs == other.cutoffs == [1, 3, 5, 7, 10, 20]
    np.testing.assert_allclose(one.summary()["value"], other.summary()["value"], rtol=0,
                               atol=1e-12)
    pd.testing.assert_frame_equal(one.user_counts(), other.user_counts())
    for model in one.models:
        for metric, cutoff in [("ndcg", 7), ("map", 20), ("r_precision", None)]:
            pd.testing.assert_series_equal(one.per_user_at(model, metric, cutoff),
                                           other.per_user_at(model, metric, cutoff),
                                           rtol=0, atol=1e-12)
    assert sorted(one.sampled_users) == sorted(other.sampled_users)
    keys = ["user", "item"]
    pd.testing.assert_frame_equal(
        one.sample_truth.sort_values(keys, ignore_index=True),
        other.sample_truth.sort_values(keys, ignore_index=True), check_dtype=False)
    pd.testing.assert_frame_equal(
        one.sample_evaluation.summary(), other.sample_evaluation.summary())
    assert other.inputs["ground_truth"].rows == len(truth)
    assert other.inputs["first"].users == runs["first"]["user"].nunique()
    # opened in the dashboard, both show the same numbers on every table of numbers
    shown = []
    for name in ("one.zip", "spark.zip"):
        at = open_archive((tmp_path / name).read_bytes(), name)
        pages = {"compare": compare_table(at)}
        go(at, "app_pages/users.py")
        pages["users"] = frame(at, "users_summary")
        go(at, "app_pages/significance.py")
        pages["segments"] = segments_table(at).set_index("Segment")[["Users in segment", *runs]]
        assert sorted(pages["segments"].index) == ["basic", "gold"]
        go(at, "app_pages/choosing_k.py")
        pages["choosing K"] = next(d.value for d in at.main.dataframe
                                   if "p_corrected" in d.value.columns)
        pages["cutoffs side by side"] = next(d.value for d in at.main.dataframe
                                             if "NDCG@10" in d.value.columns)
        shown.append(pages)
    for page, table in shown[0].items():
        pd.testing.assert_frame_equal(table, shown[1][page], check_exact=False, rtol=0,
                                      atol=1e-12)


def test_the_command_line_evaluates_parquet_folders_on_spark(spark, data, tmp_path, capsys):
    truth, runs, paths = data["grades"]
    arguments = ["evaluate", "--truth", paths["truth"], "--run", f"first={paths['first']}",
                 "--run", f"second={paths['second']}", "--preset", "trec_eval",
                 "--cutoffs", "1,5,10", "--metrics", "ndcg,map,recall"]
    tiers = tmp_path / "tiers.csv"  # user attributes saved with the bundle, for Segments
    pd.DataFrame({"user": sorted(truth["user"].unique()), "tier": "gold"}).to_csv(tiers,
                                                                                  index=False)
    assert main([*arguments, "--engine", "spark", "--save", str(tmp_path / "b"),
                 "--segments", str(tiers)]) == 0
    on_spark = capsys.readouterr()
    files = {"truth": truth, **runs}
    for name, table in files.items():  # the same rows as single files, for this machine
        table.to_parquet(tmp_path / f"{name}.parquet", index=False)
    local_arguments = [str(tmp_path / f"{name}.parquet") if argument == paths[name] else
                       argument.replace(paths[name], str(tmp_path / f"{name}.parquet"))
                       for argument in arguments for name in [_named(argument, paths)]]
    assert main(local_arguments) == 0
    local = capsys.readouterr()
    assert on_spark.out == local.out
    assert "ground-truth users it has no list for" in on_spark.err
    assert load_bundle(tmp_path / "b").cutoffs == [1, 3, 5, 10]
    # every main metric is kept, whatever --metrics printed: the dashboard draws them all
    assert set(load_bundle(tmp_path / "b").metrics) >= {"precision", "recall", "hit_rate",
                                                         "mrr", "map", "ndcg"}
    assert load_bundle(tmp_path / "b").user_attributes == ("tiers.csv", tiers.read_bytes())
    # a file that cannot be user attributes is refused before Spark reads anything
    bad = tmp_path / "bad.csv"
    bad.write_text("id;x\n")
    assert main([*arguments, "--engine", "spark", "--save", str(tmp_path / "c"),
                 "--segments", str(bad)]) == 1
    assert "bad.csv" in capsys.readouterr().err and not (tmp_path / "c").exists()


def _named(argument: str, paths: dict[str, str]) -> str:
    """The input whose folder ``argument`` names (``truth`` when none does)."""
    return next((name for name, path in paths.items() if path in argument), "truth")


def test_items_named_like_the_user_are_dropped_on_spark_as_on_one_machine(spark, tmp_path):
    """Also: with ratings used as grades, ERR's g_max is the whole ground truth's highest grade
    in every partition (a partition of three or four users may not hold a 3)."""
    from rankmetrics.spark import evaluate_spark

    truth, run = random_data(23, n_users=40)
    users = run["user"].drop_duplicates().iloc[::2]
    own = pd.DataFrame({"user": users, "item": users, "score": 5.0})  # above every score
    run = pd.concat([run, own], ignore_index=True)
    paths = {"truth": _files(tmp_path / "truth", truth, 2, 3),
             "m": _files(tmp_path / "m", run, 3, 4)}
    conventions = Conventions.preset("beir")
    single = evaluate(truth, {"m": run}, conventions=conventions, max_cutoff=MAX_CUTOFF)
    result = evaluate_spark(spark.read.parquet(paths["truth"]),
                            {"m": spark.read.parquet(paths["m"])}, conventions=conventions,
                            max_cutoff=MAX_CUTOFF, partitions=PARTITIONS)
    expected, got = single.summary(), result.summary()
    np.testing.assert_allclose(got["value"], expected["value"], rtol=0, atol=1e-12)
    kept = evaluate(truth, {"m": run}, max_cutoff=MAX_CUTOFF,
                    conventions=Conventions.preset("beir", identical_ids="keep"))
    assert np.abs(kept.summary()["value"] - expected["value"]).max() > 1e-3
