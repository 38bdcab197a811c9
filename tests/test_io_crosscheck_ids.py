"""check_against_truth on ids that differ only in how a number is written, mixed with ids that
are no numbers (UUIDs, "i123"): the check looks only at the ids that may match that way, and
says what comparing every id's canonical form would say."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmetrics.errors import DataError
from rankmetrics.io import _crosscheck, check_against_truth, read_run, read_truth
from rankmetrics.io._canonical import canonical_ids, rewritable_ids
from rankmetrics.relevance import RelevanceMapping

STARS = RelevanceMapping.binary(4)
UUIDS = ["123e4567-e89b-12d3-a456-426614174000", "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f",
         "12345678-1234-1234-1234-123456789012"]  # the last one all digits and dashes
NUMBER_FORMS = ["7", "007", "07", "7.0", "7.00", "+7", "-7", "-07", "0", "00", "-0", "12",
                "012", "12.0", "1.5", "7.50", "\u0667", "0012345678", "12345678"]
POOL = NUMBER_FORMS + UUIDS + ["u7", "i7", "i123", "x", "7a", "a7", "1e3", "12-34"]
TEXT_BYTES = "0123456789+-. \t\x1c.eéai\u0667\u0969"  # what numbers, or near-numbers, hold


def read(run_rows: list[tuple[str, str]], truth_rows: list[tuple[str, str]],
         parquet: bool = False):
    run_frame = pd.DataFrame(run_rows, columns=["user", "item"], dtype=str)
    run_frame["score"] = -np.arange(len(run_frame), dtype=float)
    if parquet:
        buffer = io.BytesIO()
        run_frame.to_parquet(buffer, index=False)
        run = read_run(buffer.getvalue(), name="model_a.parquet")
    else:
        run = read_run(run_frame.to_csv(index=False).encode(), name="model_a.csv")
    truth_frame = pd.DataFrame(truth_rows, columns=["user", "item"], dtype=str)
    truth_frame["rating"] = 5
    truth = read_truth(truth_frame.to_csv(index=False).encode(), name="ratings.csv")
    return run, truth


def outcome(run_rows, truth_rows, parquet: bool = False) -> list[str] | str:
    """The warnings, or the problem of the DataError raised."""
    run, truth = read(run_rows, truth_rows, parquet)
    try:
        return check_against_truth(run, truth, mapping=STARS, max_cutoff=1)
    except DataError as error:
        return error.problem


def compared_everywhere(run_ids: pd.Series, truth_ids: pd.Series, role: str,
                        n_run: int, source: str) -> tuple[str, bool] | None:
    """What comparing every id's canonical form says: the message's first sentence and
    whether it is an error (None when every match is exact)."""
    run_canon, truth_canon = canonical_ids(run_ids), canonical_ids(truth_ids)
    only = (run_canon.isin(truth_canon) & ~run_ids.isin(truth_ids)).to_numpy()
    if not only.any():
        return None
    written = dict(zip(truth_canon, truth_ids, strict=True))
    where = np.flatnonzero(only)
    pairs = ", ".join(f"'{run_ids.iloc[i]}' vs '{written[run_canon.iloc[i]]}'"
                      for i in where[:3])
    return (f"{where.size} of {n_run} {role} ids in {source} match the ground truth "
            f"(ratings.csv) only when numbers are written the same way ({source} vs ground "
            f"truth: {pairs}).", where.size / n_run >= _crosscheck.FORMAT_SHARE)


def expected_notes(run_rows, truth_rows, source: str) -> tuple[list[str], str | None]:
    """The notes about numbers written otherwise comparing every id would give, as warnings
    and as the first error (when one is raised)."""
    warnings = []
    for column, role in ((0, "user"), (1, "item")):
        run_ids = pd.Series(pd.unique(pd.Series([row[column] for row in run_rows])), dtype="str")
        truth_ids = pd.Series(pd.unique(pd.Series([row[column] for row in truth_rows])),
                              dtype="str")
        note = compared_everywhere(run_ids, truth_ids, role, len(run_ids), source)
        if note is not None and note[1]:
            return warnings, note[0]
        if note is not None:
            warnings.append(note[0] + " They are treated as different ids.")
    return warnings, None


def assert_same_as_comparing_everything(run_rows, truth_rows) -> None:
    for parquet, source in ((False, "model_a.csv"), (True, "model_a.parquet")):
        found = outcome(run_rows, truth_rows, parquet)
        warnings, error = expected_notes(run_rows, truth_rows, source)
        if error is not None:
            assert isinstance(found, str) and found.startswith(error), (found, error)
        else:
            assert isinstance(found, list), found
            assert [w for w in found if "only when numbers are written" in w] == warnings


def test_leading_zeros_among_uuids_are_a_warning():
    others = UUIDS + [f"i{n}" for n in range(20)]
    truth = [("u1", "7")] + [(f"u{n}", item) for n, item in enumerate(others, start=2)]
    run = [("u1", "007")] + [(f"u{n}", item) for n, item in enumerate(others, start=2)]
    warnings = outcome(run, truth)
    assert warnings[0] == (
        "1 of 24 item ids in model_a.csv match the ground truth (ratings.csv) only when "
        "numbers are written the same way (model_a.csv vs ground truth: '007' vs '7'). They "
        "are treated as different ids."
    )
    assert_same_as_comparing_everything(run, truth)


def test_a_decimal_point_in_user_ids_among_uuid_items_is_an_error():
    truth = [(str(n), UUIDS[n % 3]) for n in range(1, 6)]
    run = [(f"{n}.0", UUIDS[n % 3]) for n in range(1, 6)]
    with pytest.raises(DataError, match=r"5 of 5 user ids in model_a.csv match the ground truth "
                       r"\(ratings.csv\) only when numbers are written the same way \(model_a"
                       r".csv vs ground truth: '1.0' vs '1', '2.0' vs '2', '3.0' vs '3'\)\. One "
                       r"file writes them with a decimal point"):
        check_against_truth(*read(run, truth), mapping=STARS, max_cutoff=1)


# Twenty item ids both files write alike, for twenty users: one item id written otherwise is
# then a warning (below a tenth of the run's item ids).
ALIKE = [(f"u{n}", f"i{n}") for n in range(2, 22)]


def test_a_plain_id_matching_a_zero_padded_one_is_found():
    """The run writes "7", the ground truth "007": the run's id is written plainly (nothing
    to rewrite in it), yet it matches once numbers are written one way."""
    warnings = outcome([("u1", "7")] + ALIKE, [("u1", "007")] + ALIKE)
    assert warnings[0] == (
        "1 of 21 item ids in model_a.csv match the ground truth (ratings.csv) only when "
        "numbers are written the same way (model_a.csv vs ground truth: '7' vs '007'). They "
        "are treated as different ids.")
    assert_same_as_comparing_everything([("u1", "7")] + ALIKE, [("u1", "007")] + ALIKE)


@pytest.mark.parametrize("truth_items", [["7", "007"], ["007", "7.0"], ["7.0", "7"]])
def test_the_example_is_the_last_ground_truth_id_written_that_way(truth_items):
    truth = [("u1", item) for item in truth_items] + ALIKE
    run = [("u1", "07")] + ALIKE
    warnings = outcome(run, truth)
    assert f"(model_a.csv vs ground truth: '07' vs '{truth_items[-1]}')" in warnings[0]
    assert_same_as_comparing_everything(run, truth)


def test_numbers_written_alike_and_ids_that_are_no_numbers_give_no_note():
    truth = [("1", "12345678"), ("2", UUIDS[2]), ("3", "-7"), ("4", "i123"), ("5", "1.5")]
    assert not [w for w in outcome(truth, truth) if "numbers are written" in w]


def test_an_item_known_only_after_the_first_rows_is_found(monkeypatch):
    monkeypatch.setattr(_crosscheck, "FIRST_ROWS", 2)
    truth = [("u1", "i9"), ("u2", "i9")]
    run = [("u1", "a"), ("u1", "b"), ("u2", "c"), ("u2", "i9")]
    assert not [w for w in outcome(run, truth) if w.startswith("None of the")]
    run[-1] = ("u2", "d")
    assert [w for w in outcome(run, truth) if w.startswith("None of the 4 items")]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_mixed_ids_say_what_comparing_every_id_says(data):
    users = data.draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True))
    truth = [("u", "i")]  # a user both have, so only the ids' notes can stop the check
    run = [("u", "i")]
    for user in users:
        judged = data.draw(st.lists(st.sampled_from(POOL), max_size=4, unique=True))
        listed = data.draw(st.lists(st.sampled_from(POOL), max_size=5, unique=True))
        truth += [(user, item) for item in judged if (user, item) not in truth]
        run += [(user, item) for item in listed if (user, item) not in run]
    other_users = data.draw(st.lists(st.sampled_from(POOL), max_size=4, unique=True))
    run += [(user, "i") for user in other_users if (user, "i") not in run]
    assert_same_as_comparing_everything(run, truth)


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.one_of(st.none(), st.text(TEXT_BYTES, max_size=20), st.sampled_from(POOL)),
                    max_size=40),
       large=st.booleans(), cut=st.integers(0, 40), skip=st.integers(0, 3))
def test_every_id_canonical_ids_changes_is_rewritable(ids, large, cut, skip):
    """Checked on Arrow text in one chunk or two, string or large_string, sliced."""
    kind = pa.large_string() if large else pa.string()
    text = pa.chunked_array([pa.array(ids[:cut], kind), pa.array(ids[cut:], kind)], kind)
    text = text.slice(min(skip, len(text)))
    written = pd.Series(text.to_pylist(), dtype="str")
    canonical = canonical_ids(written)
    changed = (written != canonical).to_numpy() & written.notna().to_numpy()
    flagged = rewritable_ids(text)
    assert flagged.shape == (len(written),)
    assert not (changed & ~flagged).any(), list(written[changed & ~flagged])
    assert not flagged[written.isna().to_numpy()].any()


def test_ids_that_are_no_numbers_are_not_rewritable():
    ids = UUIDS[:2] + ["item0001234", "i123", "u7", "7a", "abcdefghij0123", "x"] * 50
    assert not rewritable_ids(pa.array(ids)).any()
    assert rewritable_ids(pa.array(["007", "7.0", "12345678-1234"])).all()
