"""Ids that come in runs (a model's user column, user after user) are kept as one code per
run; every reader gets what the codes of every row would give, and a run whose users' rows
are together and in score order is ordered and matched from where each user's rows begin.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rankmetrics import DataError, GroundTruth, RankedRun, evaluate
from rankmetrics.io import run_from_dataframe
from rankmetrics.io._ids import Runs, distinct, from_arrow, from_objects
from rankmetrics.io._table import id_index
from rankmetrics.prepared.ranked_run import order_rows
from rankmetrics.prepared.row_order import Reordered
from tests.helpers import random_data
from tests.test_matching import _expected_triples


def _users(seed: int) -> list[str]:
    """User ids in runs of 5 to 9 rows, a user coming back after others now and then."""
    rng = np.random.default_rng(seed)
    ids = [f"u{number}" for number in rng.integers(0, 12, 40)]
    return [user for user in ids for _ in range(rng.integers(5, 10))]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("source", ["arrow", "objects"])
def test_ids_in_runs_read_as_the_codes_of_every_row(seed, source):
    users = _users(seed)
    ids = (from_arrow(pa.chunked_array([pa.array(users[:50]), pa.array(users[50:])]))
           if source == "arrow" else from_objects(np.array(users, dtype=object)))
    assert isinstance(ids.stored, Runs)
    expected, uniques = pd.factorize(pd.Series(users))
    assert ids.values.to_pylist() == list(uniques)
    assert len(ids) == len(users)
    np.testing.assert_array_equal(ids.codes_as(np.int64), expected)
    np.testing.assert_array_equal(ids.codes, expected)
    changes = [0] + [row for row in range(1, len(users)) if users[row] != users[row - 1]]
    np.testing.assert_array_equal(ids.run_starts(), [*changes, len(users)])
    rows = np.array([0, 3, len(users) - 1])
    np.testing.assert_array_equal(ids.codes_at(rows), expected[rows])
    assert [ids.at(int(row)) for row in rows] == [users[row] for row in rows]
    table = np.arange(len(uniques)) * 10 - 5
    np.testing.assert_array_equal(ids.lookup(table), table[expected])


def test_ids_equal_after_trimming_merge_their_runs():
    ids = from_arrow(pa.array(["b"] * 5 + [" b "] * 5 + ["a"] * 5 + ["b "] * 5))
    trimmed = distinct(ids.with_values(pa.compute.utf8_trim_whitespace(ids.values)))
    assert isinstance(trimmed.stored, Runs)
    assert trimmed.values.to_pylist() == ["b", "a"]
    np.testing.assert_array_equal(trimmed.codes, [0] * 10 + [1] * 5 + [0] * 5)
    np.testing.assert_array_equal(trimmed.run_starts(), [0, 10, 15, 20])


def test_rows_per_user_are_counted_from_the_runs():
    run = pd.DataFrame({"user": pd.Series(_users(4), dtype="str")})
    run = run.assign(item=[f"i{row}" for row in range(len(run))],
                     score=np.linspace(1, 0, len(run)))
    loaded = run_from_dataframe(run, name="model output")
    index = id_index(loaded, "user")
    expected = run["user"].value_counts(sort=False)
    assert index.values.tolist() == expected.index.tolist()
    np.testing.assert_array_equal(index.counts, expected.to_numpy())
    assert loaded.n_users == len(expected)


def _known_users_only(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """random_data grouped by user, each list in score order (ties kept), without the users
    the ground truth does not have."""
    truth, run = random_data(seed)
    return truth, run[run["user"].isin(set(truth["user"]))].reset_index(drop=True)


@pytest.mark.parametrize("seed", [0, 2, 4])
@pytest.mark.parametrize("ties", ["item_desc", "item_asc"])
def test_lists_in_score_order_are_matched_from_where_each_user_begins(seed, ties):
    truth, run = _known_users_only(seed)
    ground_truth = GroundTruth.from_frame(truth)
    ordered = order_rows(run_from_dataframe(run, name="model output"), ground_truth, ties)
    assert isinstance(ordered.order, Reordered)  # only tied rows moved
    ranked = RankedRun.from_frame(run, ground_truth, ties=ties)
    got = list(zip(ranked.judged_user.tolist(), ranked.judged_rank.tolist(),
                   ranked.judged_row.tolist(), strict=True))
    assert got == sorted(got)
    assert set(got) == _expected_triples(truth, run, ties)
    shuffled = RankedRun.from_frame(run.sample(frac=1, random_state=seed), ground_truth,
                                    ties=ties)  # ordered by sorting every row
    for name in ("judged_user", "judged_rank", "judged_row", "lengths"):
        np.testing.assert_array_equal(getattr(ranked, name), getattr(shuffled, name))


def test_a_user_whose_rows_are_apart_gets_one_list():
    truth = pd.DataFrame({"user": ["a", "a", "b"], "item": ["x", "y", "x"], "rating": [1, 1, 1]})
    users = pd.Series(["a"] * 4 + ["b"] * 4 + ["a"] * 4, dtype="str")
    assert isinstance(from_arrow(pa.array(users)).stored, Runs)
    items = ["x", "p", "q", "r", "x", "p", "q", "r", "y", "s", "t", "w"]
    apart = pd.DataFrame({"user": users, "item": items, "score": np.linspace(1, 0, 12)})
    together = apart.iloc[[0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7]].reset_index(drop=True)
    values = [evaluate(truth, {"m": run}, max_cutoff=8).per_user("m", "ndcg")
              for run in (apart, together)]
    pd.testing.assert_frame_equal(values[0], values[1])
    ranked = RankedRun.from_frame(apart, GroundTruth.from_frame(truth))
    assert ranked.lengths.tolist() == [8, 4]
    assert ranked.judged_rank.tolist() == [0, 4, 0]
    with pytest.raises(DataError, match="user 'a' has item 'x' more than once"):
        RankedRun.from_frame(apart.assign(item=items[:8] + ["x"] + items[9:]),
                             GroundTruth.from_frame(truth))


def test_ids_equal_after_trimming_in_neighbouring_runs_are_one_list():
    truth = pd.DataFrame({"user": ["a", "a"], "item": ["x", "y"], "rating": [1, 1]})
    items = ["z", "x", "w", "y", "v", "u", "t", "s"]
    spaced = pd.DataFrame({"user": ["a"] * 4 + [" a"] * 4, "item": items,
                           "score": np.linspace(0.9, 0.2, 8)})
    ranked = RankedRun.from_frame(spaced, GroundTruth.from_frame(truth))
    assert ranked.lengths.tolist() == [8]
    assert ranked.judged_rank.tolist() == [1, 3]
    with pytest.raises(DataError, match="user 'a' has item 'x' more than once"):
        RankedRun.from_frame(spaced.assign(item=items[:5] + ["x"] + items[6:]),
                             GroundTruth.from_frame(truth))


def test_an_order_held_as_its_moves_reads_as_the_whole_order():
    positions, rows = np.array([2, 3, 4, 8, 9]), np.array([4, 2, 3, 9, 8])
    whole = np.arange(12)
    whole[positions] = rows
    order = Reordered(12, positions, rows)
    assert len(order) == 12
    for where in (slice(None), slice(0, 3), slice(3, 9), slice(9, 12), slice(5, 5)):
        np.testing.assert_array_equal(order[where], whole[where])
    for where in (np.array([0, 2, 4, 8, 11, 3]), np.arange(12), np.zeros(0, dtype=np.int64)):
        np.testing.assert_array_equal(order[where], whole[where])
    with pytest.raises(ValueError, match="step 1"):
        order[::2]
    np.testing.assert_array_equal(Reordered(4, positions[:0], rows[:0])[np.array([3, 1])],
                                  [3, 1])


@pytest.mark.parametrize("ties", ["item_desc", "item_asc"])
@pytest.mark.parametrize("sorted_rows", [True, False])
def test_tied_scores_order_numbered_ids_as_their_text(ties, sorted_rows):
    # Dictionary-encoded Parquet in several row groups: the item ids come numbered, each row
    # group with its own dictionary, so the distinct ids may hold one id twice. Tied scores
    # must order them as the ids' text orders them.
    import io

    import pyarrow.parquet as pq

    from rankmetrics.io import read_run

    rng = np.random.default_rng(7)
    users = np.repeat([f"u{n:02d}" for n in range(40)], 15)
    items = np.array([f"i{n:03d}" for n in rng.integers(0, 400, len(users))])
    run = pd.DataFrame({"user": users, "item": items,
                        "score": rng.integers(0, 3, len(users)).astype(float)})
    run = run.drop_duplicates(["user", "item"]).reset_index(drop=True)
    if not sorted_rows:
        run = run.sample(frac=1, random_state=1).reset_index(drop=True)
    else:
        run = run.sort_values(["user", "score"], ascending=[True, False],
                              kind="stable").reset_index(drop=True)
    truth = pd.DataFrame({"user": run["user"], "item": run["item"],
                          "rating": rng.integers(0, 3, len(run))}).sample(frac=0.5,
                                                                          random_state=2)
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(run, preserve_index=False), buffer,
                   row_group_size=97, use_dictionary=True)
    loaded = read_run(buffer.getvalue(), name="run.parquet")
    ground_truth = GroundTruth.from_frame(truth)
    from_file = RankedRun.from_loaded(loaded, ground_truth, ties=ties)
    from_text = RankedRun.from_frame(run, ground_truth, ties=ties)
    for name in ("judged_user", "judged_rank", "judged_row", "lengths"):
        np.testing.assert_array_equal(getattr(from_file, name), getattr(from_text, name))
    got = set(zip(from_file.judged_user.tolist(), from_file.judged_rank.tolist(),
                  from_file.judged_row.tolist(), strict=True))
    assert got == _expected_triples(truth.reset_index(drop=True), run, ties)
