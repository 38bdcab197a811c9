"""Reading user and item attributes: every format, typed columns, ids that match the other files,
and one DataError naming the file, the row and the column for each problem."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import attributes_from_dataframe, read_attributes, read_truth

USERS_CSV = (b"user_id,country,age,interests\n"
             b"007,FR,31,sport|music\n"
             b" u2 ,DE,,\n"
             b"u3,FR,45.5,music\n")


def error_of(data: bytes, name: str, **options) -> DataError:
    with pytest.raises(DataError) as info:
        read_attributes(data, name=name, **options)
    return info.value


def parquet_bytes(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


# Typed columns -----------------------------------------------------------------------------

def test_csv_columns_are_typed_and_ids_kept_as_written():
    users = read_attributes(USERS_CSV, name="users.csv")
    assert (users.key, users.name, users.source, users.format, users.key_column) == (
        "user", "users", "users.csv", "csv", "user_id")
    assert users.kinds == {"country": "category", "age": "number", "interests": "categories"}
    assert users.ids.tolist() == ["007", "u2", "u3"]
    assert str(users.ids.dtype) == "str"
    table = users.table
    assert table["country"].tolist() == ["FR", "DE", "FR"]
    assert table["age"].dtype == np.float64
    assert table["age"].iloc[[0, 2]].tolist() == [31.0, 45.5] and np.isnan(table["age"].iloc[1])
    assert table["interests"].tolist() == [("sport", "music"), None, ("music",)]
    assert users.warnings == []


def test_semicolon_separated_categories_in_a_tab_file():
    data = b"item\tgenres\ni1\tAction ; Comedy\ni2\tDrama\n"
    items = read_attributes(data, name="items.tsv", key="item")
    assert items.format == "tsv"
    assert items.kinds == {"genres": "categories"}
    assert items.table["genres"].tolist() == [("Action", "Comedy"), ("Drama",)]


def test_categories_keep_one_space_inside_and_none_around_and_blank_rows_are_dropped():
    # tabs, runs of spaces and non-breaking spaces are all whitespace, inside and around
    data = ("item,genres\ni1,  Science \t  fiction |\u00a0Drama\u00a0| \ni2, | \n"
            "i3,Comedy\n \u00a0 , \t \n").encode()
    items = read_attributes(data, name="items.csv", key="item")
    assert items.ids.tolist() == ["i1", "i2", "i3"]
    assert items.table["genres"].tolist() == [("Science fiction", "Drama"), None, ("Comedy",)]


def test_item_key_found_by_its_usual_names():
    items = read_attributes(b"movieId,title\n1,Heat\n2,Up\n", name="movies.csv", key="item")
    assert items.key_column == "movieId"
    assert items.table.columns.tolist() == ["item", "title"]
    assert items.column("title").to_dict() == {"1": "Heat", "2": "Up"}


def test_parquet_numbers_lists_and_numeric_ids_match_the_ground_truth():
    table = pa.table({
        "user": pa.array([12, 7], pa.int64()),
        "plan": pa.array(["free", "paid"]).dictionary_encode(),
        "age": pa.array([30, None], pa.int32()),
        "tags": pa.array([["a", "b"], []], pa.list_(pa.string())),
    })
    users = read_attributes(parquet_bytes(table), name="users.parquet")
    truth = read_truth(parquet_bytes(pa.table({"user": pa.array([12, 7], pa.int64()),
                                               "item": ["i1", "i2"], "rating": [1, 1]})),
                       name="truth.parquet")
    assert users.ids.tolist() == truth.table["user"].tolist() == ["12", "7"]
    assert users.kinds == {"plan": "category", "age": "number", "tags": "categories"}
    assert users.table["plan"].tolist() == ["free", "paid"]
    assert users.table["tags"].tolist() == [("a", "b"), None]


def test_json_lines_with_lists_numbers_and_keys_missing_from_some_lines():
    lines = [{"user": "u1", "genres": ["x", "y"], "age": 20},
             {"user": "u2", "age": 31.5, "plan": "free"}]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    users = read_attributes(data, name="users.jsonl")
    assert users.kinds == {"genres": "categories", "age": "number", "plan": "category"}
    assert users.table["genres"].tolist() == [("x", "y"), None]
    assert users.table["age"].tolist() == [20.0, 31.5]
    assert users.table["plan"].isna().tolist() == [True, False]


def test_dataframe_float_ids_are_written_as_the_ground_truth_writes_them():
    df = pd.DataFrame({"userId": [1.0, 2.0], "vip": [True, False], "score": [0.5, 2.0]})
    users = attributes_from_dataframe(df, key="user", name="frame")
    assert users.ids.tolist() == ["1", "2"]
    assert users.kinds == {"vip": "category", "score": "number"}
    assert users.table["vip"].tolist() == ["True", "False"]
    assert users.format == "dataframe"


def test_dataframe_named_index_is_the_key_and_list_cells_are_categories():
    df = pd.DataFrame({"genres": [["a"], ["b", "c"]]}, index=pd.Index(["i1", "i2"], name="item"))
    items = attributes_from_dataframe(df, key="item", name="frame")
    assert items.table["genres"].tolist() == [("a",), ("b", "c")]


def test_ids_as_strings_false_writes_whole_numbers_one_way():
    users = read_attributes(b"user,plan\n007,free\n8.0,paid\n", name="u.csv",
                            ids_as_strings=False)
    assert users.ids.tolist() == ["7", "8"]


def test_decimal_comma_in_a_semicolon_file_is_read_with_a_note():
    users = read_attributes(b"user;spend\nu1;0,5\nu2;2\n", name="u.csv")
    assert users.table["spend"].tolist() == [0.5, 2.0]
    assert users.warnings == ["Read column 'spend' as numbers written with a decimal comma "
                              "(e.g. '0,5' as 0.5)."]


def test_mostly_numbers_with_a_typo_stays_categories_and_says_where():
    users = read_attributes(b"user,age\nu1,30\nu2,unknown\nu3,41\n", name="u.csv")
    assert users.kinds == {"age": "category"}
    assert users.warnings == ["Column 'age' is read as categories, not numbers: 'unknown' "
                              "(row 3) is not a number. If it holds numbers, correct or empty "
                              "those cells."]


def test_empty_rows_are_skipped_with_a_warning():
    users = read_attributes(b"user,plan\nu1,free\n,\n\nu2,paid\n", name="u.csv")
    assert users.ids.tolist() == ["u1", "u2"]
    assert users.warnings == ["Skipped 2 empty rows."]


def test_key_column_override():
    users = read_attributes(b"customer,user_segment\nc1,a\n", name="u.csv",
                            columns={"user": "customer"})
    assert users.key_column == "customer" and users.kinds == {"user_segment": "category"}


def test_gzip_file_is_read():
    users = read_attributes(gzip.compress(USERS_CSV), name="users.csv.gz")
    assert users.name == "users" and users.ids.tolist() == ["007", "u2", "u3"]


# Problems ----------------------------------------------------------------------------------

def test_a_repeated_key_names_its_rows():
    error = error_of(b"user,plan\nu1,free\nu2,paid\nu1,paid\nu2,free\nu2,gold\n", "u.csv")
    assert (error.file, error.row, error.column) == ("u.csv", 4, "user")
    assert error.problem == (
        "user 'u1' is on rows 2 and 4; user 'u2' is on rows 3, 5 and 6. Attributes give one row "
        "per user: keep one of those rows (or put several categories in one cell, separated "
        "by '|').")


def test_a_missing_key_names_its_rows():
    error = error_of(b"user,plan\nu1,free\n ,paid\n", "u.csv")
    assert (error.file, error.row, error.column) == ("u.csv", 3, "user")
    assert error.problem.startswith("1 row has no user id: row 3.")


def test_no_key_column_says_which_names_are_recognised():
    error = error_of(b"customer,plan\nc1,free\n", "u.csv")
    assert error.problem.startswith("no user column found. The file's columns are: "
                                    "'customer', 'plan'.")
    assert "columns={'user': 'customer'}" in error.problem


def test_a_headerless_file_is_told_to_add_a_header():
    error = error_of(b"1,2\n3,4\n", "u.csv")
    assert "add a header line such as 'user,country,age'" in error.problem


def test_a_line_with_too_many_fields_names_its_line():
    error = error_of(b"user,plan\nu1,free\nu2,paid,extra\n", "u.csv")
    assert (error.row, error.problem.split(".")[0]) == (
        3, "this line has 3 fields where the header has 2")


def test_not_utf8_names_the_line():
    error = error_of("user,city\nu1,Zürich\n".encode("latin-1"), "u.csv")
    assert (error.file, error.row) == ("u.csv", 2)
    assert "not UTF-8" in error.problem


def test_decompressed_size_limit_applies():
    data = gzip.compress(b"user,plan\n" + b"u1,free\n" * 1000)
    error = error_of(data, "u.csv.gz", max_decompressed_size=1000)
    assert "holds more than" in error.problem


def test_a_trec_file_is_not_taken_for_attributes():
    error = error_of(b"q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4 tag\n", "run.txt")
    assert error.problem.startswith("this file has the shape of a TREC run file")


def test_repeated_or_blank_header_names():
    assert "more than one column 'plan'" in error_of(b"user,plan,plan\nu1,a,b\n",
                                                     "u.csv").problem
    assert error_of(b"user,,plan\nu1,a,b\n", "u.csv").problem.startswith(
        "column 2 has no name")


def test_infinite_number_names_its_row():
    df = pd.DataFrame({"user": ["a", "b"], "spend": [1.0, np.inf]})
    with pytest.raises(DataError) as info:
        attributes_from_dataframe(df, key="user", name="frame")
    assert (info.value.row, info.value.column) == (2, "spend")


def test_an_object_cell_names_its_row():
    data = b'{"user": "u1", "plan": {"a": 1}}\n'
    error = error_of(data, "u.jsonl")
    assert (error.row, error.column) == (1, "plan")


@pytest.mark.parametrize("options, message", [
    ({"key": "query"}, "key= must be 'user' or 'item'. Got 'query'."),
    ({"columns": {"item": "x"}}, "columns= must be a dict naming the user column"),
    ({"format": "trec_run"}, "format= must be one of 'csv', 'tsv', 'recbole', 'parquet', 'jsonl'"),
])
def test_bad_arguments_name_the_argument(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_attributes(USERS_CSV, name="users.csv", **options)
