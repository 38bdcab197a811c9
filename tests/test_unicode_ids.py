"""Ids that look the same are the same: accented ids written composed (NFC, é) or decomposed
(NFD, e and a combining accent) match in every file, with a warning saying how many were
read in the composed form; characters that show as nothing are escaped in messages."""

from __future__ import annotations

import io
import unicodedata

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmetrics import DataError, evaluate
from rankmetrics.cli import main
from rankmetrics.errors import printable
from rankmetrics.io import read_attributes, read_interactions, read_run, read_truth

NFC = "café"
NFD = unicodedata.normalize("NFD", NFC)
assert NFC != NFD and len(NFD) == len(NFC) + 1


def csv(rows: list[tuple], header: str) -> bytes:
    return (header + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows)).encode()


def truth_rows(form: str) -> list[tuple]:
    return [(f"u{i}", f"{form}{i}", 1) for i in range(6)]


def run_rows(decomposed: set[int]) -> list[tuple]:
    return [(f"u{i}", f"{NFD if i in decomposed else NFC}{i}", 1.0) for i in range(6)]


def test_half_the_run_decomposed_still_matches_every_item():
    truth = read_truth(csv(truth_rows(NFC), "user,item,rating"), name="truth.csv")
    run = read_run(csv(run_rows({1, 3, 5}), "user,item,score"), name="model.csv")
    assert run.warnings == [
        "3 item ids were written with decomposed accents (such as e and a combining accent "
        "for é) and read in the composed form (NFC), so that they match the same ids written "
        "the usual way."]
    ev = evaluate(truth, {"model": run}, max_cutoff=1)
    assert ev.curve("model", "precision").tolist() == [1.0]  # not 0.5
    assert set(run.table["item"]) == {f"{NFC}{i}" for i in range(6)}


def test_a_decomposed_ground_truth_and_users_match_a_composed_run():
    truth = read_truth(csv([(f"{NFD}-user", f"{NFD}{i}", 1) for i in range(3)],
                           "user,item,rating"), name="truth.csv")
    assert any("3 item ids" in warning for warning in truth.warnings)
    assert any("1 user id was" in warning for warning in truth.warnings)
    run = read_run(csv([(f"{NFC}-user", f"{NFC}{i}", 3 - i) for i in range(3)],
                       "user,item,score"), name="model.csv")
    assert run.warnings == []
    ev = evaluate(truth, {"model": run}, max_cutoff=3)
    assert ev.curve("model", "recall").tolist()[-1] == 1.0
    assert list(ev.users) == [f"{NFC}-user"]


def test_parquet_ids_held_as_a_dictionary_are_composed_too(tmp_path):
    table = pa.table({"user": pa.array(["u0", "u1"]).dictionary_encode(),
                      "item": pa.array([NFD + "0", NFD + "1"]).dictionary_encode(),
                      "score": [1.0, 1.0]})
    pq.write_table(table, tmp_path / "model.parquet")
    run = read_run(tmp_path / "model.parquet")
    truth = read_truth(csv([("u0", NFC + "0", 1), ("u1", NFC + "1", 1)], "user,item,rating"),
                       name="truth.csv")
    assert evaluate(truth, {"model": run}, max_cutoff=1).curve("model", "hit_rate")[0] == 1.0


def test_attributes_and_interactions_are_keyed_by_the_composed_ids():
    attributes = read_attributes(csv([(NFD + "0", "drama")], "item,genre"), key="item",
                                 name="items.csv")
    assert attributes.ids.tolist() == [NFC + "0"]
    seen = read_interactions(csv([("x", NFD + "0")], "user,item"), name="train.csv")
    assert seen.table["item"].tolist() == [NFC + "0"]


def test_one_id_written_both_ways_in_one_list_is_a_repeated_item():
    rows = [("u0", NFC, 2.0), ("u0", NFD, 1.0)]
    with pytest.raises(DataError, match="twice|repeat|more than once") as raised:
        read_run(csv(rows, "user,item,score"), name="model.csv")
    assert "model.csv" in str(raised.value)


def test_the_command_line_matches_them_and_says_so(tmp_path, capsys):
    (tmp_path / "truth.csv").write_bytes(csv(truth_rows(NFC), "user,item,rating"))
    (tmp_path / "model.csv").write_bytes(csv(run_rows({0, 2, 4}), "user,item,score"))
    code = main(["evaluate", "--truth", str(tmp_path / "truth.csv"),
                 "--run", str(tmp_path / "model.csv"), "--metrics", "precision",
                 "--cutoffs", "1"])
    captured = capsys.readouterr()
    assert code == 0
    assert pd.read_csv(io.StringIO(captured.out))["value"].tolist() == [1.0]
    assert "3 item ids were written with decomposed accents" in captured.err


def test_a_zero_width_space_is_shown_in_a_message():
    truth = read_truth(csv([("u0", "item\u200b1", 1)], "user,item,rating"), name="truth.csv")
    run = read_run(csv([("u0", "item1", 1.0)], "user,item,score"), name="model.csv")
    ev = evaluate(truth, {"model": run}, max_cutoff=1)
    assert ev.curve("model", "precision").tolist() == [0.0]  # a different id, as written
    assert printable("'item\u200b1' is not 'item1'") == "'item\\u200b1' is not 'item1'"
    assert printable("no\u00a0break, zero\ufeffwidth") == "no\\u00a0break, zero\\ufeffwidth"
    assert printable("accents stay: café, naïve, 東京 ≥ 4 …") == (
        "accents stay: café, naïve, 東京 ≥ 4 …")


def test_an_error_quoting_an_id_shows_its_zero_width_space():
    rows = [("u0", "a\u200bb", 2.0), ("u0", "a\u200bb", 1.0)]
    with pytest.raises(DataError) as raised:
        read_run(csv(rows, "user,item,score"), name="model.csv")
    message = str(raised.value)
    assert "a\\u200bb" in message and "\u200b" not in message
