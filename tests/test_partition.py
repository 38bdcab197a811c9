"""Users split into partitions, each evaluated apart and the sums added, give the
single-machine means to 1e-12 (what lets an engine such as Spark map one function over users).

The partitions are uneven, one has no user at all, one holds only users the ground truth
lacks, and some users' rows arrive in several pieces (as from several input files).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rankmetrics import Conventions, DataError, RelevanceMapping, evaluate
from rankmetrics.evaluation import add_sums
from rankmetrics.metrics import METRICS
from rankmetrics.partition import (
    add_arrow_sums,
    partition_output,
    partition_per_user,
    partition_sums,
    reduce_output,
    sums_to_arrow,
)
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})
MAX_CUTOFF = 40

# (ratings, relevance, conventions): the combinations the differential tests prove
COMBINATIONS = [
    ("grades", RelevanceMapping.identity(1), Conventions.preset("trec_eval")),
    ("grades", RelevanceMapping.identity(2), Conventions.preset("trec_eval")),
    ("grades", RelevanceMapping.identity(1), Conventions.preset("trec_eval", ties="item_asc")),
    ("grades", RelevanceMapping.identity(2),
     Conventions.preset("trec_eval", threshold_gains=True)),
    ("stars", STARS, Conventions.preset("trec_eval")),
    ("stars", RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2),
     Conventions.preset("trec_eval")),
    ("grades", RelevanceMapping.identity(1), Conventions.preset("ranx_burges")),
    ("stars", STARS, Conventions.preset("retrieved_ideal", gain="linear")),
    ("stars", STARS, Conventions.preset("retrieved_ideal")),
    ("stars", STARS, Conventions.preset("retrieved_ideal", gain="linear", empty_users="zero")),
    ("grades", RelevanceMapping.identity(1), Conventions()),
    ("grades", RelevanceMapping.identity(1),
     Conventions(ap_denominator="min_k_relevant", missing_users="skip")),
    ("grades", RelevanceMapping.identity(1), Conventions(ap_denominator="hits")),
    ("stars", STARS, Conventions.preset("torchmetrics")),
    ("stars", STARS, Conventions.preset("evidently")),
    ("stars", STARS, Conventions.preset("lenskit")),
    ("grades", RelevanceMapping.identity(1), Conventions(relevant_items="in_list")),
]


def _two_models(seed: int, ratings: str) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    truth, run = random_data(seed, ratings=ratings, n_users=60)
    _, other = random_data(seed + 1000, ratings=ratings, n_users=60)
    return truth, {"first": run, "second": other}


def _split(truth: pd.DataFrame, runs: dict[str, pd.DataFrame], seed: int):
    """Partitions of (truth, runs) as Arrow tables: users dealt unevenly over 7 partitions
    (the last empty), strangers (users only the runs have) in a partition of their own, and
    each partition's run rows concatenated from two shuffled pieces."""
    rng = np.random.default_rng(seed)
    users = truth["user"].unique()
    weights = np.array([8, 1, 3, 1, 4, 2, 0], dtype=float)
    partition_of = dict(zip(users, rng.choice(7, size=len(users), p=weights / weights.sum()),
                            strict=True))
    parts = []
    for number in range(8):  # partition 7: the users the ground truth lacks
        in_truth = truth[truth["user"].map(partition_of) == number]
        pieces = {}
        for name, run in runs.items():
            mine = run[run["user"].map(partition_of).fillna(7) == number]
            shuffled = mine.sample(frac=1.0, random_state=seed)
            halves = [shuffled.iloc[: len(shuffled) // 2], shuffled.iloc[len(shuffled) // 2:]]
            pieces[name] = pa.concat_tables(
                [pa.Table.from_pandas(half, preserve_index=False) for half in halves]
            )
        parts.append((pa.Table.from_pandas(in_truth, preserve_index=False), pieces))
    assert any(truth_part.num_rows == 0 for truth_part, _ in parts)
    return parts


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(("ratings", "relevance", "conventions"), COMBINATIONS)
def test_partition_sums_added_equal_the_single_machine_means(seed, ratings, relevance,
                                                             conventions):
    truth, runs = _two_models(seed, ratings)
    options = {"relevance": relevance, "conventions": conventions, "max_cutoff": MAX_CUTOFF}
    single = evaluate(truth, runs, **options)
    parts = [partition_sums(truth_part, run_parts, **options)
             for truth_part, run_parts in _split(truth, runs, seed)]
    if conventions.precision_denominator == "cutoff":  # else every part is computed to K_max
        assert len({part.width for part in parts}) > 1  # parts of different widths were added
    total = add_sums(parts)
    every = range(1, MAX_CUTOFF + 1)
    expected, got = single.summary(cutoffs=every), total.summary(every)
    pd.testing.assert_frame_equal(got.drop(columns="value"), expected.drop(columns="value"))
    np.testing.assert_allclose(got["value"], expected["value"], rtol=0, atol=1e-12)
    counts = single.user_counts().set_index("model")
    for model in runs:
        for name, count in total.counts[model].items():
            assert count == counts.at[model, name], (model, name)


def test_sums_travel_as_arrow_and_add_up_in_any_order():
    truth, runs = _two_models(7, "grades")
    parts = _split(truth, runs, 7)
    sums = [partition_sums(truth_part, run_parts, max_cutoff=MAX_CUTOFF)
            for truth_part, run_parts in parts]
    table = pa.concat_tables([sums_to_arrow(part) for part in reversed(sums)])
    shuffled = table.take(np.random.default_rng(0).permutation(table.num_rows))
    total = add_arrow_sums(shuffled, ["first", "second"], list(METRICS))
    single = evaluate(truth, runs, max_cutoff=MAX_CUTOFF)
    every = range(1, MAX_CUTOFF + 1)
    np.testing.assert_allclose(total.summary(every)["value"], single.summary()["value"],
                               rtol=0, atol=1e-12)
    assert total.counts == add_sums(sums).counts


def test_per_user_values_of_the_partitions_are_the_single_machine_ones():
    truth, runs = _two_models(3, "stars")
    options = {"relevance": STARS, "max_cutoff": MAX_CUTOFF}
    cutoffs = [1, 3, 5, 10, 40]
    parts = [partition_per_user(truth_part, run_parts, cutoffs=cutoffs, **options)
             for truth_part, run_parts in _split(truth, runs, 3)]
    got = pa.concat_tables(parts).to_pandas().set_index(["model", "user"]).sort_index()
    single = evaluate(truth, runs, **options)
    assert list(got.columns) == ["relevant"] + [
        column for metric in METRICS
        for column in ([f"{metric}@{cutoff}" for cutoff in cutoffs]
                       if METRICS[metric].has_cutoff else [metric])]
    for model in runs:
        for metric, cutoff in [("ndcg", 3), ("map", 40), ("precision", 1),
                               ("r_precision", None)]:
            column = metric if cutoff is None else f"{metric}@{cutoff}"
            expected = single.per_user_at(model, metric, cutoff).sort_index()
            ours = got.loc[model, column]
            assert list(ours.index) == list(expected.index)
            np.testing.assert_allclose(ours.to_numpy(), expected.to_numpy(), rtol=0,
                                       atol=1e-12)


def test_a_partition_without_users_counts_the_strangers_of_each_model():
    runs = {"m": pa.table({"user": ["x", "x", "y"], "item": ["a", "b", "a"],
                           "score": [1.0, 0.5, 1.0]})}
    empty_truth = pa.table({"user": pa.array([], pa.string()), "item": pa.array([], pa.string()),
                            "rating": pa.array([], pa.int64())})
    sums = partition_sums(empty_truth, runs, metrics=["ndcg"])
    assert sums.counts["m"]["unknown_to_ground_truth"] == 2
    assert sums.counts["m"]["users"] == 0
    assert sums.sums["m"]["ndcg"].tolist() == [0.0]


def _table(rows, value="score"):
    return pa.table({"user": [r[0] for r in rows], "item": [r[1] for r in rows],
                     value: pa.array([r[2] for r in rows], pa.float64())})


def test_problems_of_every_partition_make_one_message_with_ids_and_counts():
    truth = _table([("u1", "a", 1), ("u2", "b", 1)], "rating")
    # partition 1: u1 lists a twice; partition 2: u2 lists b twice and has a NaN score
    first = _table([("u1", "a", 1.0), ("u1", "a", 0.5)])
    second = _table([("u2", "b", 1.0), ("u2", "b", 0.2), ("u2", "c", float("nan"))])
    outputs = pa.concat_tables([
        partition_output(truth.slice(0, 1), {"m": first}),
        partition_output(truth.slice(1, 1), {"m": second}),
    ])
    with pytest.raises(DataError) as raised:
        reduce_output(outputs, ["m"], ["ndcg"])
    message = str(raised.value)
    assert ("model 'm': items listed more than once for one user (keep one row per user and "
            "item) (2): user 'u1', item 'a' (2 times); user 'u2', item 'b' (2 times).") in message
    assert "model 'm': score missing or not a number (1): user 'u2', item 'c': nan." in message


def test_many_problems_show_the_first_few_and_how_many_in_all():
    truth = _table([(f"u{n}", "a", 1) for n in range(9)] + [("u0", "a", 2)], "rating")
    output = partition_output(truth, {"m": _table([("u0", "a", 1.0)])})
    with pytest.raises(DataError, match=r"different ratings for the same user and item \(keep "
                       r"one rating per user and item\) \(1\): user 'u0', item 'a'\."):
        reduce_output(output, ["m"], ["ndcg"])
    run = _table([(f"u{n}", "a", float(n)) for n in range(9)] * 2)
    output = partition_output(truth.slice(0, 9), {"m": run})
    with pytest.raises(DataError, match=r"\(9\): user 'u0'.*user 'u4', item 'a' \(2 times\) "
                       r"\.\.\. and 4 more\."):
        reduce_output(output, ["m"], ["ndcg"])


def test_users_without_a_list_are_a_warning_and_the_sums_still_add_up():
    truth, runs = _two_models(5, "grades")
    parts = _split(truth, runs, 5)
    table = pa.concat_tables([partition_output(t, r, max_cutoff=MAX_CUTOFF) for t, r in parts])
    sums, warnings = reduce_output(table, ["first", "second"], list(METRICS))
    single = evaluate(truth, runs, max_cutoff=MAX_CUTOFF)
    np.testing.assert_allclose(sums.summary(range(1, MAX_CUTOFF + 1))["value"],
                               single.summary()["value"], rtol=0, atol=1e-12)
    missing = {warning.source: warning for warning in warnings}
    counts = single.user_counts().set_index("model")["missing_from_model"]
    assert missing["model 'first'"].count == counts["first"]
    assert missing["model 'first'"].examples[0].startswith("user 'u")
