"""Reading training interactions: every format the ground truth can have, repeated pairs kept,
other columns left unread, and the same messages as the other readers."""

from __future__ import annotations

import gzip
import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import (
    interaction_counts,
    interactions_from_dataframe,
    read_interactions,
    read_truth,
)

CSV = b"user,item,timestamp\nu1,i1,100\nu1,i2,101\nu1,i1,102\n u2 ,i1,103\n"


def rows(table) -> list[tuple[str, str]]:
    return list(zip(table.table["user"], table.table["item"], strict=True))


EXPECTED = [("u1", "i1"), ("u1", "i2"), ("u1", "i1"), ("u2", "i1")]


def test_csv_keeps_repeated_pairs_and_does_not_read_the_timestamp():
    seen = read_interactions(CSV, name="train.csv")
    assert (seen.kind, seen.name, seen.format) == ("interactions", "train", "csv")
    assert seen.columns == {"user": "user", "item": "item"}
    assert rows(seen) == EXPECTED
    assert seen.numbers().tolist() == [1.0] * 4
    assert seen.duplicates_dropped == 0 and seen.warnings == []


def test_the_ground_truth_reader_drops_the_same_repeated_pair():
    assert read_truth(b"user,item\nu1,i1\nu1,i1\n", name="t.csv").duplicates_dropped == 1


def test_a_rating_column_is_read_and_checked():
    seen = read_interactions(b"userId;movieId;rating\n1;10;4,5\n1;10;3\n", name="r.csv")
    assert seen.columns == {"user": "userId", "item": "movieId", "rating": "rating"}
    assert seen.numbers().tolist() == [4.5, 3.0]
    with pytest.raises(DataError, match="row 3.*rating"):
        read_interactions(b"user,item,rating\nu1,i1,4\nu1,i2,good\n", name="bad.csv")


@pytest.mark.parametrize("name", ["train.parquet", "train.jsonl", "train.tsv", "train.csv.gz"])
def test_every_format(name):
    frame = pd.DataFrame({"user": ["u1", "u1", "u1", "u2"], "item": ["i1", "i2", "i1", "i1"],
                          "timestamp": [100, 101, 102, 103]})
    if name.endswith(".parquet"):
        buffer = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buffer)
        data = buffer.getvalue()
    elif name.endswith(".jsonl"):
        data = "\n".join(json.dumps(row) for row in frame.to_dict("records")).encode()
    elif name.endswith(".tsv"):
        data = frame.to_csv(sep="\t", index=False).encode()
    else:
        data = gzip.compress(frame.to_csv(index=False).encode())
    assert rows(read_interactions(data, name=name)) == EXPECTED


def test_trec_qrels_and_lists():
    qrels = read_interactions(b"u1 0 i1 1\nu1 0 i2 1\nu1 0 i1 1\nu2 0 i1 1\n", name="t.qrels")
    assert qrels.format == "trec_qrels" and rows(qrels) == EXPECTED
    listed = read_interactions(b'user,items\nu1,"i1 i2 i1"\nu2,i1\n', name="lists.csv")
    assert listed.format == "list_csv" and rows(listed) == EXPECTED


def test_a_trec_run_is_refused_with_the_way_out():
    with pytest.raises(DataError, match="Load it as a model run"):
        read_interactions(b"u1 Q0 i1 1 0.9 tag\n", name="run.txt")


def test_a_dataframe_is_one_more_source():
    frame = pd.DataFrame({"user_id": [1, 1, 1, 2], "item_id": [5, 6, 5, 5]})
    seen = interactions_from_dataframe(frame, name="history")
    assert seen.format == "dataframe"
    assert rows(seen) == [("1", "5"), ("1", "6"), ("1", "5"), ("2", "5")]


def test_a_missing_item_column_says_how_to_fix_it():
    with pytest.raises(DataError) as info:
        read_interactions(b"user,film\nu1,f1\n", name="train.csv")
    message = str(info.value)
    assert "train.csv" in message and "no item column" in message
    assert "columns={'item': 'film'}" in message


def test_the_decompression_limit_applies():
    data = gzip.compress(CSV * 200)
    with pytest.raises(DataError, match="decompressed"):
        read_interactions(data, name="train.csv.gz", max_decompressed_size=1000)


def test_interaction_counts_per_user():
    assert interaction_counts(read_interactions(CSV, name="train.csv")).to_dict() == {
        "u1": 3, "u2": 1}
    with pytest.raises(ValueError, match="training interactions"):
        interaction_counts(read_truth(b"user,item,rating\nu1,i1,1\n", name="t.csv"))
