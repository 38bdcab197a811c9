"""Files without a header line: the order their columns are read in, the order given by hand,
and the shapes that cannot be told apart. TREC files, headerless too, keep their own reading."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import read_interactions, read_run, read_truth, truth_from_dataframe

DATA = Path(__file__).parent / "data" / "io"
U_DATA_ORDER = ("user", "item", "rating", "timestamp")


def error_of(reader, data: bytes, name: str, **options) -> DataError:
    with pytest.raises(DataError) as info:
        reader(data, name=name, **options)
    return info.value


# Inferred orders ---------------------------------------------------------------------------

def test_movielens_u_data_is_read_as_user_item_rating_timestamp():
    truth = read_truth(DATA / "u.data")
    assert (truth.name, truth.format, truth.column_order) == ("u", "tsv", U_DATA_ORDER)
    assert truth.columns == {"user": "field 1", "item": "field 2", "rating": "field 3"}
    assert truth.n_rows == 20  # the first line is a rating, not a header
    assert truth.table.iloc[0].tolist() == ["196", "242", 3.0]
    assert truth.table.iloc[-1].tolist() == ["234", "1184", 2.0]
    assert truth.warnings == [
        "No header line: read the columns as user, item, rating, timestamp (the first line "
        "holds numbers, which column names never are; the timestamp is not read). If that is "
        "not their order, name them with columns={'order': 'user,item,rating,timestamp'}."
    ]


def test_u_data_as_training_interactions_keeps_the_rating():
    seen = read_interactions(DATA / "u.data")
    assert seen.column_order == U_DATA_ORDER
    assert seen.columns == {"user": "field 1", "item": "field 2", "rating": "field 3"}
    assert seen.numbers()[:3].tolist() == [3.0, 3.0, 1.0]


@pytest.mark.parametrize(("data", "order", "columns"), [
    (b"u1,i1,5\nu1,i2,3\n", ("user", "item", "rating"),
     {"user": "field 1", "item": "field 2", "rating": "field 3"}),
    (b"1;10\n1;11\n", ("user", "item"), {"user": "field 1", "item": "field 2"}),
])
def test_a_ground_truth_of_two_or_three_columns(data, order, columns):
    truth = read_truth(data, name="t.csv")
    assert (truth.column_order, truth.columns) == (order, columns)


def test_two_columns_give_every_pair_rating_1():
    truth = read_truth(b"1\t10\n1\t11\n2\t10\n", name="t.tsv")
    assert truth.table["rating"].tolist() == [1.0, 1.0, 1.0]
    assert truth.warnings[0].startswith("No header line: read the columns as user, item (")


def test_a_run_of_user_item_score():
    run = read_run(DATA / "u_scores.tsv")
    assert (run.name, run.ranking, run.column_order) == ("u_scores", "score",
                                                        ("user", "item", "score"))
    assert run.table["score"].tolist()[:5] == [0.9, 0.75, 0.6, 0.45, 0.3]
    assert run.warnings == [
        "No header line: read the columns as user, item, score (the first line holds "
        "numbers, which column names never are). If that is not their order, name them with "
        "columns={'order': 'user,item,score'}."
    ]


def test_a_third_column_counting_up_within_each_user_is_a_rank():
    ranked = read_run(DATA / "u_ranks.tsv")
    assert (ranked.ranking, ranked.column_order) == ("rank", ("user", "item", "rank"))
    assert ranked.columns == {"user": "field 1", "item": "field 2", "rank": "field 3"}
    # rank 1 is best: score = -rank, so both files order every list the same way
    scored = read_run(DATA / "u_scores.tsv")
    assert ranked.table["item"].tolist() == scored.table["item"].tolist()
    assert ranked.table["score"].tolist()[:5] == [-1.0, -2.0, -3.0, -4.0, -5.0]
    assert "the third column counts 1, 2, 3... within each user, as a rank does" in (
        ranked.warnings[0])


@pytest.mark.parametrize("third", [
    ["1", "2", "1", "3"],    # u2's second row says 3
    ["1", "2", "2", "1"],    # u2 starts at 2
    ["1", "2.5", "1", "2"],  # not whole numbers
    ["0", "1", "0", "1"],    # counts from 0
])
def test_numbers_that_do_not_count_up_from_1_in_each_user_are_scores(third):
    users = ["u1", "u1", "u2", "u2"]
    data = "".join(f"{user},i{n},{value}\n" for n, (user, value) in
                   enumerate(zip(users, third, strict=True)))
    assert read_run(data.encode(), name="r.csv").ranking == "score"


def test_rows_of_a_user_need_not_be_together_to_count_up():
    run = read_run(b"u1,a,1\nu2,a,1\nu1,b,2\nu2,b,2\n", name="r.csv")
    assert run.ranking == "rank"


def test_quoted_values_and_decimal_commas_are_read_without_a_header():
    run = read_run(b'"u 1";i1;0,5\n"u 1";i2;0,25\n', name="r.csv")
    assert run.table["user"].tolist() == ["u 1", "u 1"]
    assert run.table["score"].tolist() == [0.5, 0.25]


def test_rows_are_line_numbers_without_a_header():
    # one typo in ten ratings: the column still holds numbers, and the typo is named
    lines = [f"1\t{item}\t{'five' if item == 16 else 5}\n" for item in range(10, 20)]
    error = error_of(read_truth, "".join(lines).encode(), "t.tsv")
    assert (error.row, error.column) == (7, "field 3")
    assert "'five' (row 7)" in error.problem


def test_a_line_of_another_width_is_compared_with_the_first_line():
    error = error_of(read_truth, b"1\t10\t5\n1\t11\t4\t99\n", "t.tsv")
    assert error.row == 2
    assert error.problem.startswith("this line has 4 fields where the first line has 3.")


# The order given by hand -------------------------------------------------------------------

@pytest.mark.parametrize("order", ["item,user,rating", "Item, User, Rating",
                                   ["item", "user", "rating"], ("item", "user", "rating")])
def test_the_order_given_by_hand(order):
    truth = read_truth(b"10\t1\t5\n11\t1\t3\n", name="t.tsv", columns={"order": order})
    assert truth.table.iloc[0].tolist() == ["1", "10", 5.0]
    assert truth.column_order == ("item", "user", "rating")
    assert truth.warnings == []  # nothing was assumed


def test_other_words_of_the_order_are_columns_left_unread():
    truth = read_truth(DATA / "u.data", columns={"order": "user,item,other,rating"})
    assert truth.columns == {"user": "field 1", "item": "field 2", "rating": "field 4"}
    assert truth.table["rating"].iloc[0] == 881250949.0
    shorter = read_truth(DATA / "u.data", columns={"order": "user,item,rating"})
    assert shorter.column_order == ("user", "item", "rating")  # the timestamp is left unread
    assert shorter.table["rating"].tolist() == read_truth(DATA / "u.data").table[
        "rating"].tolist()


def test_an_order_read_rank_and_score_as_told():
    # 1, 2 within each user, but the order says score: higher is better then
    run = read_run(b"u1,a,1\nu1,b,2\n", name="r.csv", columns={"order": "user,item,score"})
    assert (run.ranking, run.table["score"].tolist()) == ("score", [1.0, 2.0])


def test_an_order_reads_a_first_line_of_text_as_data():
    # No number on the first line: without the order it would be taken for a header.
    truth = read_truth(b"alice,matrix\nbob,alien\n", name="t.csv",
                       columns={"order": "user,item"})
    assert truth.table["user"].tolist() == ["alice", "bob"]


def test_a_column_chosen_by_field_name_with_the_rest_assumed():
    run = read_run(b"u1,a,2\nu1,b,1\n", name="r.csv", columns={"rank": "field 3"})
    assert (run.ranking, run.column_order) == ("rank", ("user", "item", "rank"))
    assert run.table["score"].tolist() == [-2.0, -1.0]


def test_a_column_chosen_by_a_name_a_headerless_file_lacks():
    error = error_of(read_run, b"u1,i1,0.5\n", "r.csv", columns={"user": "customer"})
    assert error.problem == ("the column 'customer' chosen for the user is not in the file. "
                             "Its columns are: 'field 1', 'field 2', 'field 3'.")


def test_an_order_for_a_file_with_a_header_is_refused():
    error = error_of(read_truth, b"user,item,rating\nu1,i1,5\n", "t.csv",
                     columns={"order": "user,item,rating"})
    assert error.row == 1
    assert error.problem.startswith(
        "the order of the columns was given, which is for a file without a header line, but "
        "the first line holds column names ('user', 'item', 'rating').")


def test_an_order_naming_more_columns_than_the_file_has():
    error = error_of(read_truth, b"1,10\n", "t.csv", columns={"order": "user,item,rating"})
    assert error.problem.startswith("the order names 3 columns (user, item, rating), but the "
                                    "first line has 2.")


def test_an_order_for_parquet_or_a_dataframe_is_refused():
    buffer = io.BytesIO()
    pq.write_table(pa.table({"a": ["u1"], "b": ["i1"], "c": [1.0]}), buffer)
    error = error_of(read_truth, buffer.getvalue(), "t.parquet",
                     columns={"order": "user,item,rating"})
    assert "a Parquet file names its columns: choose them by name instead" in error.problem
    with pytest.raises(DataError, match="a DataFrame names its columns"):
        truth_from_dataframe(pd.DataFrame({"a": ["u1"], "b": ["i1"]}), name="df",
                             columns={"order": "user,item"})


@pytest.mark.parametrize(("kind", "columns", "message"), [
    ("truth", {"order": "user,rating"}, "it lacks the item"),
    ("run", {"order": "user,item,rating"}, "rating is not read from a run in this layout; it "
     "lacks the score or rank"),
    ("run", {"order": "user,item,score,rank"}, "it names both a score and a rank"),
    ("truth", {"order": "user,item,user"}, "user is named twice"),
    ("truth", {"order": "user,,item"}, "the order of the columns has an empty word"),
    ("truth", {"order": 3}, "must be text such as 'user,item,rating' or a list of words"),
    ("truth", {"order": "user,item", "rating": "r"}, "either the order of the columns"),
])
def test_a_wrong_order_is_a_value_error_naming_the_problem(kind, columns, message):
    reader = read_run if kind == "run" else read_truth
    with pytest.raises(ValueError, match=message):
        reader(b"1,2,3\n", name="x.csv", columns=columns)


# What cannot be told -----------------------------------------------------------------------

def test_five_columns_cannot_be_told_apart():
    error = error_of(read_truth, b"1\t10\t5\t99\t7\n", "t.tsv")
    assert error.row == 1
    assert error.problem == (
        "the file has no header line (the first line holds '1', and column names are never "
        "numbers) and its 5 columns hold numbers, numbers, numbers, numbers, numbers, so their "
        "roles cannot be told: a ground truth without a header is read when it has 2 to 4 "
        "columns, the third holding numbers: user, item[, rating[, timestamp]]. Name the "
        "columns in their order with columns={'order': 'user,item,rating,other,other'}, or add "
        "a header line such as 'user,item,rating,other,other'.")


@pytest.mark.parametrize(("data", "shapes"), [
    (b"0.9,u1,i1\n", "numbers, text, text"),  # the score first: which text is the user?
    (b"u1,7\nu2,8\n", "text, numbers"),
    (b"u1,i1,0.5,3\n", "text, text, numbers, numbers"),
])
def test_a_run_without_a_header_in_another_shape(data, shapes):
    error = error_of(read_run, data, "r.csv")
    assert f"columns hold {shapes}, so their roles cannot be told: a model's output without " \
        "a header is read when it has 3 columns, the third holding numbers" in error.problem
    assert "columns={'order': 'user,item,score" in error.problem


def test_a_known_name_makes_the_first_line_a_header_even_beside_a_number():
    run = read_run(b"user,item,2024\nu1,i1,0.5\n", name="r.csv", columns={"score": "2024"})
    assert (run.column_order, run.n_rows) == (None, 1)


# TREC, headerless too, keeps its reading ---------------------------------------------------

@pytest.mark.parametrize(("data", "reader", "fmt"), [
    (b"301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n", read_truth, "trec_qrels"),
    (b"301\t0\tFBIS3-10082\t1\n302\t0\tFBIS3-10169\t0\n", read_truth, "trec_qrels"),
    (b"301 Q0 FBIS3-10082 1 0.9 tag\n301 Q0 FBIS3-10169 2 0.8 tag\n", read_run, "trec_run"),
])
def test_trec_shapes_are_still_trec(data, reader, fmt):
    table = reader(data, name="results.test")
    assert (table.format, table.column_order, table.warnings) == (fmt, None, [])
    assert table.name == "results"
