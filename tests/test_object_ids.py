"""Ids in object columns: the paths that read each distinct Python object once.

Large object columns whose rows share their string objects (pandas' CSV reader and NumPy
indexing make them so) are read through the objects' addresses (``prepare._shared_objects``,
``prepare._object_run_starts``). Those paths start at ``SHARED_MIN_ROWS`` rows; the tests
lower that threshold (and the chunk size, so chunk edges fall inside users) and check that the
results are those of the same data in pandas' Arrow-backed ``str`` dtype.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rankmetrics import Conventions, DataError, RelevanceMapping, evaluate, prepare
from tests.test_differential import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})


@pytest.fixture(autouse=True)
def _small_thresholds(monkeypatch):
    monkeypatch.setattr(prepare, "SHARED_MIN_ROWS", 2)
    monkeypatch.setattr(prepare, "ROWS_PER_CHUNK", 29)


def _copy(text: str) -> str:
    """An equal string that is another object (for two characters or more)."""
    copied = (text + ".")[:-1]
    assert copied == text and copied is not text
    return copied


def _shared(values: pd.Series) -> pd.Series:
    """The ids as an object column in which rows with the same id hold the same object."""
    distinct = {value: _copy(value) for value in values.unique()}
    return pd.Series(np.array([distinct[value] for value in values], dtype=object),
                     index=values.index, dtype=object)


def _partly_copied(values: pd.Series, seed: int) -> pd.Series:
    """Shared objects, except a third of the rows hold an equal string of their own."""
    shared = _shared(values).to_numpy().copy()
    rng = np.random.default_rng(seed)
    for row in np.flatnonzero(rng.random(len(shared)) < 1 / 3):
        shared[row] = _copy(shared[row])
    return pd.Series(shared, index=values.index, dtype=object)


def _as(frame: pd.DataFrame, convert) -> pd.DataFrame:
    return frame.assign(user=convert(frame["user"].astype(str)),
                        item=convert(frame["item"].astype(str)))


def _results(truth: pd.DataFrame, run: pd.DataFrame, conventions: Conventions):
    evaluation = evaluate(truth, {"model": run}, relevance=STARS, conventions=conventions,
                          max_cutoff=40)
    return evaluation.summary(), evaluation.per_user_table(cutoffs=[1, 5, 40])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", ["item_desc", "input"])
def test_shared_and_copied_objects_give_the_str_results(seed, ties):
    truth, run = random_data(seed, ratings="stars")
    conventions = Conventions(ties=ties)
    expected = _results(_as(truth, lambda s: s.astype("str")),
                        _as(run, lambda s: s.astype("str")), conventions)
    for convert in (_shared, lambda s: _partly_copied(s, seed)):
        shared_truth, shared_run = _as(truth, convert), _as(run, convert)
        assert shared_run["item"].dtype == object
        got = _results(shared_truth, shared_run, conventions)
        pd.testing.assert_frame_equal(got[0], expected[0], check_dtype=False)
        pd.testing.assert_frame_equal(got[1], expected[1], check_dtype=False)


def test_the_shared_path_is_taken():
    items = _shared(pd.Series(["bb", "aa", "bb", "bb", "aa", "cc"]))
    column = prepare._TextColumn(items.array)
    assert column._codes is not None and len(column._dictionary) == 3
    assert column.rows(np.array([5, 0, 1])).to_pylist() == ["cc", "bb", "aa"]
    np.testing.assert_array_equal(column.hashes(slice(0, 6)),
                                  prepare._hash_strings(column.rows(slice(0, 6))))


def test_each_row_its_own_object_takes_the_direct_path():
    items = pd.Series(np.array([_copy(f"i{n}") for n in range(10)], dtype=object))
    column = prepare._TextColumn(items.array)
    assert column._codes is None
    assert column.rows(slice(2, 4)).to_pylist() == ["i2", "i3"]


@pytest.mark.parametrize("table", ["truth", "run"])
def test_a_missing_user_id_names_its_row(table):
    truth, run = random_data(1)
    truth, run = _as(truth, _shared), _as(run, _shared)
    frame = truth if table == "truth" else run
    users = frame["user"].to_numpy().copy()
    users[[5, 6]] = None  # two neighbouring rows: the same None object
    frame["user"] = pd.Series(users, index=frame.index, dtype=object)
    with pytest.raises(DataError, match=r"2 .* rows have no user id \(rows 5, 6\)"):
        evaluate(truth, {"model": run}, max_cutoff=10)


def test_a_missing_item_id_names_its_row():
    truth, run = random_data(2)
    truth, run = _as(truth, _shared), _as(run, _shared)
    items = run["item"].to_numpy().copy()
    items[9] = None
    run["item"] = pd.Series(items, index=run.index, dtype=object)
    with pytest.raises(DataError, match=r"model output rows have no item id \(rows 9\)"):
        evaluate(truth, {"model": run}, max_cutoff=10)


def test_integer_ids_in_object_columns():
    """Python ints are not text: the exact path matches them (3 is not "3")."""
    truth = pd.DataFrame({"user": np.array([1, 1, 2, 2], dtype=object),
                          "item": np.array([10, 11, 10, "11"], dtype=object),
                          "rating": [1, 1, 1, 1]})
    run = pd.DataFrame({"user": np.array([1, 1, 2, 2], dtype=object),
                        "item": np.array([11, 12, 11, 10], dtype=object),
                        "score": [2.0, 1.0, 2.0, 1.0]})
    evaluation = evaluate(truth, {"model": run}, max_cutoff=2)
    np.testing.assert_allclose(evaluation.per_user("model", "precision")[1].to_numpy(),
                               [1.0, 0.0])  # user 2's 11 is not the judged "11"


def test_run_starts_of_objects_compare_values_where_objects_change():
    values = np.array(["aa", "aa", "bb", "bb", "bb", "aa", "cc", "cc"], dtype=object)
    values[1] = _copy(values[0])
    values[4] = _copy(values[3])
    expected = prepare._run_starts(values.astype(str))
    np.testing.assert_array_equal(prepare._object_run_starts(values), expected)
    np.testing.assert_array_equal(expected, [0, 2, 5, 6, 8])


@pytest.mark.parametrize("n_distinct", [1, 50, 3_000, 40_000])
def test_address_codes_number_equal_addresses_alike(n_distinct):
    """Addresses (multiples of 16 as allocators give) get one code each, however many
    collide in the table or make it grow."""
    rng = np.random.default_rng(n_distinct)
    distinct = (rng.choice(2**36, n_distinct, replace=False).astype(np.uint64) + 1) * 16
    distinct[: n_distinct // 2] = (np.arange(n_distinct // 2, dtype=np.uint64) + 1) << 20
    addresses = distinct[rng.integers(0, n_distinct, 100_000)]
    codes, rows = prepare._address_codes(addresses)
    assert len(rows) == len(np.unique(addresses))
    np.testing.assert_array_equal(addresses[rows][codes], addresses)
    assert len(np.unique(addresses[rows])) == len(rows)


def test_string_user_ids_are_checked_once_per_run_of_rows(monkeypatch):
    """All-string object ids are not read row by row to look for missing ones: the
    values of the runs of equal users tell (the missing-id tests above cover the rest)."""
    truth, run = random_data(3)
    truth, run = _as(truth, _shared), _as(run, _shared)

    def read_every_row(*args):
        raise AssertionError("every row of a string column was checked")

    monkeypatch.setattr(prepare, "_check_ids", read_every_row)
    evaluation = evaluate(truth, {"model": run}, max_cutoff=5)
    assert evaluation.truth.n_users == truth["user"].nunique()


@pytest.mark.parametrize("table", ["truth", "run"])
@pytest.mark.parametrize("shared", [True, False])
def test_a_pandas_na_user_id_is_reported_as_missing(table, shared, monkeypatch):
    """pd.NA cannot be compared (bool(pd.NA) raises): still a DataError naming the row."""
    if not shared:
        monkeypatch.setattr(prepare, "SHARED_MIN_ROWS", 1 << 16)
    truth = pd.DataFrame({"user": ["aa", "bb"], "item": ["xx", "yy"], "rating": [1, 1]})
    run = pd.DataFrame({"user": ["aa", "bb"], "item": ["xx", "yy"], "score": [1.0, 2.0]})
    frame = truth if table == "truth" else run
    frame["user"] = pd.Series(["aa", pd.NA], dtype=object)
    with pytest.raises(DataError, match=r"1 .* rows have no user id \(rows 1\)"):
        evaluate(truth, {"model": run}, max_cutoff=2)


def test_the_shared_dictionary_has_64_bit_offsets():
    """Rows taken from the distinct ids may hold more than 2 GiB of text (about 100 million
    ground-truth rows of 20-character ids); Arrow's take does not split a 32-bit array."""
    column = prepare._TextColumn(_shared(pd.Series(["bb", "aa", "bb", "bb", "aa"])).array)
    assert column._dictionary.type == pa.large_string()
    assert column.rows(slice(0, 3)).type == pa.large_string()
