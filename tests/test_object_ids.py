"""Ids in object columns (NumPy arrays of Python strings): converted to Arrow text when the
DataFrame is read, they give the results of the same data in pandas' Arrow-backed ``str``
dtype, and missing ids (None, NaN, pd.NA) are errors naming the rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rankmetrics import Conventions, DataError, RelevanceMapping, evaluate
from rankmetrics.io._ids import from_arrow, from_objects
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})


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


@pytest.mark.parametrize("table", ["truth", "run"])
def test_a_missing_user_id_names_its_row(table):
    truth, run = random_data(1)
    truth, run = _as(truth, _shared), _as(run, _shared)
    frame = truth if table == "truth" else run
    users = frame["user"].to_numpy().copy()
    users[[5, 6]] = None  # two neighbouring rows: the same None object
    frame["user"] = pd.Series(users, index=frame.index, dtype=object)
    with pytest.raises(DataError, match=r"2 rows have no user id: rows 6 and 7\."):
        evaluate(truth, {"model": run}, max_cutoff=10)


def test_a_missing_item_id_names_its_row():
    truth, run = random_data(2)
    truth, run = _as(truth, _shared), _as(run, _shared)
    items = run["item"].to_numpy().copy()
    items[9] = None
    run["item"] = pd.Series(items, index=run.index, dtype=object)
    with pytest.raises(DataError, match=r"^model output, row 10, column 'item': 1 row has no "
                                        r"item id: row 10\."):
        evaluate(truth, {"model": run}, max_cutoff=10)


def test_integer_ids_in_object_columns():
    """Ids stored as numbers are written plainly, as in every other source: 11 is "11"."""
    truth = pd.DataFrame({"user": np.array([1, 1, 2, 2], dtype=object),
                          "item": np.array([10, 11, 10, "11"], dtype=object),
                          "rating": [1, 1, 1, 1]})
    run = pd.DataFrame({"user": np.array([1, 1, 2, 2], dtype=object),
                        "item": np.array([11, 12, 11, 10], dtype=object),
                        "score": [2.0, 1.0, 2.0, 1.0]})
    evaluation = evaluate(truth, {"model": run}, max_cutoff=2)
    np.testing.assert_allclose(evaluation.per_user("model", "precision")[1].to_numpy(),
                               [1.0, 1.0])  # user 2's 11 is the judged "11"


@pytest.mark.parametrize("table", ["truth", "run"])
def test_a_pandas_na_user_id_is_reported_as_missing(table):
    """pd.NA cannot be compared (bool(pd.NA) raises): still a DataError naming the row."""
    truth = pd.DataFrame({"user": ["aa", "bb"], "item": ["xx", "yy"], "rating": [1, 1]})
    run = pd.DataFrame({"user": ["aa", "bb"], "item": ["xx", "yy"], "score": [1.0, 2.0]})
    frame = truth if table == "truth" else run
    frame["user"] = pd.Series(["aa", pd.NA], dtype=object)
    with pytest.raises(DataError, match=r"1 row has no user id: row 2\."):
        evaluate(truth, {"model": run}, max_cutoff=2)


@pytest.mark.parametrize("values", [
    ["u1"] * 5 + ["u2"] * 3 + [None] * 2 + ["u1"] * 4,  # runs: the first of each is read
    ["a", "b", "c", "a", None, "b", "d", "e"],  # no runs: every row is read
])
def test_object_ids_get_the_codes_of_the_same_arrow_text(values):
    objects = np.array(values, dtype=object)
    got = from_objects(objects)
    expected = from_arrow(pa.array(values, pa.large_string()))
    assert got.values.to_pylist() == expected.values.to_pylist()
    np.testing.assert_array_equal(got.codes, expected.codes)


def test_objects_that_are_not_text_are_left_to_the_slow_path():
    assert from_objects(np.array([1, 1, 1, 1, 2, 2, 2, 2], dtype=object)) is None
    assert from_objects(np.array(["a", 1, "b"], dtype=object)) is None
