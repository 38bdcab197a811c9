"""TREC files as the field writes them: runs with fields after the tag (trec_eval ignores
them, and its own ``results.trunc`` has them) and ``#`` comment lines (trec_eval 10)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rankmetrics.errors import DataError
from rankmetrics.io import read_run, read_truth, subject_word
from tests.test_untrusted_input import cli

TREC_EVAL = Path(__file__).parent / "fixtures" / "trec_eval"


def _columns(table: pd.DataFrame, *names: str) -> pd.DataFrame:
    return table[list(names)].astype({"user": str, "item": str}).reset_index(drop=True)


def test_trec_evals_truncated_run_with_junk_after_the_tag_is_a_trec_run(trec_run):
    run = read_run(TREC_EVAL / "results.trunc")
    assert run.format == "trec_run"
    expected = trec_run("results.trunc")
    pd.testing.assert_frame_equal(_columns(run.table, "user", "item", "score"),
                                  _columns(expected, "user", "item", "score"),
                                  check_dtype=False)


def test_a_space_separated_run_with_extra_fields_is_a_trec_run(tmp_path, trec_run):
    path = tmp_path / "spaced.run"
    path.write_text((TREC_EVAL / "results.trunc").read_text().replace("\t", " "))
    run = read_run(path)
    assert run.format == "trec_run"
    expected = trec_run("results.trunc")
    pd.testing.assert_frame_equal(_columns(run.table, "user", "item", "score"),
                                  _columns(expected, "user", "item", "score"),
                                  check_dtype=False)
    assert len(run.warnings) == 1 and "what follows the tag was ignored" in run.warnings[0]


def _with_comments(source: Path, target: Path) -> None:
    """The file with comment lines at the start, in the middle (indented) and at the end."""
    lines = source.read_text().splitlines(keepends=True)
    middle = len(lines) // 2
    target.write_text(
        "# written by a test, as trec_eval 10 allows\n" + "".join(lines[:middle])
        + "   # an indented comment with #many words\n" + "".join(lines[middle:])
        + "#\n"
    )


@pytest.mark.parametrize(("name", "reader", "value"), [
    ("qrels.test", read_truth, "rating"),
    ("results.test", read_run, "score"),
    ("results.comment.test", read_run, "score"),
])
def test_comment_lines_in_trec_files_are_skipped(tmp_path, name, reader, value):
    commented = tmp_path / name
    _with_comments(TREC_EVAL / name, commented)
    plain, read = reader(TREC_EVAL / name), reader(commented)
    assert read.format == plain.format and read.warnings == plain.warnings
    pd.testing.assert_frame_equal(read.table, plain.table)


def test_rows_in_messages_count_comment_lines(tmp_path):
    path = tmp_path / "bad.run"
    path.write_text("# a comment\n1 Q0 a 1 2.0 t\n# another\n1 Q0 b 2 x t\n")
    with pytest.raises(DataError, match=r"^bad\.run, row 4, column 'field 5': the score"):
        read_run(path)


def test_the_command_line_reads_commented_trec_files_like_plain_ones(tmp_path):
    for name in ("qrels.test", "results.test"):
        _with_comments(TREC_EVAL / name, tmp_path / name)
    plain = cli("--truth", TREC_EVAL / "qrels.test", "--run", TREC_EVAL / "results.test",
                "--preset", "trec_eval")
    commented = cli("--truth", tmp_path / "qrels.test", "--run", tmp_path / "results.test",
                    "--preset", "trec_eval")
    assert plain.returncode == commented.returncode == 0, commented.stderr
    assert commented.stdout == plain.stdout


def test_where_every_input_is_trec_the_words_say_queries():
    qrels, run = read_truth(TREC_EVAL / "qrels.test"), read_run(TREC_EVAL / "results.test")
    assert (qrels.name, run.name) == ("qrels", "results")
    assert subject_word([qrels.format, run.format]) == "query"
    assert subject_word([qrels.format, run.format], plural=True) == "queries"
    assert subject_word([qrels.format, "csv"], plural=True) == "users"
    assert subject_word([]) == "user"
