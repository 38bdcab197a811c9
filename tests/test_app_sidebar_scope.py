"""The sidebar shows what affects the page in view, and its settings keep their values on the
pages that hide them; the format every chart's camera icon saves in is chosen there, once."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.io import read_run, read_truth
from tests.apptest import APP, MOVIE_MODELS, go, ok, start
from tests.helpers import MOVIES

FORMAT_LABEL = "Camera icon saves charts as"


def format_controls(at: AppTest) -> list:
    return [group for group in at.get("button_group") if group.proto.label == FORMAT_LABEL]


def image_formats(at: AppTest) -> list[str]:
    return [json.loads(chart.proto.config)["toImageButtonOptions"]["format"]
            for chart in at.get("plotly_chart")]


def sidebar_headings(at: AppTest) -> list[str]:
    return [heading.value for heading in at.sidebar.subheader]


def sidebar_keys(at: AppTest) -> set[str]:
    return {widget.key for kind in ("selectbox", "radio", "select_slider", "slider",
                                    "number_input")
            for widget in getattr(at.sidebar, kind)}


def test_the_format_control_is_in_the_sidebar_once_for_every_chart_of_the_page():
    at = start(page="app_pages/choosing_k.py")
    assert len(at.get("plotly_chart")) > 1
    controls = format_controls(at)
    assert len(controls) == 1
    assert "camera icon" in controls[0].proto.help
    assert "PNG" in controls[0].proto.help and "SVG" in controls[0].proto.help
    assert [group for group in at.main.get("button_group")
            if group.proto.label == FORMAT_LABEL] == []
    assert set(image_formats(at)) == {"png"}

    at.session_state["chart_format"] = "svg"
    at.run()
    options = [json.loads(chart.proto.config)["toImageButtonOptions"]
               for chart in at.get("plotly_chart")]
    assert {option["format"] for option in options} == {"svg"}
    assert {option["scale"] for option in options} == {1}
    assert {option["width"] for option in options} == {1200}


def test_a_chart_keeps_its_file_name_in_either_format():
    at = start(page="app_pages/users.py")
    names = [json.loads(chart.proto.config)["toImageButtonOptions"]["filename"]
             for chart in at.get("plotly_chart")]
    assert names[0] == "distribution_NDCG_10"
    at.session_state["chart_format"] = "svg"
    at.run()
    assert [json.loads(chart.proto.config)["toImageButtonOptions"]["filename"]
            for chart in at.get("plotly_chart")] == names


@pytest.mark.parametrize(("page", "headings"), [
    ("app_pages/compare.py", ["Relevance", "Conventions", "Cutoff", "Baseline", "Charts",
                              "Share"]),
    ("app_pages/significance.py", ["Relevance", "Conventions", "Cutoff", "Baseline", "Charts",
                                   "Share"]),
    ("app_pages/head_to_head.py", ["Relevance", "Conventions", "Cutoff", "Charts", "Share"]),
    ("app_pages/explained.py", ["Relevance", "Conventions", "Cutoff", "Charts", "Share"]),
    ("app_pages/data.py", ["Relevance", "Cutoff", "Share"]),
    ("app_pages/playground.py", ["Charts", "Share"]),
])
def test_each_page_shows_the_sidebar_parts_it_depends_on(page, headings):
    at = start(page=page)
    assert sidebar_headings(at) == headings
    assert "dataset" in sidebar_keys(at)
    assert len(format_controls(at)) == ("Charts" in headings)
    assert ("preset" in sidebar_keys(at)) == ("Conventions" in headings)
    assert ("baseline" in sidebar_keys(at)) == ("Baseline" in headings)


def test_the_playground_says_its_settings_are_its_own():
    at = start(page="app_pages/playground.py")
    said = " ".join(caption.value for caption in at.sidebar.caption)
    assert "its own" in said
    assert "Conventions:" not in said and "Relevance:" not in said


def test_settings_keep_their_values_on_a_page_that_hides_them():
    at = start(page="app_pages/compare.py")
    at.sidebar.selectbox(key="preset").set_value("trec_eval").run()
    at.sidebar.radio(key="rel_kind").set_value("binary").run()
    at.sidebar.select_slider(key="rel_threshold").set_value(5).run()
    at.sidebar.slider(key="cutoff").set_value(7).run()
    at.sidebar.selectbox(key="baseline").set_value(MOVIE_MODELS[2]).run()
    at.session_state["chart_format"] = "svg"
    at.run()
    settings = at.session_state["_settings"]

    go(at, "app_pages/playground.py")
    assert "preset" not in sidebar_keys(at) and "cutoff" not in sidebar_keys(at)
    assert at.session_state["_settings"] == settings  # still in force, unchanged
    go(at, "app_pages/data.py")
    assert "preset" not in sidebar_keys(at) and "baseline" not in sidebar_keys(at)
    assert at.session_state["_settings"] == settings

    go(at, "app_pages/compare.py")
    assert at.sidebar.selectbox(key="preset").value == "trec_eval"
    assert at.sidebar.radio(key="rel_kind").value == "binary"
    assert at.sidebar.select_slider(key="rel_threshold").value == 5
    assert at.sidebar.slider(key="cutoff").value == 7
    assert at.sidebar.selectbox(key="baseline").value == MOVIE_MODELS[2]
    assert format_controls(at)[0].value == "svg"
    assert set(image_formats(at)) == {"svg"}
    assert at.session_state["_settings"] == settings
    assert "K = 7" in " ".join(caption.value for caption in at.main.caption)


def test_an_edited_grade_table_stays_in_force_on_a_page_that_hides_it():
    at = start(page="app_pages/compare.py")
    at.sidebar.radio(key="rel_kind").set_value("graded").run()
    before = at.session_state["_settings"].relevance
    go(at, "app_pages/head_to_head.py")
    go(at, "app_pages/playground.py")
    assert at.session_state["_settings"].relevance == before
    go(at, "app_pages/compare.py")
    assert at.sidebar.radio(key="rel_kind").value == "graded"
    assert at.session_state["_settings"].relevance == before


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The movies demo saved with 50 sampled users (K up to 20)."""
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=20)
    return evaluation.save(tmp_path_factory.mktemp("bundle") / "movies.zip", sample=50)


def test_a_saved_evaluations_k_is_kept_on_the_playground_which_hides_it(archive):
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    go(at, "app_pages/data.py")
    at.file_uploader(key="bundle_upload").set_value(
        ("movies.zip", archive.read_bytes(), "application/zip")).run()
    ok(at)
    at.sidebar.select_slider(key="bundle_cutoff").set_value(5).run()
    go(at, "app_pages/playground.py")
    assert sidebar_headings(at) == ["Charts", "Share"]
    assert not [s for s in at.sidebar.select_slider if s.key == "bundle_cutoff"]
    assert at.session_state["_settings"].cutoff == 5
    go(at, "app_pages/compare.py")
    assert "Baseline" in sidebar_headings(at)
    assert at.sidebar.select_slider(key="bundle_cutoff").value == 5
