"""The Data page on MovieLens-100k as GroupLens ships it (no header line) and as RecBole ships
it (atomic files): the columns detected, the order of a headerless file chosen by hand, and
TREC files, whose pages say queries."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.apptest import errors, frame, go, ok, plain, start, texts, upload, uploader, warnings

IO_FILES = Path(__file__).resolve().parent / "data" / "io"
TREC_EVAL = Path(__file__).resolve().parent / "fixtures" / "trec_eval"
DATA = "app_pages/data.py"


def files(folder: Path, *names: str) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in names}


def markdown(at: AppTest) -> str:
    return " ".join(plain(m.value) for m in at.markdown)


def read_again(at: AppTest, spec_id: str) -> None:
    [b for b in at.button if b.form_id == f"options_{spec_id}"][0].click().run()
    ok(at)


def test_headerless_files_show_the_order_they_were_read_in():
    at = start("movies", DATA)
    upload(at, 0, "u_scores.tsv", "u_ranks.tsv",
           content=files(IO_FILES, "u_scores.tsv", "u_ranks.tsv"))
    upload(at, 1, "u.data", content=files(IO_FILES, "u.data"))
    assert not errors(at)
    text = markdown(at)
    assert "Model: u_scores" in text and "Model: u_ranks" in text
    assert "user ← `field 1` · item ← `field 2` · rating ← `field 3`" in text
    assert "user ← `field 1` · item ← `field 2` · rank ← `field 3`" in text
    captions = texts(at.caption)
    assert ("No header line: the columns are read in the order user, item, rating, "
            "timestamp.") in captions
    # the library's warning, with the way to change the order told as the Data page's
    assert ("No header line: read the columns as user, item, rating, timestamp (the first line "
            "holds numbers, which column names never are; the timestamp is not read). If that "
            "is not their order, name them with “Columns in order” in “Choose the columns or "
            "the format by hand” below (e.g. user, item, rating, timestamp).") in warnings(at)
    truth_id = at.session_state["uploads"].truth.id
    assert at.radio(key=f"col_{truth_id}_first_line").value == "data"
    assert (at.text_input(key=f"col_{truth_id}_column_order").value
            == "user, item, rating, timestamp")
    go(at, "app_pages/compare.py")
    table = frame(at, "compare_table")
    assert list(table.index) == ["u_scores", "u_ranks"]
    assert table.loc["u_scores"].equals(table.loc["u_ranks"])  # the same lists, read two ways


def test_the_order_chosen_by_hand_reads_the_file_again():
    at = start("movies", DATA)
    upload(at, 0, "u_scores.tsv", content=files(IO_FILES, "u_scores.tsv"))
    # item, user, rating: read as user, item, rating it would match no model's user
    swapped = "".join(f"{item}\t{user}\t{rating}\n" for user, item, rating, _ in
                      (line.split("\t") for line in
                       (IO_FILES / "u.data").read_text().splitlines()))
    upload(at, 1, "swapped.tsv", content={"swapped.tsv": swapped.encode()})
    assert any("none of the" in e and "is in the ground truth" in e for e in errors(at)), \
        errors(at)
    truth_id = at.session_state["uploads"].truth.id
    at.text_input(key=f"col_{truth_id}_column_order").input("item, user, rating")
    read_again(at, truth_id)
    assert not errors(at), errors(at)
    assert "user ← `field 2` · item ← `field 1` · rating ← `field 3`" in markdown(at)
    # the model's order is still assumed, the ground truth's no more
    assert [w for w in warnings(at) if w.startswith("No header line")] == [
        "No header line: read the columns as user, item, score (the first line holds numbers, "
        "which column names never are). If that is not their order, name them with “Columns "
        "in order” in “Choose the columns or the format by hand” below (e.g. user, item, "
        "score)."]
    go(at, "app_pages/compare.py")
    assert list(frame(at, "compare_table").index) == ["u_scores"]


def test_a_first_line_of_names_or_data_is_told_apart_by_hand():
    at = start("movies", DATA)
    upload(at, 0, "picks.csv", content={"picks.csv": b"user,item,score\nalice,m1,0.9\n"
                                                      b"alice,m3,0.5\nbob,m2,0.7\n"})
    upload(at, 1, "names.csv", content={"names.csv": b"alice,m1\nbob,m2\n"})
    assert any("The first line may be data rather than column names: if the file has no "
               "header line, name its columns in their order with “Columns in order” in "
               "“Choose the columns or the format by hand” below (e.g. user, item, rating)"
               in e for e in errors(at)), errors(at)
    candidate = at.session_state["uploads"].truth_candidate.id
    at.radio(key=f"col_{candidate}_first_line").set_value("data")
    at.text_input(key=f"col_{candidate}_column_order").input("user, item")
    read_again(at, candidate)
    assert not errors(at), errors(at)
    held = at.session_state["uploads"]
    assert held.truth is not None and held.truth_candidate is None  # it reads: now in use
    assert dict(held.truth.columns) == {"order": "user, item"}
    assert "user ← `field 1` · item ← `field 2`" in markdown(at)


def test_recbole_atomic_files_are_read_by_their_typed_header():
    at = start("movies", DATA)
    upload(at, 0, "u_scores.tsv", content=files(IO_FILES, "u_scores.tsv"))
    upload(at, 1, "ml-100k.inter", content=files(IO_FILES, "ml-100k.inter"))
    assert not errors(at)
    assert "user ← `user_id` · item ← `item_id` · rating ← `rating`" in markdown(at)
    assert any("file ml-100k.inter · format recbole" in c for c in texts(at.caption))
    labels = [u.label for u in at.file_uploader]
    at.file_uploader[labels.index("Item attributes: one file")].set_value(
        ("ml-100k.item", (IO_FILES / "ml-100k.item").read_bytes(), "text/plain")).run()
    ok(at)
    assert ("**20 items** · item ← `item_id` · `movie_title`: categories · `release_year`: "
            "category · `class`: categories") in [plain(m.value) for m in at.markdown]
    uploader(at, "User attributes").set_value(
        ("ml-100k.user", (IO_FILES / "ml-100k.user").read_bytes(), "text/plain")).run()
    ok(at)
    assert any("20 users" in text and "occupation" in text for text in texts(at.markdown))


def test_trec_files_say_queries_and_name_the_run_without_its_extension():
    at = start("movies", DATA)
    upload(at, 0, "results.test", content=files(TREC_EVAL, "results.test"))
    upload(at, 1, "qrels.test", content=files(TREC_EVAL, "qrels.test"))
    assert not errors(at)
    assert "Model: results" in markdown(at)
    assert [m.label for m in at.metric][:3] == ["Rows", "Queries", "Items"]
    assert "which items each query liked" in markdown(at)
    go(at, "app_pages/compare.py")
    # the table's users averaged: its last column, named for queries
    assert [list(d.value.columns)[-1] for d in at.main.dataframe][0] == "Queries averaged"
    assert [d.value for d in at.main.dataframe][0].loc["results"].iloc[-1] == 3
    assert any(c.startswith("3 queries in the ground truth") for c in texts(at.caption))
    go(at, "app_pages/users.py")
    assert at.title[0].value == "Queries"
    assert at.subheader[0].value.startswith("Queries a model serves worst at")
    assert frame(at, "users_summary").columns[0] == "Queries"


def test_judgments_of_minus_one_as_trec_writes_them_open_with_a_grade_table():
    """Ratings used as grades with TREC's -1: the sidebar's grade table starts every rating
    at a grade of 0 or more (a grade table cannot hold -1) and says so; nothing fails."""
    truth = b"user,item,rating\nq,d1,3\nq,d2,-1\nq,d3,0\nr,d1,2\nr,d2,1\n"
    run = b"user,item,score\nq,d1,3\nq,d2,2\nr,d1,1\nr,d3,0.5\n"
    at = start("textbook", DATA)
    upload(at, 0, "model.csv", content={"model.csv": run})
    upload(at, 1, "truth.csv", content={"truth.csv": truth})
    assert not errors(at) and not at.exception
    reasons = [plain(c) for c in texts(at.sidebar.caption) + texts(at.sidebar.markdown)]
    assert any("a rating below 0 (-1) has grade 0: judged, not relevant" in reason
               for reason in reasons), reasons
    go(at, "app_pages/compare.py")
    assert not at.exception
