"""RecBole's atomic files: ``.inter`` read as a ground truth, a run or training interactions,
``.user`` and ``.item`` as attributes, the types of their headers deciding; and the names
tables get from files with other extensions (TREC's ``results.test``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import (
    file_stem,
    read_attributes,
    read_interactions,
    read_run,
    read_truth,
)

DATA = Path(__file__).parent / "data" / "io"
TREC_EVAL = Path(__file__).parent / "fixtures" / "trec_eval"


def test_an_inter_file_is_a_ground_truth():
    truth = read_truth(DATA / "ml-100k.inter")
    assert (truth.name, truth.format, truth.column_order) == ("ml-100k", "recbole", None)
    assert truth.columns == {"user": "user_id", "item": "item_id", "rating": "rating"}
    assert truth.warnings == []
    # the same ratings as GroupLens' u.data, the header aside
    plain = read_truth(DATA / "u.data")
    assert truth.table.equals(plain.table)


def test_an_inter_file_as_training_interactions():
    seen = read_interactions(DATA / "ml-100k.inter")
    assert seen.columns == {"user": "user_id", "item": "item_id", "rating": "rating"}
    assert seen.n_rows == 20


def test_a_model_output_in_recbole_shape():
    data = b"user_id:token\titem_id:token\tscore:float\nu1\ti1\t0.9\nu1\ti2\t0.4\n"
    run = read_run(data, name="bpr.inter")
    assert (run.name, run.format, run.ranking) == ("bpr", "recbole", "score")
    assert run.table["score"].tolist() == [0.9, 0.4]


@pytest.mark.parametrize(("data", "name"), [
    (b"user_id:token,item_id:token,rating:float\n1,2,5\n", "ratings.csv"),  # any extension
    (b"User_ID : token\tItem_ID:TOKEN\tRating:float\n1\t2\t5\n", "ratings.txt"),
])
def test_the_header_tells_recbole_whatever_the_name(data, name):
    truth = read_truth(data, name=name)
    assert truth.format == "recbole"
    assert set(truth.columns) == {"user", "item", "rating"}


def test_a_column_chosen_with_or_without_its_type():
    # the timestamp as the rating, to tell the columns apart
    for chosen in ("timestamp", "timestamp:float"):
        truth = read_truth(DATA / "ml-100k.inter", columns={"rating": chosen})
        assert truth.columns["rating"] == "timestamp"
        assert truth.numbers()[0] == 881250949.0


def test_one_untyped_name_makes_it_an_ordinary_header():
    with pytest.raises(DataError) as info:
        read_truth(b"user_id:token\titem_id\trating:float\n1\t2\t5\n", name="t.tsv")
    assert info.value.problem.startswith(
        "no user and no rating column found. The file's columns are: 'user_id:token', "
        "'item_id', 'rating:float'.")


def test_recbole_asked_for_without_types_is_refused():
    with pytest.raises(DataError) as info:
        read_truth(b"user\titem\trating\n1\t2\t5\n", name="t.tsv", format="recbole")
    assert info.value.row == 1
    assert info.value.problem.startswith(
        "the first line is not a RecBole header: RecBole's atomic files name each column with "
        "its type, such as 'user_id:token', 'rating:float' or 'genre:token_seq'")


def test_an_item_file_is_item_attributes_typed_by_its_header():
    items = read_attributes(DATA / "ml-100k.item", key="item")
    assert (items.name, items.format, items.key_column) == ("ml-100k", "recbole", "item_id")
    # token_seq: several categories separated by spaces; token: one category, even "1996"
    assert items.kinds == {"movie_title": "categories", "release_year": "category",
                           "class": "categories"}
    kolya, confidential = items.table.iloc[0], items.table.iloc[1]
    assert kolya["class"] == ("Comedy",)
    assert confidential["class"] == ("Crime", "Film-Noir", "Mystery", "Thriller")
    assert confidential["movie_title"] == ("L.A.", "Confidential")
    assert items.column("release_year")["242"] == "1996"
    assert items.warnings == []


def test_a_user_file_is_user_attributes():
    users = read_attributes(DATA / "ml-100k.user", key="user")
    assert users.kinds == dict.fromkeys(["age", "gender", "occupation", "zip_code"],
                                        "category")
    assert users.column("zip_code")["186"] == "00000"  # a token keeps its leading zeros
    assert users.column("age")["196"] == "49"


def test_float_columns_are_numbers_and_float_seq_is_left_out():
    data = (b"item_id:token\tyear:float\tembedding:float_seq\tgenre:token_seq\n"
            b"i1\t1995\t0.1 0.2\tAction Comedy\n"
            b"i2\t\t0.3 0.4\t\n")
    items = read_attributes(data, name="films.item", key="item")
    assert items.kinds == {"year": "number", "genre": "categories"}
    assert items.table["year"].tolist()[0] == 1995.0 and np.isnan(items.table["year"][1])
    assert items.table["genre"].tolist() == [("Action", "Comedy"), None]
    assert items.warnings == ["Column 'embedding' (float_seq: several numbers in each row) is "
                              "not read: an attribute is a category, several categories or a "
                              "number."]


def test_a_float_column_holding_text_names_the_row():
    data = b"user_id:token\tage:float\nu1\t31\nu2\tthirty\n"
    with pytest.raises(DataError) as info:
        read_attributes(data, name="people.user", key="user")
    assert (info.value.row, info.value.column) == (3, "age")
    assert info.value.problem.startswith(
        "the header declares the column a number (float), but 'thirty' (row 3) is not one.")


def test_the_key_chosen_with_its_type():
    users = read_attributes(DATA / "ml-100k.user", key="user", columns={"user": "user_id:token"})
    assert users.key_column == "user_id"


@pytest.mark.parametrize(("file_name", "stem"), [
    ("results.test", "results"), ("qrels.test", "qrels"), ("results.trunc", "results"),
    ("ml-100k.inter", "ml-100k"), ("u.data", "u"), ("model_a.csv.gz", "model_a"),
    ("run.res", "run"), ("model_v1.5", "model_v1.5"), ("als.baseline", "als.baseline"),
    ("README", "README"),
])
def test_a_table_is_named_after_its_file_without_its_extension(file_name, stem):
    assert file_stem(file_name) == stem


def test_a_trec_run_is_named_without_its_extension():
    assert read_run(TREC_EVAL / "results.test").name == "results"
