"""The dashboard in Streamlit's AppTest: every page on every demo data set, the sidebar
controls changing what the charts contain, and uploads (valid and each kind of invalid)."""

from __future__ import annotations

import io
import math
import re
import tomllib

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from rankmetrics.conventions import Conventions
from tests.apptest import (
    APP,
    DEMOS,
    MOVIE_MODELS,
    PAGES,
    ROOT,
    UPLOADS,
    curves,
    errors,
    figure,
    frame,
    go,
    ok,
    plain,
    start,
    upload,
    warnings,
)


def lists(at: AppTest) -> list:
    """The head-to-head page's two top-K lists (model A's first)."""
    return [d.value for d in at.main.dataframe
            if list(d.value.columns) == ["rank", "item", "rating", "hit"]]


# ----- opening ---------------------------------------------------------------------------


def test_opens_on_the_movies_demo_with_curves_drawn():
    at = AppTest.from_file(APP, default_timeout=90).run()
    ok(at)
    assert at.session_state["dataset"] == "movies"
    assert at.title[0].value == "Compare models"
    drawn = curves(at)
    metrics = ["precision", "recall", "hit_rate", "mrr", "map", "ndcg"]
    assert set(drawn) == {(m, metric) for m in MOVIE_MODELS for metric in metrics}
    assert all(len(t["x"]) == 50 for t in drawn.values())
    assert {t["x"][0] for t in curves(at, "marker").values()} == {10}
    table = frame(at, "compare_table")
    assert list(table.index) == MOVIE_MODELS
    assert table["Users averaged"].tolist() == [1940] * 4
    # designed: personalized beats popularity and random at every K; top_heavy wins at K = 1
    ndcg = {m: drawn[(m, "ndcg")]["y"] for m in MOVIE_MODELS}
    assert all(p > q > r for p, q, r in zip(ndcg["personalized"], ndcg["popularity"],
                                             ndcg["random"], strict=True))
    assert ndcg["top_heavy"][0] > ndcg["personalized"][0]


def test_the_compare_table_shows_every_value_in_its_format():
    """As a person reads it: four decimals for every accuracy metric (marked or not), user
    counts with thousands separators, beyond-accuracy counts as whole numbers."""
    import pyarrow as pa

    at = start("movies")
    element = next(d for d in at.main.dataframe if "Users averaged" in d.value.columns)
    shown = pa.ipc.open_stream(element.proto.arrow_data.styler.display_values).read_all()
    shown = shown.to_pandas()
    assert shown.loc["popularity", "Precision@10"] == "0.0750"
    assert shown.loc["random", "NDCG@10"] == "0.0087"
    assert shown.loc["personalized", "Precision@10"] == "0.2795 ★"
    assert set(shown["Users averaged"]) == {"1,940"}
    assert shown.loc["popularity", "Categories@10"].isdigit()


def test_model_colours_are_the_same_on_every_page():
    at = start("movies")
    colours = {name: t["line"]["color"] for (name, _), t in curves(at).items()}
    go(at, "app_pages/users.py")
    for key in ("users_distribution", "users_ecdf"):
        for trace in figure(at, key)["data"]:
            colour = trace.get("marker", {}).get("color") or trace["line"]["color"]
            assert colour == colours[trace["name"]]
    go(at, "app_pages/explained.py")
    model = at.session_state["explain_model"]
    bars = figure(at, "ndcg_bars")["data"]
    assert bars[0]["marker"]["color"] == colours[model]


@pytest.mark.parametrize("dataset", DEMOS)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_every_demo(dataset, page):
    at = start(dataset, page)
    assert at.title, "every page has a title"
    assert "K = " in at.caption[0].value, "the active settings are shown under the title"
    if page == "app_pages/compare.py":
        assert curves(at)
    elif page == "app_pages/users.py":
        assert figure(at, "users_distribution")["data"] and figure(at, "users_ecdf")["data"]
        assert len(frame(at, "worst_table")) >= 1
    elif page == "app_pages/explained.py":
        assert len(at.latex) == 4
        assert frame(at, "ranked_rows")["rank"].iloc[0] == 1
    elif page in ("app_pages/significance.py", "app_pages/head_to_head.py") and dataset == "movies":
        key = "significance_matrix" if page == "app_pages/significance.py" else "h2h_scatter"
        assert figure(at, key)["data"]
    elif page == "app_pages/significance.py":
        expected = {"textbook": "Only 1 user is counted by every model",
                    "textbook_graded": "add at least one more model"}[dataset]
        assert any(expected in text for text in [*warnings(at), *(plain(i.value) for i in at.info)])
    elif page == "app_pages/head_to_head.py" and dataset == "textbook":
        assert figure(at, "h2h_scatter")["data"] and len(lists(at)) == 2
    elif page == "app_pages/head_to_head.py":
        assert "compares two models" in plain(at.info[0].value)
    elif page == "app_pages/segments.py" and dataset == "textbook_graded":
        assert "Segments compare models" in plain(at.info[0].value)
    elif page == "app_pages/segments.py":
        assert figure(at, "segments_heatmap")["data"] and figure(at, "segments_curves")["data"]
    else:
        assert [u.label for u in at.file_uploader] == [
            "Model outputs: one file per model, several at once", "Ground truth: one file",
            "Saved evaluation: one .zip archive", "User attributes (optional): one file"]


def test_shared_settings_survive_page_changes():
    at = start("movies")
    at.slider(key="cutoff").set_value(7).run()
    at.selectbox(key="preset").set_value("trec_eval").run()
    for page in PAGES:
        go(at, page)
        assert at.session_state["cutoff"] == 7
        assert at.session_state["preset"] == "trec_eval"
    go(at, "app_pages/compare.py")
    assert {t["x"][0] for t in curves(at, "marker").values()} == {7}


# ----- the sidebar changes what the charts contain -------------------------------------


def test_cutoff_moves_the_marker_and_the_table():
    at = start("movies")
    at.slider(key="cutoff").set_value(3).run()
    ok(at)
    markers = curves(at, "marker")
    assert {t["x"][0] for t in markers.values()} == {3}
    lines = curves(at)
    for key, marker in markers.items():
        assert marker["y"] == [lines[key]["y"][2]]
    table = frame(at, "compare_table")
    assert "NDCG@3" in table.columns
    assert table.loc["top_heavy", "NDCG@3"] == pytest.approx(lines[("top_heavy", "ndcg")]["y"][2])


def test_largest_k_sets_the_curve_length():
    at = start("movies")
    at.number_input(key="max_cutoff").set_value(20).run()
    ok(at)
    assert {len(t["x"]) for t in curves(at).values()} == {20}
    at.number_input(key="max_cutoff").set_value(5).run()
    ok(at)
    assert at.session_state["cutoff"] == 5  # K follows the largest K down
    assert {len(t["x"]) for t in curves(at).values()} == {5}


def test_binary_threshold_changes_the_curves():
    at = start("movies")
    at.radio(key="rel_kind").set_value("binary").run()
    ok(at)
    assert at.session_state["rel_threshold"] == 4  # the suggestion for 1-5 stars
    at4 = curves(at)[("personalized", "precision")]["y"]
    assert at4[0] == pytest.approx(0.543, abs=5e-4)  # data/README.md's reference value
    at.select_slider(key="rel_threshold").set_value(3).run()
    ok(at)
    at3 = curves(at)[("personalized", "precision")]["y"]
    assert all(a >= b for a, b in zip(at3, at4, strict=True)) and at3 != at4
    assert "rating >= 3 is relevant" in " ".join(c.value for c in at.sidebar.caption)


def test_graded_table_threshold_changes_the_binary_metrics():
    at = start("movies")
    assert at.session_state["rel_kind"] == "graded"
    # every user counted, so that NDCG's users do not change with the threshold
    at.selectbox(key="conv_empty_users").set_value("zero").run()
    before = curves(at)[("personalized", "recall")]["y"]
    at.select_slider(key="rel_grade_threshold").set_value(3).run()
    ok(at)
    after = curves(at)[("personalized", "recall")]["y"]
    assert after != before
    ndcg_before = curves(at)[("personalized", "ndcg")]["y"]
    at.select_slider(key="rel_grade_threshold").set_value(1).run()
    assert curves(at)[("personalized", "ndcg")]["y"] == ndcg_before  # NDCG uses the grades


def edit_grade_table(at: AppTest, edits: dict) -> None:
    """Edit the sidebar's rating -> grade table as the data editor reports edits."""
    key = f"grade_editor_{at.session_state['grade_nonce']}"
    at.session_state[key] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    at.run()
    ok(at)


def test_editing_the_grade_table_changes_ndcg_and_survives_page_and_kind_changes():
    at = start("movies")
    before = curves(at)[("personalized", "ndcg")]["y"]
    edit_grade_table(at, {4: {"grade": 10}})  # 5 stars: grade 3 -> 10
    assert "5+ -> 10" in " ".join(c.value for c in at.sidebar.caption)
    edited = curves(at)[("personalized", "ndcg")]["y"]
    assert edited != before
    go(at, "app_pages/users.py")
    go(at, "app_pages/compare.py")
    assert curves(at)[("personalized", "ndcg")]["y"] == edited
    at.radio(key="rel_kind").set_value("binary").run()
    at.radio(key="rel_kind").set_value("graded").run()
    ok(at)
    assert at.session_state["grade_table"]["grade"].tolist() == [0, 0, 1, 2, 10]
    assert curves(at)[("personalized", "ndcg")]["y"] == edited


def test_an_invalid_grade_table_falls_back_to_the_suggestion():
    at = start("movies")
    before = curves(at)[("personalized", "ndcg")]["y"]
    edit_grade_table(at, {3: {"rating": 5.0}})  # two rows for rating 5
    assert any("lists a rating twice" in e for e in errors(at))
    assert curves(at)[("personalized", "ndcg")]["y"] == before


@pytest.mark.parametrize(("grade", "message"), [(2000, "largest allowed grade is 960"),
                                                 (-2, "cannot be negative")])
def test_a_grade_without_a_usable_gain_keeps_the_previous_mapping(grade, message):
    at = start("movies")
    edit_grade_table(at, {4: {"grade": 10}})  # 5 stars: grade 3 -> 10
    edited = curves(at)[("personalized", "ndcg")]["y"]
    edit_grade_table(at, {4: {"grade": grade}})
    assert any(message in e and "Still in force" in e for e in errors(at))
    assert curves(at)[("personalized", "ndcg")]["y"] == edited
    assert "5+ -> 10" in " ".join(c.value for c in at.sidebar.caption)
    go(at, "app_pages/significance.py")


def conventions_summary(at) -> tuple[str, list[str]]:
    """The page header's conventions: the summary it shows, and the lines it opens to."""
    found = [block for block in at.main.get("popover")
             if block.proto.id.endswith("-conventions_detail")]
    assert len(found) == 1, "one conventions summary under the title"
    return found[0].proto.popover.label, [plain(m.value) for m in found[0].markdown]


def test_the_page_header_sums_up_the_conventions_in_words():
    at = start("movies", "app_pages/significance.py")
    line = plain(at.caption[0].value)
    assert line.startswith("K = 10 (curves to 50) · graded: ")
    assert "AP / relevant" not in line and "ties:" not in line  # no option list on the line
    summary, detail = conventions_summary(at)
    assert summary == "Default conventions"
    assert detail[0].startswith("**Default conventions**  \n:gray[The project's defaults: ")
    # every choice in force, in words, with what the option means
    assert any(d.startswith("**Equal scores ordered by item id, descending**  \n:gray[Order "
                            "of items with equal scores: ") for d in detail)
    assert any(d.startswith("**Exponential gain (2^g − 1)**") for d in detail)
    assert detail[-1] == (":gray[Change them in the sidebar, under Conventions, on a page "
                          "whose numbers they change.]")
    assert len(detail) == 1 + len(Conventions().as_dict()) + 1

    at.sidebar.selectbox(key="preset").set_value("trec_eval").run()
    ok(at)
    assert conventions_summary(at)[0] == "trec_eval's conventions"
    at.sidebar.selectbox(key="conv_ties").set_value("input").run()
    ok(at)
    summary, detail = conventions_summary(at)
    assert summary == "trec_eval's conventions, except: equal scores kept in the file's order"
    assert detail[0] == f"**{summary}**"  # not a preset: no preset's description
    go(at, "app_pages/compare.py")  # every page's header says the same
    assert conventions_summary(at)[0] == summary


def test_preset_changes_ndcg_and_the_conventions_line():
    at = start("movies")
    default = curves(at)[("personalized", "ndcg")]["y"]
    at.selectbox(key="preset").set_value("trec_eval").run()
    ok(at)
    assert at.session_state["conv_gain"] == "linear"
    assert at.session_state["conv_empty_users"] == "zero"
    trec = curves(at)[("personalized", "ndcg")]["y"]
    assert trec != default
    assert frame(at, "compare_table")["Users averaged"].tolist() == [2000] * 4
    assert "**Conventions:** trec_eval's conventions" in [c.value for c in at.sidebar.caption]
    at.selectbox(key="conv_ideal").set_value("retrieved").run()
    ok(at)
    assert at.session_state["preset"] == "custom"
    assert any(c.value.startswith("**Conventions:** trec_eval's conventions, except: ")
               and "ideal" in c.value for c in at.sidebar.caption)
    assert curves(at)[("personalized", "ndcg")]["y"] != trec


# ----- the textbook numbers ----------------------------------------------------------------


def test_textbook_reproduces_the_tutorial_numbers():
    at = start("textbook")
    assert at.session_state["cutoff"] == 5 and at.session_state["rel_kind"] == "binary"
    table = frame(at, "compare_table").round(4)
    assert table.loc["recommended", "Precision@5"] == 0.4
    assert table.loc["recommended", "Recall@5"] == 0.4
    assert table.loc["recommended", "NDCG@5"] == 0.5087
    assert table.loc["recommended", "MAP@5"] == 0.3333
    at.selectbox(key="preset").set_value("retrieved_ideal").run()
    table = frame(at, "compare_table").round(4)
    assert table.loc["recommended", "NDCG@5"] == 0.9197
    assert table.loc["c_at_position_5", "NDCG@5"] == 0.8503


def test_ndcg_page_explains_the_tutorial_slip():
    at = start("textbook", "app_pages/explained.py")
    at.selectbox(key="explain_model").set_value("c_at_position_5").run()
    ok(at)
    values = {m.label: m.value for m in at.metric}
    assert values == {"DCG@5": "1.3869", "IDCG@5": "2.9485", "NDCG@5": "0.4704"}
    side_by_side = frame(at, "variants").round(4)
    assert sorted(side_by_side.to_numpy().ravel().tolist()) == [0.4704, 0.4704, 0.8503, 0.8503]
    note = " ".join(plain(m.value) for m in at.markdown)
    assert "Why a widely copied NDCG tutorial says ~0.88" in note
    assert "1.3869 / 1.6309 = **0.8503**" in note
    assert "1 / log2(5) = 0.4307" in note and "1.4307 / 1.6309 = 0.8772 ≈ 0.88" in note
    assert "0.4704" in note
    at.radio(key="explained_ideal").set_value("retrieved").run()
    ok(at)
    assert {m.label: m.value for m in at.metric}["NDCG@5"] == "0.8503"
    # the page's own choice: the sidebar and every other page keep theirs
    assert at.session_state["conv_ideal"] == "ground_truth"
    assert at.session_state["preset"] == "default"
    assert "1.3869" in at.latex[3].value and "1.6309" in at.latex[3].value


def test_ndcg_page_rows_for_the_first_example():
    at = start("textbook", "app_pages/explained.py")
    at.selectbox(key="explain_model").set_value("recommended").run()
    ranked = frame(at, "ranked_rows")
    assert ranked["item"].tolist() == list("ABCDE")
    assert ranked["rating"].tolist() == ["1", "–", "1", "–", "–"]
    assert ranked["running_dcg"].round(4).tolist() == [1.0, 1.0, 1.5, 1.5, 1.5]
    assert frame(at, "ideal_rows")["item"].tolist() == list("ACXYZ")
    assert {m.label: m.value for m in at.metric}["NDCG@5"] == "0.5087"


def test_graded_textbook_example():
    at = start("textbook_graded")
    at.selectbox(key="preset").set_value("trec_eval").run()
    at.slider(key="cutoff").set_value(3).run()
    ok(at)
    assert frame(at, "compare_table").loc["graded_ranking", "NDCG@3"].round(4) == 0.5025
    at.slider(key="cutoff").set_value(5).run()
    table = frame(at, "compare_table").round(4)
    assert table.loc["graded_ranking", "NDCG@5"] == 0.6650
    assert table.loc["graded_ranking", "Precision@5"] == 0.6


# ----- users and the NDCG page -----------------------------------------------------------


def test_users_page_follows_metric_and_chart_kind():
    at = start("movies", "app_pages/users.py")
    histogram = figure(at, "users_distribution")
    assert histogram["layout"]["xaxis"]["title"]["text"] == "NDCG@10"
    assert {t["name"] for t in histogram["data"]} == set(MOVIE_MODELS)
    at.selectbox(key="users_metric").set_value("hit_rate").run()
    ok(at)
    bars = figure(at, "users_distribution")["data"]
    assert bars[0]["x"] == ["0", "1"]
    summary = frame(at, "users_summary")
    hits = {t["name"]: t["y"][1] / 100 for t in bars}
    for model in MOVIE_MODELS:
        assert summary.loc[model, "Mean HitRate@10"] == pytest.approx(hits[model], abs=1e-6)
        assert summary.loc[model, "Share at 0"] == pytest.approx(1 - hits[model], abs=1e-6)
    at.radio(key="users_chart").set_value("box").run()
    assert {t["type"] for t in figure(at, "users_distribution")["data"]} == {"box"}


def test_worst_users_table_is_sorted_and_follows_the_model():
    at = start("movies", "app_pages/users.py")
    at.selectbox(key="users_model").set_value("top_heavy").run()
    ok(at)
    worst = frame(at, "worst_table")
    assert len(worst) == 20
    assert worst["top_heavy"].is_monotonic_increasing
    assert list(worst.columns[:3]) == ["user", "relevant", "top_heavy"]


def test_surprise_me_and_largest_disagreement_pick_users():
    at = start("movies", "app_pages/explained.py")
    first = at.session_state["explain_user"]
    at.button[0].click().run()  # surprise me
    ok(at)
    picked = at.session_state["explain_user"]
    assert picked != first
    at.selectbox(key="explain_model").set_value("personalized").run()
    at.selectbox(key="explain_other").set_value("top_heavy").run()
    at.button[1].click().run()  # largest disagreement
    ok(at)
    assert "Largest disagreement at NDCG@10" in plain(at.info[0].value)
    user = at.session_state["explain_user"]
    assert user in plain(at.info[0].value)


def test_user_selector_lists_every_user_of_a_small_data_set():
    at = start("movies", "app_pages/explained.py")
    assert len(at.selectbox(key="explain_user").options) == 2000
    at.selectbox(key="explain_user").set_value("u0123").run()
    ok(at)
    assert any("top 10 for user u0123" in plain(m.value) for m in at.markdown)


def test_user_search_narrows_a_long_list(monkeypatch):
    from dashboard import settings

    monkeypatch.setattr(settings, "USER_LIST_LIMIT", 100)
    at = start("movies", "app_pages/explained.py")
    at.text_input(key="explain_search").input("u012").run()
    ok(at)
    options = at.selectbox(key="explain_user").options
    assert options[0] == at.session_state["explain_user"]  # the user shown stays listed
    assert set(options[1:]) == {f"u012{i}" for i in range(10)}
    at.text_input(key="explain_search").input("nobody").run()
    ok(at)


# ----- uploads ---------------------------------------------------------------------------


def test_upload_two_models_and_a_ground_truth():
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    assert at.session_state["dataset"] == "uploads"
    assert any("No ground truth yet" in i.value for i in at.info)
    upload(at, 1, "ratings.csv")
    assert not errors(at)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "Model: als_model" in text and "Model: popular_items" in text
    assert "score ← `prediction`" in text and "rank ← `rank`" in text
    go(at, "app_pages/compare.py")
    assert {name for name, _ in curves(at)} == {"als_model", "popular_items"}
    assert {len(t["x"]) for t in curves(at).values()} == {20}
    at.radio(key="rel_kind").set_value("binary").run()
    before = curves(at)[("als_model", "precision")]["y"]
    at.select_slider(key="rel_threshold").set_value(5).run()
    ok(at)
    assert curves(at)[("als_model", "precision")]["y"] != before


def test_an_uploaded_decompression_bomb_is_refused_and_the_rest_stays_loaded():
    import gzip

    block = gzip.compress(b"u1,i1,0.5\n" * 100_000, compresslevel=9)  # 1 MB of rows
    bomb = gzip.compress(b"user,item,score\n") + block * 1024  # 1 GiB of rows in ~2 MB
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "als_model.csv", "bomb.csv.gz", content={"bomb.csv.gz": bomb})
    upload(at, 1, "ratings.csv")
    assert any("bomb.csv.gz" in e and "decompression bomb" in e for e in errors(at))
    go(at, "app_pages/compare.py")
    assert {name for name, _ in curves(at)} == {"als_model"}


def test_rename_and_remove_a_model():
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    upload(at, 1, "ratings.csv")
    rename = [t for t in at.text_input if t.label == "Model name"]
    rename[0].set_value("ALS v2").run()
    ok(at)
    rename = [t for t in at.text_input if t.label == "Model name"]
    rename[1].set_value("ALS v2").run()  # taken
    assert "Another model is already called 'ALS v2'." in errors(at)
    go(at, "app_pages/compare.py")
    assert {name for name, _ in curves(at)} == {"ALS v2", "popular_items"}
    go(at, "app_pages/data.py")
    [b for b in at.button if b.label == "Remove"][1].click().run()
    ok(at)
    go(at, "app_pages/compare.py")
    assert {name for name, _ in curves(at)} == {"ALS v2"}


@pytest.mark.parametrize(("name", "content", "expected"), [
    ("bad_score.csv", None, "bad_score.csv, row 3, column 'score': the score is not a number"),
    ("repeated_item.csv", None, "has item 'm0055' more than once"),
    ("unknown_columns.csv", None, "The file's columns are: 'query', 'title', 'points'"),
    ("empty.csv", b"", "empty.csv: the file is empty"),
    ("scores.xlsx", b"PK\x03\x04 not really a workbook", "spreadsheet workbook"),
    ("utf16.csv", "user,item,score\n".encode("utf-16"), "UTF-16"),
    ("garbage.parquet", b"\x00\x01\x02 definitely not parquet", "not a valid Parquet file"),
    ("other_users.csv", None, "none of the 2 users in other_users.csv is in the ground truth"),
])
def test_a_bad_model_file_is_explained_next_to_it_and_the_rest_stays(name, content, expected):
    at = start("movies", "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv", name, content={name: content} if content is not None else None)
    assert any(expected in e for e in errors(at)), errors(at)
    assert not any("Traceback" in e for e in errors(at))
    go(at, "app_pages/compare.py")
    assert {model for model, _ in curves(at)} == {"als_model"}
    # Compare names the file left out and links to the Data page; the message is told once,
    # on the Data page
    assert any(w.startswith("Left out: ") and "Data page" in w for w in warnings(at))
    assert not any(expected in w for w in warnings(at))
    assert [link.proto.page for link in at.main.get("page_link")] == ["data-files"]


def test_choosing_columns_by_hand_fixes_a_file():
    at = start("movies", "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "unknown_columns.csv")
    spec_id = at.session_state["uploads"].runs[0].id
    at.text_input(key=f"col_{spec_id}_user").input("query")
    at.text_input(key=f"col_{spec_id}_item").input("title")
    at.text_input(key=f"col_{spec_id}_order").input("points")
    [b for b in at.button if b.form_id == f"options_{spec_id}"][0].click().run()
    ok(at)
    assert not any("columns are" in e for e in errors(at))
    assert "user ← `query`" in " ".join(plain(m.value) for m in at.markdown)


def test_a_bad_ground_truth_keeps_the_one_in_use():
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "als_model.csv")
    upload(at, 1, "ratings.csv")
    upload(at, 1, "conflicting_ratings.csv")
    assert any("conflicting_ratings.csv, row 3, column 'rating': the ground truth gives "
               "different ratings to the same user and item" in e for e in errors(at))
    assert any("stays in use" in c.value for c in at.caption)
    go(at, "app_pages/compare.py")
    assert {model for model, _ in curves(at)} == {"als_model"}


def test_uploads_without_a_ground_truth_explain_what_to_do():
    at = start("uploads")
    assert "No ground truth yet" in plain(at.info[0].value)
    for page in PAGES[1:]:
        go(at, page)
        assert "Upload a ground truth" in plain(at.info[0].value)


def test_file_names_are_never_markup():
    at = start("movies", "app_pages/data.py")
    name = "<img src=x onerror=alert(1)> **big** [click](javascript:alert(1)) $x$.csv"
    upload(at, 0, name, content={name: (UPLOADS / "als_model.csv").read_bytes()})
    upload(at, 1, "ratings.csv")
    shown = [e.value for e in [*at.markdown, *at.caption, *at.error, *at.warning]]
    assert any("\\<img" in text for text in shown)  # escaped, so shown as typed
    for text in shown:
        assert "<img" not in text.replace("\\<img", "")
        assert "**big**" not in text and "](" not in text and "$x$" not in text
    go(at, "app_pages/compare.py")
    names = {model for model, _ in curves(at)}
    assert names == {"&lt;img src=x onerror=alert(1)&gt; **big** [click](javascript:alert(1)) $x$"}


# ----- downloads -------------------------------------------------------------------------

# Every table a person takes away, by page: its download button's key and the file's name.
DOWNLOADS = {
    "app_pages/compare.py": {"compare_table_csv": "metrics_at_10.csv",
                             "compare_baseline_csv": "difference_from_baseline_at_10.csv"},
    "app_pages/users.py": {"users_summary_csv": "users_ndcg_at_10.csv",
                           "per_user_csv": "per_user_ndcg_at_10_every_model.csv",
                           "worst_table_csv": "worst_users_ndcg_at_10.csv"},
    "app_pages/significance.py": {"significance_models_csv": "models_ndcg_at_10.csv",
                                  "significance_pairs_csv": "pairs_ndcg_at_10.csv"},
    "app_pages/head_to_head.py": {"h2h_b_ahead_csv": "b_beats_a_ndcg_at_10.csv",
                                  "h2h_a_ahead_csv": "a_beats_b_ndcg_at_10.csv",
                                  "h2h_list_a_csv": "top_10_of_personalized_for_user_",
                                  "h2h_list_b_csv": "top_10_of_top_heavy_for_user_",
                                  "h2h_truth_csv": "ratings_of_user_",
                                  "h2h_overlap_csv": "lists_in_common_of_personalized_and_"
                                                     "top_heavy_at_10.csv"},
    "app_pages/explained.py": {"ranked_rows_csv": "ndcg_at_10_of_popularity_for_user_",
                               "ideal_rows_csv": "ideal_list_at_10_for_user_",
                               "variants_csv": "ndcg_at_10_of_popularity_for_user_"},
}


def test_streamlits_own_table_export_is_off():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["disableDataExport"] is True


@pytest.mark.parametrize("page", list(DOWNLOADS))
def test_every_table_page_has_its_downloads(page, downloaded):
    at = start("movies", page)
    buttons = {b.proto.id.rsplit("-", 1)[-1]: b for b in at.get("download_button")}
    extra = {"report_html", "compare_table_latex"}  # the report, the LaTeX table (on click)
    assert set(buttons) - extra == set(DOWNLOADS[page]) and "report_html" in buttons
    for key, name in DOWNLOADS[page].items():
        assert downloaded(at, key).count("\n") >= 2
        saved_name = downloaded(at, key, name=True)
        assert saved_name.startswith(name), (saved_name, name)


def test_a_download_holds_the_tables_numbers_unrounded(downloaded):
    at = start("movies", "app_pages/compare.py")
    saved = pd.read_csv(io.StringIO(downloaded(at, "compare_table_csv")), index_col="Model")
    shown = frame(at, "compare_table")
    assert list(saved.index) == MOVIE_MODELS
    assert saved.to_numpy() == pytest.approx(shown.to_numpy(), rel=1e-9)
    assert (saved["NDCG@10"].round(4) != saved["NDCG@10"]).any()


def test_ids_a_spreadsheet_would_run_are_quoted_in_downloads(downloaded):
    ids = ['=HYPERLINK("http://x","y")', "+cmd", "@SUM(A1:A9)", "-2+3", "plain"]
    truth = pd.DataFrame({"user": ids, "item": [f"i{n}" for n in range(5)], "rating": 1})
    first = pd.DataFrame({"user": ids, "item": ["i0", "x", "i2", "x", "i4"], "score": 1.0})
    second = first.assign(item=["x", "i1", "x", "i3", "x"])
    files = {name: table.to_csv(index=False).encode() for name, table in
             (("first.csv", first), ("second.csv", second), ("truth.csv", truth))}
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "first.csv", "second.csv", content=files)
    upload(at, 1, "truth.csv", content=files)
    go(at, "app_pages/users.py")
    quoted = ["'" + user if user != "plain" else user for user in ids]
    worst = pd.read_csv(io.StringIO(downloaded(at, "worst_table_csv")))
    assert sorted(worst["user"]) == sorted(quoted)
    assert set(frame(at, "worst_table")["user"]) == set(ids)  # shown as they are
    go(at, "app_pages/head_to_head.py")
    both = [pd.read_csv(io.StringIO(downloaded(at, key)))
            for key in ("h2h_b_ahead_csv", "h2h_a_ahead_csv")]
    saved = pd.concat(both)
    assert sorted(saved["user"]) == sorted(quoted)
    model_a, model_b = at.session_state["h2h_a"], at.session_state["h2h_b"]
    assert {model_a, model_b} == {"first", "second"}
    assert list(saved.columns) == ["user", f"{model_a} (A)", f"{model_b} (B)", "B − A"]
    assert (saved["B − A"] < 0).any()  # a negative number is not text: left as it is


# ----- confidence bands, significance and head-to-head ---------------------------------------


def test_confidence_bands_on_the_compare_page():
    at = start("movies")
    assert not curves(at, "band")
    at.toggle(key="compare_bands").set_value(True).run()
    ok(at)
    bands, lines = curves(at, "band"), curves(at)
    assert set(bands) == set(lines)  # every model on every metric
    for key, band in bands.items():
        assert band["x"][:50] == list(range(1, 51))  # every K of the demo, then back
        upper, lower = band["y"][9], band["y"][-10]
        assert lower <= lines[key]["y"][9] <= upper
        assert band["fillcolor"].startswith("rgba(")
    title = figure(at, "compare_chart")["layout"]["title"]["text"]
    assert "shaded: 95% confidence band" in title
    width = {key: band["y"][9] - band["y"][-10] for key, band in bands.items()}
    at.selectbox(key="confidence_choice").set_value(0.8).run()
    ok(at)
    assert at.toggle(key="compare_bands").value
    assert at.toggle(key="compare_bands").label == "Show 80% confidence bands"
    assert "shaded: 80% confidence band" in figure(at, "compare_chart")["layout"]["title"]["text"]
    narrower = {key: band["y"][9] - band["y"][-10] for key, band in curves(at, "band").items()}
    assert all(narrower[key] <= width[key] for key in width)
    # the level is shared: the Significance page's intervals use it too
    go(at, "app_pages/significance.py")
    assert at.selectbox(key="confidence_choice").value == 0.8
    assert any("80% of the time" in c.value for c in at.caption)
    go(at, "app_pages/compare.py")
    assert at.selectbox(key="confidence_choice").value == 0.8


def test_significance_page_on_the_demo():
    at = start("movies", "app_pages/significance.py")
    models = frame(at, "significance_models")
    assert models["Model"].tolist() == ["top_heavy", "personalized", "popularity", "random"]
    assert models["Group"].tolist() == ["a", "b", "c", "d"]
    assert (models["Users"] == 1940).all()
    assert ((models["ci_low"] < models["mean"]) & (models["mean"] < models["ci_high"])).all()
    assert any("On the 1,940 users every model counts" in c.value for c in at.caption)
    matrix = figure(at, "significance_matrix")["data"][0]
    assert matrix["y"] == matrix["x"] == models["Model"].tolist()
    assert matrix["z"][0] == [None, 1, 1, 1] and matrix["z"][3] == [-1, -1, -1, None]
    sentence = plain(at.info[0].value)
    assert re.match(r"top_heavy is better than personalized on NDCG@10: its mean is higher by "
                    r"0\.\d+ \[0\.\d+, 0\.\d+\], significant after Holm correction "
                    r"\(p < 0\.001\)\. top_heavy serves [\d,]+ users better, personalized [\d,]+ "
                    r"\(\d+ users? the same\)\.", sentence), sentence
    assert "Randomization test:" in at.caption[1].value
    # the means are the Compare page's
    go(at, "app_pages/compare.py")
    compare = frame(at, "compare_table")["NDCG@10"]
    for row in models.itertuples():
        assert row.mean == pytest.approx(compare[row.Model])


def test_changing_the_test_and_the_correction_changes_the_table():
    at = start("movies", "app_pages/significance.py")
    randomization = frame(at, "significance_pairs")
    assert (randomization["p_value"] == 1 / 10_001).all()  # no flip reaches a real gap
    assert (randomization["p_corrected"] == 6 / 10_001).all()  # Holm, 6 pairs
    at.selectbox(key="significance_correction").set_value("bh").run()
    ok(at)
    bh = frame(at, "significance_pairs")
    assert bh["p_corrected"].tolist() == pytest.approx([1 / 10_001] * 6)
    assert "after Benjamini-Hochberg correction" in plain(at.info[0].value)
    assert any("Benjamini-Hochberg correction:" in c.value for c in at.caption)
    at.selectbox(key="significance_test").set_value("t").run()
    ok(at)
    t = frame(at, "significance_pairs")
    assert (t["p_value"] < 1 / 10_001).all() and (t["p_value"] != bh["p_value"]).all()
    assert t["ci_low"].tolist() == bh["ci_low"].tolist()  # the intervals do not depend on it
    assert any("Paired t-test:" in c.value for c in at.caption)
    at.selectbox(key="significance_correction").set_value("bonferroni").run()
    bonferroni = frame(at, "significance_pairs")
    assert bonferroni["p_corrected"].tolist() == pytest.approx(
        (6 * t["p_value"]).clip(upper=1).tolist(), rel=1e-12)
    at.selectbox(key="significance_metric").set_value("hit_rate").run()
    ok(at)
    assert "HitRate@10" in plain(at.info[0].value)
    assert frame(at, "significance_pairs")["difference"].tolist() != t["difference"].tolist()


def test_significance_warns_when_a_test_means_little():
    at = start("textbook", "app_pages/significance.py")
    assert any("Only 1 user is counted by every model at NDCG@5" in w for w in warnings(at))
    assert not at.get("plotly_chart")
    # five users, two models giving every user the same list
    at = start("movies", "app_pages/data.py")
    truth = "user,item,rating\n" + "".join(f"u{u},i{u},1\n" for u in range(5))
    run = "user,item,score\n" + "".join(f"u{u},i{u},1\nu{u},x,0.5\n" for u in range(5))
    upload(at, 0, "first.csv", "second.csv",
           content={"first.csv": run.encode(), "second.csv": run.encode()})
    upload(at, 1, "truth.csv", content={"truth.csv": truth.encode()})
    go(at, "app_pages/significance.py")
    shown = warnings(at)
    assert any(w.startswith("Only 5 users: with fewer than 10 users") for w in shown), shown
    assert any("have the same value for every user" in w for w in shown), shown
    assert "give the same NDCG@2 for all 5 users" in plain(at.info[0].value)


def test_a_pair_opens_head_to_head():
    at = start("movies", "app_pages/significance.py")
    options = at.selectbox(key="significance_pair").options
    assert len(options) == 6
    at.selectbox(key="significance_pair").set_value(("popularity", "personalized")).run()
    assert plain(at.info[0].value).startswith("personalized is better than popularity on NDCG@10")
    at.selectbox(key="significance_metric").set_value("map").run()
    [b for b in at.button if b.label == "See this pair user by user"][0].click().run()
    ok(at)
    assert at.title[0].value == "Head-to-head"
    assert (at.session_state["h2h_a"], at.session_state["h2h_b"]) == ("popularity",
                                                                      "personalized")
    assert at.session_state["h2h_metric"] == "map"
    assert figure(at, "h2h_scatter")["layout"]["xaxis"]["title"]["text"] == "popularity: MAP@10"


def test_head_to_head_follows_the_chosen_models():
    at = start("movies", "app_pages/head_to_head.py")
    # the two best at NDCG@10, the best as B
    assert (at.session_state["h2h_a"], at.session_state["h2h_b"]) == ("personalized",
                                                                      "top_heavy")
    colours = {name: t["line"]["color"] for (name, _), t in curves(start("movies")).items()}
    scatter = figure(at, "h2h_scatter")
    dots = {t["meta"]["outcome"]: t for t in scatter["data"] if t["meta"]["role"] == "users"}
    assert dots["b_better"]["name"].startswith("top_heavy better: ")
    assert dots["a_better"]["name"].startswith("personalized better: ")
    assert dots["b_better"]["marker"]["color"] == colours["top_heavy"]
    assert dots["a_better"]["marker"]["color"] == colours["personalized"]
    assert scatter["layout"]["xaxis"]["title"]["text"] == "personalized: NDCG@10"
    assert scatter["layout"]["yaxis"]["title"]["text"] == "top_heavy: NDCG@10"
    users = sum(c for t in dots.values() for c, _ in t["customdata"])
    bar = {t["meta"]["outcome"]: t["x"][0] for t in figure(at, "h2h_outcomes")["data"]}
    assert users == sum(bar.values()) == 1940
    assert bar["b_better"] == sum(c for c, _ in dots["b_better"]["customdata"])

    at.selectbox(key="h2h_a").set_value("random").run()
    ok(at)
    assert figure(at, "h2h_scatter")["layout"]["xaxis"]["title"]["text"] == "random: NDCG@10"
    [b for b in at.button if b.label == "Swap"][0].click().run()
    ok(at)
    assert (at.session_state["h2h_a"], at.session_state["h2h_b"]) == ("top_heavy", "random")
    at.selectbox(key="h2h_metric").set_value("hit_rate").run()
    ok(at)
    dots = [t for t in figure(at, "h2h_scatter")["data"] if t["meta"]["role"] == "users"]
    assert {(x, y) for t in dots for x, y in zip(t["x"], t["y"], strict=True)} <= {
        (0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)}
    b_ahead = frame(at, "h2h_b_ahead")
    assert (b_ahead["value_b"] == 1).all() and (b_ahead["value_a"] == 0).all()


def test_head_to_head_explains_the_metric_it_compares():
    at = start("movies", "app_pages/head_to_head.py")
    at.selectbox(key="h2h_metric").set_value("map").run()
    ok(at)
    user = at.session_state["h2h_user"]
    shown = frame(at, "h2h_b_ahead")
    value_a = shown.loc[shown["user"] == user, "value_a"].iloc[0]
    [b for b in at.button if b.label == "Explain personalized's MAP@10 for this user"][0] \
        .click().run()
    ok(at)
    assert at.title[0].value == "Metrics explained"
    assert at.session_state["explain_metric"] == "map"
    assert {m.label: m.value for m in at.metric}["MAP@10"] == f"{value_a:.4f}"


def test_the_worst_users_table_explains_the_metric_it_ranks_by():
    at = start("movies", "app_pages/users.py")
    at.selectbox(key="users_metric").set_value("recall").run()
    ok(at)
    at.button(key="explain_worst").click().run()
    ok(at)
    assert at.title[0].value == "Metrics explained"
    assert at.session_state["explain_metric"] == "recall"


def test_head_to_head_lists_of_one_user_and_the_ndcg_link():
    at = start("movies", "app_pages/head_to_head.py")
    b_ahead, a_ahead = frame(at, "h2h_b_ahead"), frame(at, "h2h_a_ahead")
    assert b_ahead["difference"].is_monotonic_decreasing
    assert a_ahead["difference"].is_monotonic_increasing
    user = at.session_state["h2h_user"]
    assert user == b_ahead["user"].iloc[0]  # the biggest win is shown first
    a_list, b_list = lists(at)
    assert len(a_list) == len(b_list) == 10
    truth = frame(at, "h2h_truth")
    relevant = set(truth.loc[truth["relevant"] == "✓", "item"])
    for shown in (a_list, b_list):
        assert set(shown.loc[shown["hit"] == "✓", "item"]) == relevant & set(shown["item"])
    values = {m.label: m.value for m in at.metric}
    assert values["personalized: NDCG@10"] == f"{b_ahead['value_a'].iloc[0]:.4f}"

    other = a_ahead["user"].iloc[0]
    at.selectbox(key="h2h_user").set_value(other).run()
    ok(at)
    assert any(f"What user {other} rated" in plain(m.value) for m in at.markdown)
    label = "Explain top_heavy's NDCG@10 for this user"
    [b for b in at.button if b.label == label][0].click().run()
    ok(at)
    assert at.title[0].value == "Metrics explained"
    assert at.session_state["explain_model"] == "top_heavy"
    assert at.session_state["explain_user"] == other
    assert at.session_state["explain_other"] == "personalized"
    ndcg = {m.label: m.value for m in at.metric}["NDCG@10"]
    assert ndcg == f"{a_ahead['value_b'].iloc[0]:.4f}"


def test_ndcg_page_tries_the_clipped_discount_for_itself():
    """Ranks 1 and 5 relevant, 5 relevant items in all: with 1/log2(max(i, 2)) DCG@5 is
    1 + 1/log2(5) and IDCG@5 is 1 + 1 + 1/log2(3) + 1/log2(4) + 1/log2(5)."""
    at = start("textbook", "app_pages/explained.py")
    at.selectbox(key="explain_model").set_value("c_at_position_5").run()
    at.radio(key="explained_discount").set_value("clipped").run()
    ok(at)
    dcg = 1 + 1 / math.log2(5)
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    values = {m.label: m.value for m in at.metric}
    assert values == {"DCG@5": f"{dcg:.4f}", "IDCG@5": f"{idcg:.4f}",
                      "NDCG@5": f"{dcg / idcg:.4f}"}
    assert frame(at, "ranked_rows")["discount"].round(4).tolist()[:2] == [1.0, 1.0]
    assert r"\log_2 \max(i, 2)" in at.latex[0].value
    note = " ".join(plain(m.value) for m in at.markdown)
    assert "discount 1/log2(max(rank, 2))" in note
    assert "Why a widely copied NDCG tutorial" not in note  # that slip is of log2(rank + 1)
    assert at.session_state["conv_discount"] == "shifted"  # the sidebar keeps its own
