"""Reading each supported format: the same small run must come out the same every way."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmetrics.io import (
    FORMATS,
    LoadedTable,
    rating_values,
    read_run,
    read_truth,
    run_from_dataframe,
    truth_from_dataframe,
)

DATA = Path(__file__).parent / "data" / "io"

# The run every run fixture holds: u1 -> 007 (0.9), i2 (0.5); u2 -> i1 (0.75), 007 (0.25).
EXPECTED_RUN = pd.DataFrame({
    "user": ["u1", "u1", "u2", "u2"],
    "item": ["007", "i2", "i1", "007"],
    "score": [0.9, 0.5, 0.75, 0.25],
})


def assert_expected_run(run: LoadedTable) -> None:
    assert run.kind == "run"
    assert str(run.table["user"].dtype) == "str"
    assert str(run.table["item"].dtype) == "str"
    assert run.table["score"].dtype == "float64"
    assert run.table["user"].tolist() == EXPECTED_RUN["user"].tolist()
    assert run.table["item"].tolist() == EXPECTED_RUN["item"].tolist()
    assert run.table["score"].tolist() == EXPECTED_RUN["score"].tolist()
    assert (run.n_rows, run.n_users, run.n_items) == (4, 2, 3)


@pytest.mark.parametrize(
    ("file_name", "fmt", "columns"),
    [
        ("run.csv", "csv", {"user": "userId", "item": "movieId", "score": "prediction"}),
        ("run.tsv", "tsv", {"user": "user_id", "item": "item_id", "score": "score"}),
        ("run.jsonl", "jsonl", {"user": "query_id", "item": "doc_id", "score": "score"}),
        ("run_trec.txt", "trec_run", {"user": "field 1", "item": "field 3", "score": "field 5"}),
    ],
)
def test_each_text_format_reads_the_same_run(file_name, fmt, columns):
    run = read_run(DATA / file_name)
    assert_expected_run(run)
    assert (run.format, run.columns, run.ranking) == (fmt, columns, "score")
    assert run.name == Path(file_name).stem
    assert run.source == file_name
    assert run.warnings == []


def test_semicolon_csv_with_decimal_commas():
    run = read_run(DATA / "run_semicolon.csv")
    assert_expected_run(run)
    assert run.format == "csv"
    assert run.columns == {"user": "User", "item": "Item", "score": "Score"}
    assert run.warnings == ["Read 4 scores written with a decimal comma (e.g. '0,9' as 0.9)."]


def test_pipe_delimited_csv():
    data = b"user|item|score\nu1|007|0.9\nu1|i2|0.5\nu2|i1|0.75\nu2|007|0.25\n"
    assert_expected_run(read_run(data, name="run.psv"))


def test_gzip_csv(tmp_path):
    path = tmp_path / "model_a.csv.gz"
    path.write_bytes(gzip.compress((DATA / "run.csv").read_bytes()))
    run = read_run(path)
    assert_expected_run(run)
    assert (run.name, run.source, run.format) == ("model_a", "model_a.csv.gz", "csv")


def test_zip_with_one_csv(tmp_path):
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(DATA / "run.csv", "model_b.csv")
    run = read_run(path)
    assert_expected_run(run)
    assert (run.name, run.source, run.format) == ("export", "export.zip", "csv")


def test_zip_uploaded_as_bytes_ignores_mac_metadata():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("__MACOSX/._run.csv", b"junk")
        archive.writestr("run.tsv", (DATA / "run.tsv").read_bytes())
    run = read_run(buffer.getvalue(), name="model_c.zip")
    assert_expected_run(run)
    assert run.format == "tsv"


def test_parquet(tmp_path):
    path = tmp_path / "model_d.parquet"
    EXPECTED_RUN.rename(columns={"user": "UserID", "score": "Prediction"}).to_parquet(path)
    run = read_run(path)
    assert_expected_run(run)
    assert run.format == "parquet"
    assert run.columns == {"user": "UserID", "item": "item", "score": "Prediction"}


def test_parquet_with_numeric_ids_reads_them_as_plain_text(tmp_path):
    path = tmp_path / "ids.parquet"
    pq.write_table(pa.table({
        "user": pa.array([12, 12, 7], pa.int64()),
        "item": pa.array([1.0, 2.0, 1.0]),  # whole floats, as pandas leaves ids after a NaN
        "score": pa.array([3, 2, 1], pa.int32()),
    }), path)
    run = read_run(path)
    assert run.table["user"].tolist() == ["12", "12", "7"]
    assert run.table["item"].tolist() == ["1", "2", "1"]
    assert run.table["score"].tolist() == [3.0, 2.0, 1.0]


def test_parquet_detected_by_content_whatever_the_name():
    buffer = io.BytesIO()
    EXPECTED_RUN.to_parquet(buffer)
    run = read_run(buffer.getvalue(), name="download")
    assert_expected_run(run)
    assert (run.format, run.name) == ("parquet", "download")


def test_trec_qrels():
    truth = read_truth(DATA / "qrels.txt")
    assert truth.format == "trec_qrels"
    assert truth.columns == {"user": "field 1", "item": "field 3", "rating": "field 4"}
    assert truth.table["item"].tolist() == ["007", "i3", "i1", "i9"]
    assert truth.table["rating"].tolist() == [1.0, 0.0, 2.0, 1.0]
    assert truth.ranking is None
    assert rating_values(truth).tolist() == [1.0, 0.0, 2.0, 1.0]


@pytest.mark.parametrize("file_name", ["run", "run.run", "bm25.res"])
def test_trec_run_detected_by_shape_whatever_the_extension(file_name):
    run = read_run((DATA / "run_trec.txt").read_bytes(), name=file_name)
    assert run.format == "trec_run"
    assert_expected_run(run)


def test_trec_run_ranks_by_score_not_by_the_rank_field():
    # trec_eval ignores the rank field: the score decides.
    run = read_run(b"q1 Q0 d1 1 0.2 x\nq1 Q0 d2 2 0.8 x\n", name="r.txt")
    assert run.ranking == "score"
    assert run.table["score"].tolist() == [0.2, 0.8]


def test_headerless_tab_file_is_not_mistaken_for_trec():
    # MovieLens u.data: user, item, rating, timestamp; the 2nd field varies, so it is no qrels.
    data = b"196\t242\t3\t881250949\n186\t302\t3\t891717742\n"
    truth = read_truth(data, name="u.data")
    assert (truth.format, truth.column_order) == ("tsv", ("user", "item", "rating", "timestamp"))


def test_truth_csv():
    truth = read_truth(DATA / "truth.csv")
    assert (truth.kind, truth.format, truth.ranking) == ("truth", "csv", None)
    assert truth.table.columns.tolist() == ["user", "item", "rating"]
    assert truth.table["rating"].tolist() == [5.0, 2.0, 4.0, 3.0]


# List layout -------------------------------------------------------------------------------

# u1's list: 007, i2, i12 -> scores -1, -2, -3; u2's: i1, 007 -> -1, -2.
LIST_ITEMS = ["007", "i2", "i12", "i1", "007"]
LIST_SCORES = [-1.0, -2.0, -3.0, -1.0, -2.0]


def assert_list_run(run: LoadedTable, fmt: str) -> None:
    assert run.format == fmt
    assert run.ranking == "list_position"
    assert run.table["user"].tolist() == ["u1", "u1", "u1", "u2", "u2"]
    assert run.table["item"].tolist() == LIST_ITEMS
    assert run.table["score"].tolist() == LIST_SCORES


def test_list_layout_csv():
    run = read_run(DATA / "list_run.csv")
    assert_list_run(run, "list_csv")
    assert run.columns == {"user": "user", "items": "items"}


def test_list_layout_jsonl():
    assert_list_run(read_run(DATA / "list_run.jsonl"), "list_jsonl")


def test_list_layout_parquet(tmp_path):
    path = tmp_path / "lists.parquet"
    pq.write_table(pa.table({
        "user": ["u1", "u2"],
        "recommendations": [["007", "i2", "i12"], ["i1", "007"]],
    }), path)
    run = read_run(path)
    assert_list_run(run, "list_parquet")
    assert run.columns == {"user": "user", "items": "recommendations"}


@pytest.mark.parametrize(
    "cells",
    [
        ['"007|i2|i12"', '"i1|007"'],
        ['"007;i2;i12"', '"i1;007"'],
        ['"007, i2, i12"', '"i1, 007"'],
        ['"[\'007\', \'i2\', \'i12\']"', '"[\'i1\', \'007\']"'],  # a list saved by pandas
    ],
)
def test_list_layout_csv_separators(cells):
    data = f"user,recs\nu1,{cells[0]}\nu2,{cells[1]}\n".encode()
    assert_list_run(read_run(data, name="lists.csv"), "list_csv")


def test_list_layout_semicolon_file_with_comma_lists():
    data = b"user;items\nu1;007,i2,i12\nu2;i1,007\n"
    assert_list_run(read_run(data, name="lists.csv"), "list_csv")


def test_list_layout_forced_by_format():
    data = b"user,items\nu1,007 i2 i12\nu2,i1 007\n"
    assert_list_run(read_run(data, name="x.txt", format="list_csv"), "list_csv")


def test_list_layout_empty_list_is_a_warning():
    data = b'{"user": "u1", "items": ["a", "b"]}\n{"user": "u2", "items": []}\n'
    run = read_run(data, name="lists.jsonl")
    assert run.table["user"].tolist() == ["u1", "u1"]
    assert run.warnings == ["1 user has an empty list of items; they are treated as users "
                            "the model recommended nothing to."]


def test_list_layout_ground_truth_gives_rating_one():
    truth = read_truth(b"user,liked\nu1,a|b\nu2,c\n", name="liked.csv")
    assert truth.format == "list_csv"
    assert truth.table["item"].tolist() == ["a", "b", "c"]
    assert truth.table["rating"].tolist() == [1.0, 1.0, 1.0]
    assert "every (user, item) pair in it counts as relevant" in truth.warnings[0]


# Ids, names and sources --------------------------------------------------------------------

def test_ids_keep_leading_zeros_and_are_never_numbers():
    run = read_run(b"user,item,score\n001,007,1\n001,7,0.5\n010,0.50,0.2\n", name="ids.csv")
    assert run.table["user"].tolist() == ["001", "001", "010"]
    assert run.table["item"].tolist() == ["007", "7", "0.50"]


def test_ids_as_strings_false_writes_whole_numbers_one_way():
    run = read_run(b"user,item,score\n001,007,1\n001,8.0,0.5\n", name="ids.csv",
                   ids_as_strings=False)
    assert run.table["user"].tolist() == ["1", "1"]
    assert run.table["item"].tolist() == ["7", "8"]
    assert str(run.table["item"].dtype) == "str"


def test_ids_are_stripped_of_surrounding_spaces():
    run = read_run(b"user, item, score\n u1 , i1 , 1\n", name="spaces.csv")
    assert run.table[["user", "item"]].iloc[0].tolist() == ["u1", "i1"]


def test_uploaded_file_object_with_a_name():
    upload = io.BytesIO((DATA / "run.csv").read_bytes())
    upload.name = "uploads/model_e.csv"
    run = read_run(upload)
    assert_expected_run(run)
    assert (run.name, run.source) == ("model_e", "model_e.csv")


def test_display_name_can_be_given():
    run = read_run(DATA / "run.csv", name="Model A")
    assert (run.name, run.source) == ("Model A", "run.csv")


def test_utf8_bom_is_accepted():
    run = read_run("\ufeffuser,item,score\nu1,café,1\n".encode(), name="bom.csv")
    assert run.columns["user"] == "user"
    assert run.table["item"].tolist() == ["café"]


def test_format_override_is_checked():
    with pytest.raises(ValueError, match="format= must be one of"):
        read_run(DATA / "run.csv", format="xlsx")


def test_formats_constant_lists_every_format():
    assert set(FORMATS) == {"csv", "tsv", "recbole", "parquet", "jsonl", "trec_run", "trec_qrels",
                            "list_csv", "list_parquet", "list_jsonl", "dataframe"}


# DataFrames --------------------------------------------------------------------------------

def test_run_from_dataframe_with_numeric_ids():
    df = pd.DataFrame({"userId": [1, 1, 2], "movieId": [10.0, 20.0, 10.0],
                       "prediction": [4.5, 3.0, 2.0]})
    run = run_from_dataframe(df, name="als")
    assert (run.format, run.source, run.name) == ("dataframe", "als", "als")
    assert run.table["user"].tolist() == ["1", "1", "2"]
    assert run.table["item"].tolist() == ["10", "20", "10"]


def test_run_from_dataframe_with_lists_and_a_named_index():
    df = pd.DataFrame({"items": [["a", "b"], ["c"]]},
                      index=pd.Index(["u1", "u2"], name="user_id"))
    run = run_from_dataframe(df, name="lists")
    assert run.ranking == "list_position"
    assert run.table["item"].tolist() == ["a", "b", "c"]
    assert run.table["score"].tolist() == [-1.0, -2.0, -1.0]


def test_truth_from_dataframe():
    df = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "label": [True, False]})
    truth = truth_from_dataframe(df, name="qrels")
    assert truth.table["rating"].tolist() == [1.0, 0.0]


def test_windows_line_endings():
    run = read_run(b"user,item,score\r\nu1,i1,1\r\nu1,i2,0.5\r\n", name="win.csv")
    assert run.table["item"].tolist() == ["i1", "i2"]
    assert run.warnings == []


def test_tab_separated_qrels():
    truth = read_truth(b"q1\t0\td1\t1\nq1\t0\td2\t0\n", name="judged.tsv")
    assert (truth.format, truth.table["rating"].tolist()) == ("trec_qrels", [1.0, 0.0])


def test_json_numbers_as_ids_are_written_plainly():
    run = read_run(b'{"user": 12, "item": 7.0, "score": "0.5"}\n', name="numbers.jsonl")
    assert run.table.iloc[0].tolist() == ["12", "7", 0.5]
