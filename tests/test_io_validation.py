"""Every problem with a file is one DataError naming the file, the row, the column and the fix."""

from __future__ import annotations

import ast
import gzip
import io
import zipfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import rankmetrics.io
from rankmetrics.errors import DataError
from rankmetrics.io import read_run, read_truth, run_from_dataframe
from rankmetrics.io._hashing import hash_text


def error_of(reader, data: bytes, name: str, **options) -> DataError:
    with pytest.raises(DataError) as info:
        reader(data, name=name, **options)
    return info.value


# Empty and unreadable files ----------------------------------------------------------------

@pytest.mark.parametrize("data", [b"", b"\n\n  \n"])
def test_empty_file(data):
    error = error_of(read_run, data, "empty.csv")
    assert str(error) == "empty.csv: the file is empty: it has no rows."


def test_header_without_rows():
    error = error_of(read_run, b"user,item,score\n", "header.csv")
    assert str(error) == "header.csv: the file has column names but no data rows."


def test_only_empty_rows_after_the_header():
    error = error_of(read_run, b"user,item,score\n,,\n\n", "blank.csv")
    assert str(error) == "blank.csv: the file has column names but no data rows."


def test_parquet_without_rows():
    buffer = io.BytesIO()
    pd.DataFrame({"user": pd.Series([], dtype=str), "item": pd.Series([], dtype=str),
                  "score": pd.Series([], dtype=float)}).to_parquet(buffer)
    error = error_of(read_run, buffer.getvalue(), "none.parquet")
    assert str(error) == "none.parquet: the file has no rows."


def test_empty_rows_are_skipped_with_a_warning():
    run = read_run(b"user,item,score\nu1,i1,1\n\n,,\nu1,i2,0.5\n", name="gaps.csv")
    assert run.table["item"].tolist() == ["i1", "i2"]
    assert run.warnings == ["Skipped 2 empty rows."]


def test_latin1_file_names_the_line_and_how_to_resave():
    data = "user,item,score\nu1,i1,1\nu1,Café,1\n".encode("latin-1")
    error = error_of(read_run, data, "excel.csv")
    assert (error.file, error.row) == ("excel.csv", 3)
    message = str(error)
    assert message.startswith("excel.csv, row 3: the file is not UTF-8 text")
    assert "byte 0xe9" in message
    assert "read as Latin-1 the line is 'u1,Café,1'" in message
    assert "Re-save it as UTF-8 (Excel: Save As > 'CSV UTF-8 (Comma delimited)')" in message


def test_latin1_beyond_the_sniffed_head_is_still_located():
    data = b"user,item,score\n" + b"u1,i1,1\n" * 10_000 + "u2,Café,1\n".encode("latin-1")
    error = error_of(read_run, data, "late.csv")
    assert error.row == 10_002
    assert "not UTF-8 text" in str(error)


def test_utf16_file():
    data = "user\titem\tscore\nu1\ti1\t1\n".encode("utf-16")
    error = error_of(read_run, data, "unicode.txt")
    assert str(error).startswith("unicode.txt: the file is UTF-16 text")
    assert "Re-save it as UTF-8" in str(error)


def test_binary_junk():
    error = error_of(read_run, bytes(range(256)) * 4, "junk.csv")
    assert str(error).startswith("junk.csv: the file holds binary data, not text")
    assert "rankmetrics reads CSV or TSV text" in str(error)


def test_parquet_that_is_not():
    error = error_of(read_run, b"user,item,score\nu1,i1,1\n", "renamed.parquet")
    assert str(error).startswith("renamed.parquet: the file is not a valid Parquet file")
    assert "Export it again" in str(error)


def test_truncated_parquet():
    buffer = io.BytesIO()
    pd.DataFrame({"user": ["u1"], "item": ["i1"], "score": [1.0]}).to_parquet(buffer)
    error = error_of(read_run, buffer.getvalue()[:-30], "cut.parquet")
    assert str(error).startswith("cut.parquet: the file is not a valid Parquet file")


def test_truncated_gzip():
    data = gzip.compress(b"user,item,score\n" + b"".join(
        b"u%d,i%d,%d\n" % (i, i, i) for i in range(5000)))
    error = error_of(read_run, data[: len(data) // 2], "cut.csv.gz")
    assert str(error).startswith("cut.csv.gz: the gzip file is damaged or was cut short")


def test_zip_with_several_files():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.csv", "user,item,score\n")
        archive.writestr("b.csv", "user,item,score\n")
    error = error_of(read_run, buffer.getvalue(), "both.zip")
    assert str(error) == (
        "both.zip: the zip archive holds 2 files (a.csv, b.csv); it must hold exactly one "
        "table. Load the file itself, or zip only that one file."
    )


def test_excel_workbook():
    error = error_of(read_run, b"PK\x03\x04whatever", "book.xlsx")
    assert "spreadsheet workbook" in str(error)
    assert "Save As > 'CSV UTF-8 (Comma delimited)'" in str(error)


def test_missing_path():
    with pytest.raises(DataError, match="there is no such file"):
        read_run("/nonexistent/runs.csv")


def test_json_array_instead_of_json_lines():
    error = error_of(read_run, b'[{"user": "u1", "item": "i1", "score": 1}]', "run.json")
    assert "one JSON array; rankmetrics reads JSON Lines" in str(error)


def test_broken_json_line():
    data = b'{"user": "u1", "item": "i1", "score": 1}\n\n{"user": "u1", item}\n'
    error = error_of(read_run, data, "run.jsonl")
    assert (error.row, error.file) == (3, "run.jsonl")
    assert str(error).startswith("run.jsonl, row 3: this line is not valid JSON")


# Lines that do not split into the columns --------------------------------------------------

def test_csv_line_with_an_unquoted_separator():
    data = b"user,item,score\nu1,i1,1\nu1,The Matrix, Reloaded,0.5\n"
    error = error_of(read_run, data, "titles.csv")
    assert str(error) == (
        "titles.csv, row 3: this line has 4 fields where the header has 3. A value probably "
        'contains the separator (a comma): put such values in double quotes ("..."); or a '
        "value is missing or one too many."
    )


def test_csv_line_with_a_missing_field_and_more_like_it():
    data = b"user;item;score\nu1;i1;1\nu1;i2\nu1;i3\n"
    error = error_of(read_run, data, "short.csv")
    assert error.row == 3
    assert "this line has 2 fields where the header has 3" in str(error)
    assert "(a semicolon)" in str(error)
    assert "1 more line has the same problem." in str(error)


def test_csv_unclosed_quote():
    error = error_of(read_run, b'user,item,score\nu1,"i1,1\nu1,i2,1\n', "quote.csv")
    assert error.row == 2
    assert 'A quote (") opened on this line is never closed' in str(error)


def test_trec_run_line_with_too_many_fields_is_read_as_trec_eval_reads_it_with_a_warning():
    data = b"q1 Q0 d1 1 0.5 bm25\nq1 Q0 d2 2 0.4 bm25\nq1 Q0 d 3 3 0.3 bm25\n"
    run = read_run(data, name="bm25.run")
    assert run.table["item"].tolist() == ["d1", "d2", "d"]
    assert run.warnings == [
        "1 line has more than the 6 fields of a TREC run ('user Q0 item rank score tag'), "
        "first line 3: what follows the tag was ignored, as trec_eval does. If an item id "
        "holds a space, the fields are shifted: fix those lines."
    ]


def test_trec_qrels_line_with_too_few_fields():
    data = b"q1 0 d1 1\nq1 0 d2\nq2 0 d3 2\nq2 0 d4\n"
    error = error_of(read_truth, data, "test.qrels")
    assert error.row == 2
    assert "this line has 3 whitespace-separated fields, but a TREC qrels line has 4" in str(error)
    assert "1 other line has a wrong number of fields too." in str(error)


def test_trec_with_irregular_spacing_is_fine():
    run = read_run(b"q1  Q0\td1 1 0.5 x\nq1 Q0 d2   2 0.4 x  \n", name="spaced.txt")
    assert run.table["item"].tolist() == ["d1", "d2"]


def test_trec_qrels_loaded_as_a_run():
    error = error_of(read_run, b"q1 0 d1 1\nq1 0 d2 0\n", "test.qrels")
    assert str(error) == (
        "test.qrels: this file has the shape of ground truth (TREC qrels): 'user 0 item "
        "rating'. Load it as the ground truth instead."
    )


def test_trec_run_loaded_as_truth():
    error = error_of(read_truth, b"q1 Q0 d1 1 0.5 x\n", "bm25.run")
    assert "has the shape of a model's output (a TREC run)" in str(error)
    assert "Load it as a model run instead." in str(error)


# Values ------------------------------------------------------------------------------------

def test_scores_that_are_not_numbers_show_three_values_and_the_rest():
    data = b"user,item,score\nu1,i1,abc\nu1,i2,\nu1,i3,nan\nu1,i4,1\nu2,i1,x\nu2,i2,inf\n"
    error = error_of(read_run, data, "model_a.csv")
    assert (error.file, error.row, error.column) == ("model_a.csv", 2, "score")
    assert str(error) == (
        "model_a.csv, row 2, column 'score': the score is not a number in 5 rows: 'abc' "
        "(row 2), empty (row 3), 'nan' (row 4) ... and 2 more rows. Every row needs a numeric "
        "score: correct or delete those rows."
    )


def test_column_without_any_number_suggests_another_column():
    data = b"user,item,score\nu1,i1,high\nu1,i2,low\n"
    error = error_of(read_run, data, "words.csv")
    assert "No row of column 'score' holds a number" in str(error)
    assert "columns={'score': '...'}" in str(error)


def test_many_bad_values_are_counted():
    data = b"user,item,score\n" + b"".join(b"u1,i%d,?\n" % i for i in range(44))
    error = error_of(read_run, data, "many.csv")
    assert "in 44 rows: '?' (row 2), '?' (row 3), '?' (row 4) ... and 41 more rows." in str(
        error)


def test_bad_rank():
    error = error_of(read_run, b"user,item,rank\nu1,i1,1\nu1,i2,second\n", "ranks.csv")
    assert str(error).startswith(
        "ranks.csv, row 3, column 'rank': the rank is not a number in 1 row: 'second' (row 3)."
    )


def test_bad_rating_in_json_lines():
    data = (b'{"user": "u1", "item": "i1", "rating": 4}\n'
            b'{"user": "u1", "item": "i2", "rating": null}\n')
    error = error_of(read_truth, data, "ratings.jsonl")
    assert str(error).startswith(
        "ratings.jsonl, row 2, column 'rating': the rating is not a number in 1 row: empty "
        "(row 2)."
    )


def test_bad_score_in_parquet_uses_one_based_rows():
    buffer = io.BytesIO()
    pd.DataFrame({"user": ["u1", "u1"], "item": ["a", "b"], "score": [1.0, None]}).to_parquet(
        buffer)
    error = error_of(read_run, buffer.getvalue(), "p.parquet")
    assert (error.row, error.column) == (2, "score")


def test_bad_score_in_a_dataframe():
    df = pd.DataFrame({"user": ["u1", "u1"], "item": ["a", "b"], "score": ["1", "n/a"]})
    with pytest.raises(DataError) as info:
        run_from_dataframe(df, name="df_run")
    assert str(info.value).startswith(
        "df_run, row 2, column 'score': the score is not a number in 1 row: 'n/a' (row 2).")


@pytest.mark.parametrize("rank", [b"0", b"-3"])
def test_zero_or_negative_rank(rank):
    data = b"user,item,pos\nu1,i1,1\nu1,i2," + rank + b"\n"
    error = error_of(read_run, data, "ranks.csv")
    assert (error.row, error.column) == (3, "pos")
    assert "ranks must be 1 or more (1 is the best item), but 1 row has a rank of 0 or less: " \
           f"{rank.decode()} (row 3)." in str(error)


def test_ranks_counting_from_zero_get_a_hint():
    error = error_of(read_run, b"user,item,rank\nu1,i1,0\nu1,i2,1\n", "zero.csv")
    assert "The ranks seem to count from 0: add 1 to every rank" in str(error)


def test_equal_ranks_are_a_warning():
    run = read_run(b"user,item,rank\nu1,i1,1\nu1,i2,1\nu1,i3,2\n", name="ties.csv")
    assert run.warnings == ["1 user has several items at the same rank (e.g. user 'u1', rank 1, "
                            "rows 2 and 3); their order follows the tie rule."]


@pytest.mark.parametrize(("data", "column", "rows"), [
    (b"user,item,score\n,i1,1\nu1,i2,1\n  ,i3,1\n", "user", "rows 2 and 4"),
    (b"user,item,score\nu1,,1\nu1,i2,1\n", "item", "row 2"),
])
def test_empty_ids(data, column, rows):
    error = error_of(read_run, data, "ids.csv")
    assert (error.row, error.column) == (2, column)
    assert f"no {column} id: {rows}. Every row needs a" in str(error)
    assert "fill" in str(error) and "or delete" in str(error)


def test_null_id_in_parquet():
    buffer = io.BytesIO()
    pd.DataFrame({"user": ["u1", None], "item": ["a", "b"], "score": [1.0, 2.0]}).to_parquet(
        buffer)
    error = error_of(read_run, buffer.getvalue(), "p.parquet")
    assert str(error) == ("p.parquet, row 2, column 'user': 1 row has no user id: row 2. Every "
                          "row needs a user id: fill it in or delete that row.")


# Duplicates --------------------------------------------------------------------------------

def test_duplicate_items_in_a_run_name_the_rows():
    data = b"user,item,score\nu1,i1,1\nu1,i2,1\nu1,i1,0.5\nu2,i1,1\nu2,i1,1\nu2,i1,3\n"
    error = error_of(read_run, data, "dups.csv")
    assert (error.row, error.column) == (4, "item")
    assert str(error).startswith(
        "dups.csv, row 4, column 'item': user 'u1' has item 'i1' more than once (rows 2 and 4); "
        "user 'u2' has item 'i1' more than once (rows 5, 6 and 7). A model's list may hold each "
        "item once per user"
    )


@pytest.mark.parametrize("overlap", ["1", "0"])
def test_items_equal_once_spaces_are_trimmed_or_empty_rows_dropped_are_duplicates(
        monkeypatch, overlap):
    # The item text is hashed while the users are checked; the hashes of the text as read
    # must not be used once spaces are trimmed or empty rows are dropped.
    monkeypatch.setenv("RANKMETRICS_OVERLAP", overlap)
    spaced = b"user,item,score\nu1,i1,3\nu1, i1 ,2\nu2,i1,1\n"
    error = error_of(read_run, spaced, "spaced.csv")
    assert "user 'u1' has item 'i1' more than once (rows 2 and 3)" in str(error)
    emptied = b"user,item,score\nu1,i2,3\n,,\nu1,i3,2\nu1,i2,1\n"
    error = error_of(read_run, emptied, "emptied.csv")
    assert "user 'u1' has item 'i2' more than once (rows 2 and 5)" in str(error)
    clean = read_run(b"user,item,score\nu1,i1,3\nu1,i2,2\nu2,i1,1\n", name="clean.csv")
    _, items, _ = rankmetrics.io.run_codes(clean)
    text = pa.array(["i1", "i2", "i1"], pa.large_string())
    assert items.seed == 0 and items.hashes.tolist() == hash_text(text).tolist()


def test_more_duplicate_pairs_are_counted():
    data = b"user,item,score\n" + b"".join(b"u%d,i1,1\nu%d,i1,2\n" % (i, i) for i in range(5))
    error = error_of(read_run, data, "dups.csv")
    assert "... and 2 more repeated pairs." in str(error)


def test_duplicate_item_in_a_list():
    error = error_of(read_run, b"user,items\nu1,a b a\n", "lists.csv")
    assert "user 'u1' has item 'a' more than once (row 2, positions 1 and 3)" in str(error)


def test_truth_with_conflicting_ratings():
    data = b"user,item,rating\nu1,i1,5\nu1,i2,1\nu1,i1,3\n"
    error = error_of(read_truth, data, "ratings.csv")
    assert str(error) == (
        "ratings.csv, row 4, column 'rating': the ground truth gives different ratings to the "
        "same user and item: user 'u1' and item 'i1' are rated 5 (row 2) and 3 (row 4). Keep one "
        "rating per user and item."
    )


def test_truth_with_identical_repeats_drops_them_with_a_warning():
    data = b"user,item,rating\nu1,i1,5\nu1,i2,1\nu1,i1,5\nu1,i2,1\n"
    truth = read_truth(data, name="ratings.csv")
    assert truth.table["item"].tolist() == ["i1", "i2"]
    assert truth.warnings == [
        "Dropped 2 repeated rows of the ground truth (same user, item and rating as an earlier "
        "row; e.g. row 4 repeats row 2)."
    ]


def test_same_id_written_two_ways_is_two_ids_unless_asked():
    data = b"user,item,score\nu1,007,1\nu1,7,0.5\n"
    assert read_run(data, name="ids.csv").n_items == 2
    error = error_of(read_run, data, "ids.csv", ids_as_strings=False)
    assert "user 'u1' has item '7' more than once (rows 2 and 3)" in str(error)


def test_single_column_file_says_how_columns_are_separated():
    error = error_of(read_truth, b"query iter docno rel\nq1 x d1 1\n", "judged.txt")
    assert str(error).startswith(
        "judged.txt: the file has a single column ('query iter docno rel'): no comma, tab, "
        "semicolon or | separates its columns."
    )


# Library hygiene ---------------------------------------------------------------------------

def test_io_package_never_asserts_nor_imports_streamlit():
    package = Path(rankmetrics.io.__file__).parent
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text())
        assert not any(isinstance(node, ast.Assert) for node in ast.walk(tree)), path
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert not any(name.startswith("streamlit") for name in imported), path
