"""Matching ranked items with ground-truth rows, checked against a plain dictionary lookup.

The random data has lists of 1 to 30 items in shuffled user order, users missing from the
output and users unknown to the ground truth; hashing a few rows and matching a few lists at
a time (chunk edges inside the data) must find the same (user, rank, ground-truth row)
triples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmetrics import GroundTruth, RankedRun
from rankmetrics.io import _hashing, _ids, run_from_dataframe
from rankmetrics.prepared import matching
from tests.helpers import random_data


def _expected_triples(truth, run, ties: str) -> set[tuple[int, int, int]]:
    """(user, rank, ground-truth row) found the obvious way: sort each user's rows, look each
    item up in a dictionary of the ground truth's rows."""
    users = {user: number for number, user in enumerate(dict.fromkeys(truth["user"]))}
    row_of = {(user, item): row for row, (user, item) in
              enumerate(zip(truth["user"], truth["item"], strict=True))}
    found = set()
    for user, rows in run.groupby("user", sort=False):
        if user not in users:
            continue
        ascending = ties == "item_asc"
        ranked = rows.sort_values(["score", "item"], ascending=[False, ascending])
        for rank, item in enumerate(ranked["item"]):
            if (user, item) in row_of:
                found.add((users[user], rank, row_of[(user, item)]))
    return found


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lists_per_chunk", [1, 3, 1 << 16])
@pytest.mark.parametrize("cells_per_entry", [0, 10**9], ids=["searched", "side_by_side"])
def test_matching_finds_every_judged_item(seed, lists_per_chunk, cells_per_entry, monkeypatch):
    monkeypatch.setattr(matching, "LISTS_PER_CHUNK", lists_per_chunk)
    # 0: every chunk's lists are searched; 10**9: every chunk is matched in one matrix
    monkeypatch.setattr(matching, "CELLS_PER_ENTRY", cells_per_entry)
    # ids hashed and checked a few rows at a time, so chunk edges fall inside lists
    monkeypatch.setattr(_hashing, "ROWS_PER_CHUNK", 4 * lists_per_chunk + 3)
    monkeypatch.setattr(_ids, "BLOCK", 2 * lists_per_chunk + 5)
    truth, run = random_data(seed, tie_free=seed % 2 == 0)
    for ties in ("item_desc", "item_asc"):
        ground_truth = GroundTruth.from_frame(truth)
        ranked = RankedRun.from_frame(run, ground_truth, ties=ties)
        got = list(zip(ranked.judged_user.tolist(), ranked.judged_rank.tolist(),
                       ranked.judged_row.tolist(), strict=True))
        assert got == sorted(got)
        assert set(got) == _expected_triples(truth, run, ties)
        lengths = run[run["user"].isin(set(truth["user"]))].groupby("user").size()
        np.testing.assert_array_equal(
            ranked.lengths, lengths.reindex(ground_truth.users, fill_value=0).to_numpy())


def test_a_run_of_users_the_ground_truth_lacks_ranks_nothing():
    truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"], "rating": [1, 1]})
    run = pd.DataFrame({"user": ["x1", "x1", "x2"], "item": ["a", "b", "a"],
                        "score": [2.0, 1.0, 1.0]})
    ranked = RankedRun.from_frame(run, GroundTruth.from_frame(truth))
    assert ranked.unknown_users == 2 and ranked.unknown_user_examples == ("x1", "x2")
    assert not ranked.present.any() and len(ranked.judged_user) == 0


def test_items_sharing_a_hash_in_a_list_are_hashed_again_with_another_seed(monkeypatch):
    """Two different ids of one list with the same hash (a collision) are told apart by
    their text: the items are hashed again with the next seed, and nothing is lost."""
    from rankmetrics.io import _validate

    real = _hashing.hash_text

    def colliding_at_seed_0(text, seed=0):
        return np.zeros(len(text), dtype=np.uint64) if seed == 0 else real(text, seed)

    monkeypatch.setattr(_validate, "hash_text", colliding_at_seed_0)
    truth, run = random_data(5, tie_free=True)
    expected = _expected_triples(truth, run, "item_desc")
    loaded = run_from_dataframe(run, name="model output")
    assert loaded._codes["item"][0].seed == 1
    ranked = RankedRun.from_loaded(loaded, GroundTruth.from_frame(truth))
    assert set(zip(ranked.judged_user.tolist(), ranked.judged_rank.tolist(),
                   ranked.judged_row.tolist(), strict=True)) == expected


def _pairs(found) -> set[tuple[int, int]]:
    ranked, entry = found
    return set(zip(ranked.tolist(), entry.tolist(), strict=True))


@pytest.mark.parametrize("seed", range(6))
def test_side_by_side_finds_what_the_binary_search_finds(seed):
    # lists of 0 to 12 hashes drawn from 40 values (distinct within a list), each user's
    # ground truth 0 to 8 hashes of the same 40, so some are in the list and some are not
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 2**64, size=40, dtype=np.uint64)
    lengths = rng.integers(0, 13, size=50)
    counts = rng.integers(0, 9, size=50)
    listed = np.concatenate([rng.choice(pool, n, replace=False) for n in lengths])
    wanted = np.concatenate([rng.choice(pool, n, replace=False) for n in counts])
    found = matching._side_by_side(listed, lengths, wanted, counts)
    entry_list = np.repeat(np.arange(len(lengths)), counts)
    searched = matching._searched(listed, lengths, wanted, entry_list)
    assert found is not None and len(searched[0]) > 0
    assert _pairs(found) == _pairs(searched)


def test_side_by_side_declines_rows_whose_entries_agree_beyond_their_low_bits():
    # width 4: the low 3 bits hold each entry's column, so 0x100, 0x101, 0x102 and the
    # ground truth's 0x101 agree in every bit kept: equal hashes need not be neighbours
    listed = np.array([0x100, 0x102, 0x101], dtype=np.uint64)
    wanted = np.array([0x101], dtype=np.uint64)
    lengths, counts = np.array([3]), np.array([1])
    assert matching._side_by_side(listed, lengths, wanted, counts) is None
    assert _pairs(matching._searched(listed, lengths, wanted, np.array([0]))) == {(2, 0)}
    # two that agree are neighbours whatever their columns, and match if their full hashes do
    listed = np.array([0x800, 0x900, 0x101], dtype=np.uint64)
    assert _pairs(matching._side_by_side(listed, lengths, wanted, counts)) == {(2, 0)}
    listed = np.array([0x800, 0x900, 0x103], dtype=np.uint64)
    assert _pairs(matching._side_by_side(listed, lengths, wanted, counts)) == set()


def test_lists_of_very_different_lengths_are_searched_not_put_in_a_matrix():
    # 21 lists, one of 400 items: a matrix would be 21 x 401 cells for 441 entries
    lengths, counts = np.array([1] * 20 + [400]), np.ones(21, dtype=np.int64)
    listed = np.arange(1, 421, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    wanted = listed[[*range(20), 419]]
    assert matching._side_by_side(listed, lengths, wanted, counts) is None
    assert _pairs(matching._searched(listed, lengths, wanted, np.arange(21))) == {
        *((i, i) for i in range(20)), (419, 20)}


@pytest.mark.parametrize(("dtype", "largest_row"), [(np.int32, 50), (np.int64, 50),
                                                    (np.int64, 2**40)],
                         ids=["int32-packed", "int64-packed", "int64-argsorted"])
def test_triples_are_sorted_by_user_then_rank_in_their_own_type(dtype, largest_row):
    rng = np.random.default_rng(7)
    pairs = rng.permutation(40 * 30)[:500]  # distinct (user, rank) pairs
    user, rank = (pairs // 30).astype(dtype), (pairs % 30).astype(dtype)
    row = rng.integers(0, largest_row, 500).astype(dtype)
    row[0] = largest_row - 1
    order = np.lexsort((rank, user))
    expected = [column[order] for column in (user, rank, row)]
    got = matching._by_user_and_rank(user.copy(), rank.copy(), row.copy())
    for column, wanted in zip(got, expected, strict=True):
        assert column.dtype == dtype
        np.testing.assert_array_equal(column, wanted)
    already = matching._by_user_and_rank(*expected)  # sorted: handed back as they are
    assert all(a is b for a, b in zip(already, expected, strict=True))
