"""Finding columns by name, the column override, and what a missing column says."""

from __future__ import annotations

import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import read_run, read_truth


def run_csv(header: str, rows: str = "u1,i1,0.5\nu1,i2,0.25\n") -> bytes:
    return f"{header}\n{rows}".encode()


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("user,item,score", ("user", "item", "score")),
        ("USER_ID,Item-Id,Prediction", ("USER_ID", "Item-Id", "Prediction")),
        ("userId,movieId,pred", ("userId", "movieId", "pred")),
        ("query,doc,similarity", ("query", "doc", "similarity")),
        ("qid,docno,predicted", ("qid", "docno", "predicted")),
        ("Topic,Doc ID,SCORE", ("Topic", "Doc ID", "SCORE")),
        ("query_id,product_id,score", ("query_id", "product_id", "score")),
    ],
)
def test_columns_found_by_name_in_any_case_and_spelling(header, expected):
    run = read_run(run_csv(header), name="run.csv")
    assert run.columns == dict(zip(("user", "item", "score"), expected, strict=True))


def test_rank_column_gives_score_minus_rank():
    run = read_run(b"user,item,position\nu1,a,1\nu1,b,2\nu1,c,3\n", name="ranks.csv")
    assert run.ranking == "rank"
    assert run.columns == {"user": "user", "item": "item", "rank": "position"}
    assert run.table["score"].tolist() == [-1.0, -2.0, -3.0]


def test_score_wins_over_rank_with_a_note():
    run = read_run(b"user,item,rank,score\nu1,a,2,0.9\nu1,b,1,0.1\n", name="both.csv")
    assert run.ranking == "score"
    assert run.table["score"].tolist() == [0.9, 0.1]
    assert run.warnings == [
        "Ranked by the score column 'score' (higher is better); the rank column 'rank' is not "
        "used. To rank by it, pass columns={'rank': 'rank'}."
    ]


def test_rank_chosen_by_override_wins_over_score():
    run = read_run(b"user,item,rank,score\nu1,a,2,0.9\nu1,b,1,0.1\n", name="both.csv",
                   columns={"rank": "rank"})
    assert run.ranking == "rank"
    assert run.table["score"].tolist() == [-2.0, -1.0]


def test_override_picks_an_unrecognised_column():
    run = read_run(run_csv("customer,sku,p_click"), name="run.csv",
                   columns={"user": "customer", "item": "sku", "score": "p_click"})
    assert run.columns == {"user": "customer", "item": "sku", "score": "p_click"}


def test_override_is_case_insensitive_and_mixes_with_detection():
    run = read_run(run_csv("user,item,p_click"), name="run.csv", columns={"score": "P_CLICK"})
    assert run.columns == {"user": "user", "item": "item", "score": "p_click"}


def test_override_replaces_a_detected_column():
    data = b"user,item,score,prediction\nu1,a,0.1,0.9\nu1,b,0.2,0.8\n"
    run = read_run(data, name="two.csv", columns={"score": "prediction"})
    assert run.table["score"].tolist() == [0.9, 0.8]


def test_two_candidate_columns_warn_which_one_was_used():
    data = b"user,item,score,prediction\nu1,a,0.1,0.9\n"
    run = read_run(data, name="two.csv")
    assert run.columns["score"] == "score"
    assert run.warnings == [
        "Used column 'score' for the score; 'prediction' could also be one. To use another, "
        "pass columns={'score': 'prediction'}."
    ]


def test_extra_columns_are_ignored():
    data = b"timestamp,user,item,score,model\n1,u1,a,0.5,als\n"
    run = read_run(data, name="wide.csv")
    assert run.table.columns.tolist() == ["user", "item", "score"]


def test_override_naming_a_missing_column():
    with pytest.raises(DataError) as info:
        read_run(run_csv("user,item,score"), name="run.csv", columns={"score": "prob"})
    assert str(info.value) == (
        "run.csv: the column 'prob' chosen for the score is not in the file. Its columns are: "
        "'user', 'item', 'score'."
    )


def test_override_with_an_unknown_role_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown role"):
        read_run(run_csv("user,item,score"), name="run.csv", columns={"rating": "score"})


def test_missing_score_column_lists_columns_names_and_the_override():
    with pytest.raises(DataError) as info:
        read_run(run_csv("userId,movieId,pred_score"), name="model_a.csv")
    message = str(info.value)
    assert message.startswith("model_a.csv: no score or rank column found. The file's columns "
                              "are: 'userId', 'movieId', 'pred_score'.")
    assert "score by score, prediction, pred, predicted, similarity" in message
    assert "rank by rank, position, pos" in message
    assert "columns={'score': 'pred_score'}" in message
    assert info.value.file == "model_a.csv"


def test_missing_user_and_item_columns():
    with pytest.raises(DataError, match=r"no user and no item column found"):
        read_run(run_csv("a,b,score"), name="x.csv")


def test_a_first_line_that_may_be_data_is_pointed_out():
    # No number and no known name on the first line, nor a number below: header or data?
    with pytest.raises(DataError) as info:
        read_truth(b"alice,matrix\nbob,alien\n", name="noheader.csv")
    assert "The first line may be data rather than column names" in str(info.value)
    assert ("name its columns in their order with columns={'order': 'user,item,rating'}, or "
            "add a header line such as 'user,item,rating'") in str(info.value)


def test_run_loaded_as_truth_is_pointed_out():
    with pytest.raises(DataError) as info:
        read_truth(run_csv("user,item,score"), name="model_a.csv")
    assert "no rating column found" in str(info.value)
    assert "looks like a model's output: load it as a model run" in str(info.value)


def test_truth_loaded_as_run_is_pointed_out():
    with pytest.raises(DataError, match="looks like ground truth: load it as the ground truth"):
        read_run(b"user,item,rating\nu1,i1,5\n", name="ratings.csv")


def test_truth_with_only_user_and_item_gives_rating_one():
    truth = read_truth(b"user,item\nu1,i1\nu2,i7\n", name="clicks.csv")
    assert truth.columns == {"user": "user", "item": "item"}
    assert truth.table["rating"].tolist() == [1.0, 1.0]
    assert truth.warnings == [
        "The ground truth has no rating column: every (user, item) pair in it counts as "
        "relevant, with rating 1."
    ]


def test_item_named_column_with_spaces_is_not_a_list():
    # "The Matrix" is one title, not two ids: only a column named like a list may use spaces.
    truth = read_truth(b"user,movie_id\nu1,The Matrix\n", name="t.csv",
                       columns={"item": "movie_id"})
    assert truth.table["item"].tolist() == ["The Matrix"]


@pytest.mark.parametrize(
    ("header", "value_column"),
    [("user,item,relevance", "relevance"), ("qid,docid,Label", "Label"),
     ("user,item,grade", "grade"), ("User ID,Item ID,Judgment", "Judgment")],
)
def test_truth_rating_names(header, value_column):
    truth = read_truth(run_csv(header, "u1,i1,2\n"), name="t.csv")
    assert truth.columns["rating"] == value_column
