"""The command line on MovieLens-100k's files as GroupLens ships them (no header line) and as
RecBole ships them (atomic files), ``--columns`` giving a file's order, and TREC files' names
and words."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from rankmetrics.cli import main
from rankmetrics.cli.options import parse_columns, told_for_cli
from tests.helpers import REPO

IO_FILES = REPO / "tests" / "data" / "io"
TREC_EVAL = REPO / "tests" / "fixtures" / "trec_eval"
U_DATA, U_SCORES, U_RANKS = (IO_FILES / name for name in ("u.data", "u_scores.tsv",
                                                         "u_ranks.tsv"))


def cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def values(out: str) -> dict[tuple[str, str, int], float]:
    table = pd.read_csv(io.StringIO(out))
    return {(row.model, row.metric, row.cutoff): row.value for row in table.itertuples()}


def test_u_data_with_headerless_runs_says_the_orders_assumed_and_how_to_change_them(capsys):
    code, out, err = cli(capsys, "evaluate", "--truth", U_DATA, "--run", U_SCORES,
                         "--run", U_RANKS, "--cutoffs", "5", "--binary", "3")
    assert code == 0, err
    assert (
        "rankmetrics: warning: No header line: read the columns as user, item, rating, "
        "timestamp (the first line holds numbers, which column names never are; the timestamp "
        "is not read). If that is not their order, name them with --columns "
        "truth:order=user,item,rating,timestamp.\n") in err
    assert "name them with --columns run:u_scores:order=user,item,score." in err
    assert "as a rank does). If that is not their order, name them with --columns " \
        "run:u_ranks:order=user,item,rank." in err
    found = values(out)
    # ranks 1..5 and scores 0.90..0.30 order every list alike
    for metric in ("precision", "recall", "ndcg"):
        assert found[("u_scores", metric, 5)] == found[("u_ranks", metric, 5)]
    # 12 of the 20 users rated their film 3 or more, and each list holds it: recall 1
    assert found[("u_scores", "recall", 5)] == 1.0
    assert found[("u_scores", "precision", 5)] == pytest.approx(1 / 5)


def test_the_order_given_with_columns_is_used_and_nothing_is_assumed(capsys):
    code, out, err = cli(capsys, "evaluate", "--truth", U_DATA, "--run", U_SCORES,
                         "--columns", "truth:order=user,item,rating",
                         "--columns", "run:u_scores:order=user,item,score",
                         "--cutoffs", "5", "--binary", "3")
    assert code == 0, err
    assert "No header line" not in err
    _, assumed, _ = cli(capsys, "evaluate", "--truth", U_DATA, "--run", U_SCORES,
                        "--cutoffs", "5", "--binary", "3")
    assert out == assumed


def test_an_order_the_file_cannot_take_names_the_option(capsys):
    code, _, err = cli(capsys, "evaluate", "--truth", U_DATA, "--run", U_SCORES,
                       "--columns", "run:u_scores:order=user,item,rank")
    assert code == 1
    error = err.splitlines()[-1]
    assert error.startswith(f"rankmetrics: error: --run {U_SCORES}: u_scores.tsv, row 1, "
                            "column 'field 3': ranks must be whole numbers"), err
    code, _, err = cli(capsys, "evaluate", "--truth", U_DATA, "--run", U_SCORES,
                       "--columns", "truth:order=user,rating")
    assert code == 1
    assert err.splitlines()[-1].startswith(
        f"rankmetrics: error: --truth {U_DATA}: the order of the columns user, rating: it "
        "lacks the item.")


@pytest.mark.parametrize(("spec", "message"), [
    ("truth:order=", "write the columns as ROLE=COLUMN separated by commas"),
    ("truth:user", "write the columns as ROLE=COLUMN separated by commas"),
    ("model:order=user,item", "it should start with one of truth, run:u_scores, interactions"),
])
def test_a_columns_option_written_wrong(capsys, spec, message):
    code, _, err = cli(capsys, "evaluate", "--truth", U_DATA, "--run", U_SCORES,
                       "--columns", spec)
    assert code == 1
    assert message in err


def test_columns_are_parsed_by_file_with_orders_and_names():
    known = ["truth", "run:a", "run:a:b", "interactions"]
    assert parse_columns(["truth:order=user, item,rating", "run:a:b:user=who,score=p",
                          "interactions:order=user,item,timestamp,rating"], known) == {
        "truth": {"order": "user, item,rating"},
        "run:a:b": {"user": "who", "score": "p"},
        "interactions": {"order": "user,item,timestamp,rating"},
    }


def test_library_messages_name_the_option_for_the_file():
    message = "To rank by it, pass columns={'rank': 'rank'}."
    assert told_for_cli(message, "run:my model") == (
        "To rank by it, pass --columns 'run:my model:rank=rank'.")
    assert told_for_cli(message, None) == message


def test_the_spark_engine_refuses_columns_by_file(capsys):
    code, _, err = cli(capsys, "evaluate", "--engine", "spark", "--truth", U_DATA, "--run",
                       U_SCORES, "--columns", "truth:order=user,item,rating")
    assert code == 1
    assert "--columns: the spark engine reads Parquet columns by name" in err


def test_recbole_files_evaluate_as_the_headerless_ones_do(capsys):
    args = ("--run", U_SCORES, "--cutoffs", "5", "--binary", "3")
    _, headerless, _ = cli(capsys, "evaluate", "--truth", U_DATA, *args)
    code, recbole, err = cli(capsys, "evaluate", "--truth", IO_FILES / "ml-100k.inter", *args)
    assert code == 0, err
    assert recbole == headerless
    assert "truth:order" not in err  # its header names the columns


def test_recbole_user_and_item_files_give_segments_and_categories(capsys):
    code, out, err = cli(capsys, "evaluate", "--truth", IO_FILES / "ml-100k.inter",
                         "--run", U_SCORES, "--run", U_RANKS, "--binary", "3", "--segments",
                         IO_FILES / "ml-100k.user", "--segment-by", "gender",
                         "--segment-cutoff", "5", "--format", "json")
    assert code == 0, err
    assert '"segment": "M"' in out and '"segment": "F"' in out
    code, out, err = cli(capsys, "evaluate", "--truth", IO_FILES / "ml-100k.inter",
                         "--run", U_SCORES, "--binary", "3", "--metrics", "categories",
                         "--item-attributes", IO_FILES / "ml-100k.item", "--cutoffs", "5")
    assert code == 0, err
    assert values(out)[("u_scores", "categories", 5)] > 0


def test_training_interactions_without_a_header_take_their_order(capsys):
    code, out, err = cli(capsys, "evaluate", "--truth", IO_FILES / "ml-100k.inter",
                         "--run", U_SCORES, "--binary", "3", "--metrics", "arp",
                         "--interactions", U_DATA, "--cutoffs", "5",
                         "--columns", "interactions:order=user,item")
    assert code == 0, err
    assert "--columns interactions:" not in err  # its order was given: nothing assumed
    assert ("u_scores", "arp", 5) in values(out)


def test_trec_runs_are_named_without_their_extension_and_count_queries(capsys, tmp_path):
    code, out, err = cli(capsys, "evaluate", "--truth", TREC_EVAL / "qrels.test", "--run",
                         TREC_EVAL / "results.test", "--cutoffs", "5", "--metrics", "ndcg",
                         "--format", "table")
    assert code == 0, err
    assert out.startswith("queries averaged: results 3\n")
    # the same judgments as a CSV file: not every input is TREC's, so it says users
    rows = [line.split() for line in (TREC_EVAL / "qrels.test").read_text().splitlines()]
    truth = tmp_path / "judgments.csv"
    truth.write_text("user,item,rating\n" + "".join(f"{q},{d},{r}\n" for q, _, d, r in rows))
    code, out, err = cli(capsys, "evaluate", "--truth", truth, "--run",
                         TREC_EVAL / "results.test", "--cutoffs", "5", "--format", "table")
    assert code == 0, err
    assert out.startswith("users averaged: results 3\n")
