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

from rankmetrics import GroundTruth, RankedRun, matching
from rankmetrics.io import _hashing, _ids, run_from_dataframe
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
def test_matching_finds_every_judged_item(seed, lists_per_chunk, monkeypatch):
    monkeypatch.setattr(matching, "LISTS_PER_CHUNK", lists_per_chunk)
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
