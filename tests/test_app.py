"""The dashboard in Streamlit's AppTest: every page on every demo data set, the sidebar
controls changing what the charts contain, and uploads (valid and each kind of invalid)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
UPLOADS = Path(__file__).resolve().parent / "data" / "app"
PAGES = ("pages/data.py", "pages/compare.py", "pages/users.py", "pages/ndcg.py")
DEMOS = ("movies", "textbook", "textbook_graded")
MOVIE_MODELS = ["popularity", "personalized", "top_heavy", "random"]


def start(dataset: str = "movies", page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.session_state["dataset"] = dataset
    at.run()
    if page:
        at.switch_page(page).run()
    ok(at)
    return at


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    for element in at.markdown:
        assert not element.proto.allow_html


def plain(text: str) -> str:
    """Markdown as a person reads it (the app escapes text taken from files)."""
    return re.sub(r"\\(.)", r"\1", text)


def figure(at: AppTest, key: str) -> dict:
    charts = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    assert charts, f"no chart {key}"
    return json.loads(charts[0].proto.spec)


def curves(at: AppTest, role: str = "curve") -> dict[tuple[str, str], dict]:
    data = figure(at, "compare_chart")["data"]
    return {(t["name"], t["meta"]["metric"]): t for t in data if t["meta"]["role"] == role}


# Tables without selection carry no key in AppTest: they are found by a column of theirs.
TABLE_COLUMNS = {
    "compare_table": "Users averaged",
    "users_summary": "Share at 0",
    "ranked_rows": "running_dcg",
    "ideal_rows": "running_idcg",
    "variants": "ideal from all ground-truth items",
}


def frame(at: AppTest, key: str):
    column = TABLE_COLUMNS.get(key)
    found = [d.value for d in at.main.dataframe
             if d.key == key or (column is not None and column in d.value.columns)]
    assert found, f"no table {key}"
    return found[0]


def upload(at: AppTest, index: int, *names: str, content: dict[str, bytes] | None = None):
    content = content or {}
    files = [(name, content[name] if name in content else (UPLOADS / name).read_bytes(),
              "application/octet-stream") for name in names]
    at.file_uploader[index].set_value(files if index == 0 else files[0]).run()
    ok(at)
    return at


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def warnings(at: AppTest) -> list[str]:
    return [plain(w.value) for w in at.warning]


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


def test_model_colours_are_the_same_on_every_page():
    at = start("movies")
    colours = {name: t["line"]["color"] for (name, _), t in curves(at).items()}
    at.switch_page("pages/users.py").run()
    for key in ("users_distribution", "users_ecdf"):
        for trace in figure(at, key)["data"]:
            colour = trace.get("marker", {}).get("color") or trace["line"]["color"]
            assert colour == colours[trace["name"]]
    at.switch_page("pages/ndcg.py").run()
    model = at.session_state["explain_model"]
    bars = figure(at, "ndcg_bars")["data"]
    assert bars[0]["marker"]["color"] == colours[model]


@pytest.mark.parametrize("dataset", DEMOS)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_every_demo(dataset, page):
    at = start(dataset, page)
    assert at.title, "every page has a title"
    assert "K = " in at.caption[0].value, "the active settings are shown under the title"
    if page == "pages/compare.py":
        assert curves(at)
    elif page == "pages/users.py":
        assert figure(at, "users_distribution")["data"] and figure(at, "users_ecdf")["data"]
        assert len(frame(at, "worst_table")) >= 1
    elif page == "pages/ndcg.py":
        assert len(at.latex) == 4
        assert frame(at, "ranked_rows")["rank"].iloc[0] == 1
    else:
        assert [u.label for u in at.file_uploader] == [
            "Model outputs: one file per model, several at once", "Ground truth: one file"]


def test_shared_settings_survive_page_changes():
    at = start("movies")
    at.slider(key="cutoff").set_value(7).run()
    at.selectbox(key="preset").set_value("trec_eval").run()
    for page in PAGES:
        at.switch_page(page).run()
        ok(at)
        assert at.session_state["cutoff"] == 7
        assert at.session_state["preset"] == "trec_eval"
    at.switch_page("pages/compare.py").run()
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
    at.switch_page("pages/users.py").run()
    at.switch_page("pages/compare.py").run()
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
    assert "preset trec_eval" in " ".join(c.value for c in at.sidebar.caption)
    at.selectbox(key="conv_ideal").set_value("retrieved").run()
    ok(at)
    assert at.session_state["preset"] == "custom"
    assert "custom:" in " ".join(c.value for c in at.sidebar.caption)
    assert curves(at)[("personalized", "ndcg")]["y"] != trec


# ----- the textbook numbers ----------------------------------------------------------------


def test_textbook_reproduces_the_seed_numbers():
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


def test_ndcg_page_explains_the_seed_slip():
    at = start("textbook", "pages/ndcg.py")
    at.selectbox(key="explain_model").set_value("c_at_position_5").run()
    ok(at)
    values = {m.label: m.value for m in at.metric}
    assert values == {"DCG@5": "1.3869", "IDCG@5": "2.9485", "NDCG@5": "0.4704"}
    side_by_side = frame(at, "variants").round(4)
    assert sorted(side_by_side.to_numpy().ravel().tolist()) == [0.4704, 0.4704, 0.8503, 0.8503]
    note = " ".join(plain(m.value) for m in at.markdown)
    assert "Why the seed document says ~0.88" in note
    assert "1.3869 / 1.6309 = **0.8503**" in note
    assert "1 / log2(5) = 0.4307" in note and "1.4307 / 1.6309 = 0.8772 ≈ 0.88" in note
    assert "0.4704" in note
    at.radio(key="ndcg_ideal").set_value("retrieved").run()
    ok(at)
    assert {m.label: m.value for m in at.metric}["NDCG@5"] == "0.8503"
    assert at.session_state["conv_ideal"] == "retrieved"  # the sidebar follows
    assert at.session_state["preset"] == "retrieved_ideal"
    assert "1.3869" in at.latex[3].value and "1.6309" in at.latex[3].value


def test_ndcg_page_rows_for_the_first_example():
    at = start("textbook", "pages/ndcg.py")
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
    at = start("movies", "pages/users.py")
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
    at = start("movies", "pages/users.py")
    at.selectbox(key="users_model").set_value("top_heavy").run()
    ok(at)
    worst = frame(at, "worst_table")
    assert len(worst) == 20
    assert worst["top_heavy"].is_monotonic_increasing
    assert list(worst.columns[:3]) == ["user", "relevant", "top_heavy"]


def test_surprise_me_and_largest_disagreement_pick_users():
    at = start("movies", "pages/ndcg.py")
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
    at = start("movies", "pages/ndcg.py")
    assert len(at.selectbox(key="explain_user").options) == 2000
    at.selectbox(key="explain_user").set_value("u0123").run()
    ok(at)
    assert any("top 10 for user u0123" in plain(m.value) for m in at.markdown)


def test_user_search_narrows_a_long_list(monkeypatch):
    from pages import _state

    monkeypatch.setattr(_state, "USER_LIST_LIMIT", 100)
    at = start("movies", "pages/ndcg.py")
    at.text_input(key="explain_search").input("u012").run()
    ok(at)
    options = at.selectbox(key="explain_user").options
    assert options[0] == at.session_state["explain_user"]  # the user shown stays listed
    assert set(options[1:]) == {f"u012{i}" for i in range(10)}
    at.text_input(key="explain_search").input("nobody").run()
    ok(at)


# ----- uploads ---------------------------------------------------------------------------


def test_upload_two_models_and_a_ground_truth():
    at = start("movies", "pages/data.py")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    assert at.session_state["dataset"] == "uploads"
    assert any("No ground truth yet" in i.value for i in at.info)
    upload(at, 1, "ratings.csv")
    assert not errors(at)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "Model: als_model" in text and "Model: popular_items" in text
    assert "score ← `prediction`" in text and "rank ← `rank`" in text
    at.switch_page("pages/compare.py").run()
    ok(at)
    assert {name for name, _ in curves(at)} == {"als_model", "popular_items"}
    assert {len(t["x"]) for t in curves(at).values()} == {20}
    at.radio(key="rel_kind").set_value("binary").run()
    before = curves(at)[("als_model", "precision")]["y"]
    at.select_slider(key="rel_threshold").set_value(5).run()
    ok(at)
    assert curves(at)[("als_model", "precision")]["y"] != before


def test_rename_and_remove_a_model():
    at = start("movies", "pages/data.py")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    upload(at, 1, "ratings.csv")
    rename = [t for t in at.text_input if t.label == "Model name"]
    rename[0].set_value("ALS v2").run()
    ok(at)
    rename = [t for t in at.text_input if t.label == "Model name"]
    rename[1].set_value("ALS v2").run()  # taken
    assert "Another model is already called 'ALS v2'." in errors(at)
    at.switch_page("pages/compare.py").run()
    assert {name for name, _ in curves(at)} == {"ALS v2", "popular_items"}
    at.switch_page("pages/data.py").run()
    [b for b in at.button if b.label == "Remove"][1].click().run()
    ok(at)
    at.switch_page("pages/compare.py").run()
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
    at = start("movies", "pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv", name, content={name: content} if content is not None else None)
    assert any(expected in e for e in errors(at)), errors(at)
    assert not any("Traceback" in e for e in errors(at))
    at.switch_page("pages/compare.py").run()
    ok(at)
    assert {model for model, _ in curves(at)} == {"als_model"}
    assert any("is left out" in w for w in warnings(at))


def test_choosing_columns_by_hand_fixes_a_file():
    at = start("movies", "pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "unknown_columns.csv")
    spec_id = at.session_state["uploads"]["runs"][0].id
    at.text_input(key=f"col_{spec_id}_user").input("query")
    at.text_input(key=f"col_{spec_id}_item").input("title")
    at.text_input(key=f"col_{spec_id}_order").input("points")
    [b for b in at.button if b.form_id == f"options_{spec_id}"][0].click().run()
    ok(at)
    assert not any("columns are" in e for e in errors(at))
    assert "user ← `query`" in " ".join(plain(m.value) for m in at.markdown)


def test_a_bad_ground_truth_keeps_the_one_in_use():
    at = start("movies", "pages/data.py")
    upload(at, 0, "als_model.csv")
    upload(at, 1, "ratings.csv")
    upload(at, 1, "conflicting_ratings.csv")
    assert any("conflicting_ratings.csv, row 3, column 'rating': the ground truth gives "
               "different ratings to the same user and item" in e for e in errors(at))
    assert any("stays in use" in c.value for c in at.caption)
    at.switch_page("pages/compare.py").run()
    ok(at)
    assert {model for model, _ in curves(at)} == {"als_model"}


def test_uploads_without_a_ground_truth_explain_what_to_do():
    at = start("uploads")
    assert "No ground truth yet" in plain(at.info[0].value)
    for page in PAGES[1:]:
        at.switch_page(page).run()
        ok(at)
        assert "Upload a ground truth" in plain(at.info[0].value)


def test_file_names_are_never_markup():
    at = start("movies", "pages/data.py")
    name = "<img src=x onerror=alert(1)> **big** [click](javascript:alert(1)) $x$.csv"
    upload(at, 0, name, content={name: (UPLOADS / "als_model.csv").read_bytes()})
    upload(at, 1, "ratings.csv")
    shown = [e.value for e in [*at.markdown, *at.caption, *at.error, *at.warning]]
    assert any("\\<img" in text for text in shown)  # escaped, so shown as typed
    for text in shown:
        assert "<img" not in text.replace("\\<img", "")
        assert "**big**" not in text and "](" not in text and "$x$" not in text
    at.switch_page("pages/compare.py").run()
    ok(at)
    names = {model for model, _ in curves(at)}
    assert names == {"&lt;img src=x onerror=alert(1)&gt; **big** [click](javascript:alert(1)) $x$"}
