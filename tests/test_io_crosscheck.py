"""check_against_truth: errors when a run and a ground truth cannot belong together, warnings
with counts for what the metrics will quietly skip or count as zero."""

from __future__ import annotations

import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import check_against_truth, read_run, read_truth
from rankmetrics.relevance import RelevanceMapping

STARS = RelevanceMapping.binary(4)  # rating >= 4 is relevant
TRUTH = "user,item,rating\n12,7,5\n13,8,2\n14,9,4\n"  # user 13 has nothing relevant


def check(run_text: str, truth_text: str = TRUTH, *, mapping=STARS, max_cutoff: int | None = 1,
          **options) -> list[str]:
    run = read_run(run_text.encode(), name="model_a.csv", **options)
    truth = read_truth(truth_text.encode(), name="ratings.csv", **options)
    return check_against_truth(run, truth, mapping=mapping, max_cutoff=max_cutoff)


def test_matching_files_give_only_the_relevance_warning():
    assert check("user,item,score\n12,7,1\n13,8,1\n14,9,1\n") == [
        "1 of 3 ground-truth users has no relevant item under the relevance mapping (binary: "
        "rating >= 4 is relevant) ('13'); the Empty users convention (empty_users) decides "
        "whether they are skipped or count as 0."
    ]


def test_no_shared_users_is_an_error():
    with pytest.raises(DataError) as info:
        check("user,item,score\nu1,7,1\nu2,8,1\n")
    error = info.value
    assert (error.file, error.column) == ("model_a.csv", "user")
    assert str(error).startswith(
        "model_a.csv, column 'user': none of the 2 users in model_a.csv is in the ground truth "
        "(ratings.csv): the model's users look like 'u1', 'u2', the ground truth's like '12', "
        "'13', '14'. This is almost always a wrong file or a wrong column"
    )


def test_swapped_user_and_item_columns_are_pointed_out():
    with pytest.raises(DataError, match="the user and item columns look swapped"):
        check("user,item,score\n7,12,1\n8,13,1\n9,14,1\n")


def test_ids_with_a_decimal_point_are_an_error_with_the_fix():
    with pytest.raises(DataError) as info:
        check("user,item,score\n12.0,7,1\n13.0,8,1\n14.0,9,1\n")
    message = str(info.value)
    assert message.startswith(
        "model_a.csv, column 'user': 3 of 3 user ids in model_a.csv match the ground truth "
        "(ratings.csv) only when numbers are written the same way (model_a.csv vs ground "
        "truth: '12.0' vs '12', '13.0' vs '13', '14.0' vs '14')."
    )
    assert "with a decimal point ('12.0')" in message
    assert "ids_as_strings=False" in message


def test_item_ids_with_leading_zeros_are_an_error():
    with pytest.raises(DataError) as info:
        check("user,item,score\n12,007,1\n13,008,1\n14,009,1\n")
    assert info.value.column == "item"
    assert "'007' vs '7'" in str(info.value)
    assert "leading zeros" in str(info.value)


def test_ids_as_strings_false_makes_them_match():
    warnings = check("user,item,score\n12.0,007,1\n13.0,008,1\n14.0,009,1\n",
                     ids_as_strings=False)
    assert len(warnings) == 1 and "has no relevant item" in warnings[0]


def test_a_few_differently_written_ids_are_only_a_warning():
    run = "user,item,score\n" + "".join(f"{u},7,1\n" for u in range(12, 32)) + "007,7,1\n"
    truth = "user,item,rating\n" + "".join(f"{u},7,5\n" for u in range(12, 32)) + "7,7,5\n"
    warnings = check(run, truth)
    assert warnings[0] == (
        "1 of 21 user ids in model_a.csv match the ground truth (ratings.csv) only when numbers "
        "are written the same way (model_a.csv vs ground truth: '007' vs '7'). They are treated "
        "as different ids."
    )


def test_users_on_one_side_only_are_counted():
    warnings = check("user,item,score\n12,7,1\n15,9,1\n16,9,1\n")
    assert warnings[:2] == [
        "2 of 3 users in model_a.csv are not in the ground truth ('15', '16'); they are left out "
        "of the metrics.",
        "2 of 3 ground-truth users have no recommendations in model_a.csv ('13', '14'); the "
        "Missing users convention (missing_users) decides whether they count as 0 or are left "
        "out.",
    ]


def test_many_users_on_one_side_show_examples():
    run = "user,item,score\n12,7,1\n" + "".join(f"x{u},7,1\n" for u in range(5))
    warnings = check(run)
    assert warnings[0].startswith("5 of 6 users in model_a.csv are not in the ground truth "
                                  "(e.g. 'x0', 'x1', 'x2')")


def test_no_user_with_a_relevant_item():
    warnings = check("user,item,score\n12,7,1\n13,8,1\n14,9,1\n",
                     mapping=RelevanceMapping.binary(6))
    assert warnings == [
        "No ground-truth user has a relevant item under the relevance mapping (binary: rating "
        ">= 6 is relevant): every metric would be 0 or undefined. Lower the threshold or check "
        "the rating column."
    ]


def test_graded_mapping_is_used_for_relevance():
    # graded 5 -> 2, 4 -> 1; relevant at grade >= 2: only user 12 (rating 5) has one.
    mapping = RelevanceMapping.graded({5: 2, 4: 1}, threshold=2)
    warnings = check("user,item,score\n12,7,1\n13,8,1\n14,9,1\n", mapping=mapping)
    assert warnings[0].startswith("2 of 3 ground-truth users have no relevant item")


def test_short_lists_are_counted_with_the_shortest_length():
    run = "user,item,score\n12,7,1\n12,1,0.5\n12,2,0.2\n13,8,1\n14,9,1\n14,3,0.5\n"
    warnings = check(run, max_cutoff=3)
    assert warnings[-1] == (
        "2 of 3 users in model_a.csv have fewer than 3 recommended items (the shortest list has "
        "1); at cutoffs beyond a list's end the missing places count as misses."
    )


def test_without_a_chosen_cutoff_only_lists_shorter_than_the_longest_are_counted():
    run = "user,item,score\n12,7,1\n12,1,0.5\n12,2,0.2\n13,8,1\n14,9,1\n14,3,0.5\n"
    assert check(run, max_cutoff=None)[-1] == (
        "2 of 3 users in model_a.csv have fewer than 3 recommended items (the shortest list has "
        "1); at cutoffs beyond a list's end the missing places count as misses."
    )
    same_length = "user,item,score\n12,7,1\n12,1,0.5\n13,8,1\n13,2,0.5\n14,9,1\n14,3,0.5\n"
    assert not [w for w in check(same_length, max_cutoff=None) if "fewer than" in w]
    assert [w for w in check(same_length, max_cutoff=3) if "fewer than 3" in w]


def test_no_recommended_item_in_the_truth():
    warnings = check("user,item,score\n12,a,1\n13,b,1\n14,c,1\n")
    assert warnings[0] == (
        "None of the 3 items recommended in model_a.csv appears in the ground truth "
        "(ratings.csv), so every metric will be 0. Check the item column ('item')."
    )


def test_arguments_are_checked():
    run = read_run(b"user,item,score\nu1,i1,1\n", name="a.csv")
    truth = read_truth(b"user,item,rating\nu1,i1,1\n", name="t.csv")
    with pytest.raises(ValueError, match="needs a run then a ground truth"):
        check_against_truth(truth, run, mapping=STARS, max_cutoff=1)
    with pytest.raises(ValueError, match=r"The 'max_cutoff' argument must be an integer in "
                       r"the range \[1, inf\)\. Got 0 instead\."):
        check_against_truth(run, truth, mapping=STARS, max_cutoff=0)


@pytest.mark.parametrize("run_text", [
    "user,item,score\n12,7.0,1\n12,x,0.5\n13,8.0,1\n14,9,1\n14,y,0.5\n",  # numbers as '7.0'
    "user,item,score\nu1,7,1\nu2,8,1\n",  # no shared user
    "user,item,score\n12,a,1\n13,b,1\n",  # no shared item
])
def test_a_run_read_from_parquet_is_checked_as_from_csv(run_text):
    """Parquet stores the item ids dictionary-encoded, so the run's distinct items are known
    when it is read; the checks say the same as for the CSV file, whose items are hashed."""
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(run_text), dtype=str).astype({"score": float})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    truth = read_truth(TRUTH.encode(), name="ratings.csv")
    outcomes = []
    csv_run = read_run(run_text.encode(), name="model_a.csv")
    parquet_run = read_run(buffer.getvalue(), name="model_a.parquet")
    assert parquet_run._codes["item"][0].distinct is not None  # numbered when read
    assert csv_run._codes["item"][0].distinct is None  # hashed only
    for run in (csv_run, parquet_run):
        assert run.n_items == frame["item"].nunique()
        try:
            outcomes.append(check_against_truth(run, truth, mapping=STARS, max_cutoff=1))
        except DataError as error:
            outcomes.append(error.problem)
    assert str(outcomes[0]).replace("model_a.csv", "FILE") == str(outcomes[1]).replace(
        "model_a.parquet", "FILE")
