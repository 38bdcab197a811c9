"""The Choosing-K page in Streamlit's AppTest: both demo data sets and an upload, the summary
linking to its panels, and the controls changing what the charts show."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import APP, MOVIE_MODELS, UPLOADS, figure, ok, start

PAGE = "app_pages/choosing_k.py"


def open_page(dataset: str = "movies") -> AppTest:
    return start(dataset, PAGE)


def has_chart(at: AppTest, key: str) -> bool:
    return any(c.proto.id.endswith(f"-{key}") for c in at.get("plotly_chart"))


def summary(at: AppTest) -> str:
    """The summary as a person reads it (Markdown escapes removed)."""
    found = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert found, "no summary"
    return re.sub(r"\\(.)", r"\1", found[0])


def test_movies_summary_links_every_sentence_to_a_panel_that_is_drawn():
    at = open_page()
    text = summary(at)
    lines = text.splitlines()
    assert len(lines) == 5
    anchors = [re.search(r"\(#([a-z-]+)\)$", line).group(1) for line in lines]
    assert anchors == ["order-over-k", "metrics-over-k", "separating-models",
                       "relevance-thresholds", "ties"]
    subheader_anchors = {h.proto.anchor for h in at.subheader}
    assert set(anchors) <= subheader_anchors
    assert lines[0].startswith("- On NDCG, the order of the four models is the same at every K "
                               "from 1 to 50.")
    order = figure(at, "k_order")["data"]
    assert [t["name"] for t in order] == [*MOVIE_MODELS, "crossings"]
    assert len(order[0]["x"]) == 50
    for key in ("k_tau", "k_power", "k_band", "k_metric_map", "k_relevance_map", "k_ties"):
        assert figure(at, key)["data"], key
    power = figure(at, "k_power")["data"]
    assert power[0]["name"] == "NDCG" and len(power) == 6


def test_changing_the_metric_changes_the_curves_and_the_summary():
    at = open_page()
    before = figure(at, "k_order")["data"][0]["y"]
    at.selectbox(key="choosing_k_metric").set_value("recall").run()
    ok(at)
    assert figure(at, "k_order")["data"][0]["y"] != before
    text = summary(at)
    assert "On Recall, the order of the four models at K = 10 holds from K = 1 to 10; " \
        "personalized passes top_heavy at K = 11." in text
    crossings = figure(at, "k_order")["data"][-1]
    assert crossings["x"] == [11]


def test_randomization_runs_at_a_spread_of_cutoffs_and_says_so():
    at = open_page()
    at.selectbox(key="choosing_k_test").set_value("randomization").run()
    ok(at)
    captions = " ".join(c.value for c in at.caption)
    assert "The randomization test runs at K = 1, 2, 3, 5, 10, 15, 20, 30, 50 only." in captions
    power = figure(at, "k_power")["data"][0]
    assert power["x"] == [1, 2, 3, 5, 10, 15, 20, 30, 50]


def test_the_cutoff_table_marks_only_significantly_best_models_and_refuses_bad_cutoffs():
    at = open_page()
    tables = [d.value for d in at.main.dataframe if "NDCG@5" in d.value.columns]
    assert tables and list(tables[0].index) == MOVIE_MODELS
    assert list(tables[0].columns[:3]) == ["Precision@1", "Precision@5", "Precision@10"]
    at.text_input(key="choosing_k_cutoffs").set_value("1, 500").run()
    ok(at)
    assert any("Cutoffs are whole numbers from 1 to 50" in w.value for w in at.warning)


@pytest.mark.parametrize(("dataset", "message"), [
    ("textbook", "Only 1 user is counted by every model"),
    ("textbook_graded", "With one model there is nothing to compare"),
])
def test_textbook_demos_explain_what_cannot_be_tested(dataset, message):
    at = open_page(dataset)
    assert any(message in i.value for i in at.info)
    assert has_chart(at, "k_order") and has_chart(at, "k_ties")
    assert not has_chart(at, "k_power")


def test_an_upload_of_two_models_shows_the_p_value_curve():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("app_pages/data.py").run()
    files = [(name, (UPLOADS / name).read_bytes(), "application/octet-stream")
             for name in ("als_model.csv", "popular_items.tsv")]
    at.file_uploader[0].set_value(files).run()
    at.file_uploader[1].set_value(("ratings.csv", (UPLOADS / "ratings.csv").read_bytes(),
                                   "text/csv")).run()
    ok(at)
    at.switch_page(PAGE).run()
    ok(at)
    p_values = figure(at, "k_p_value")["data"][0]
    assert len(p_values["x"]) == 20
    assert all(0 < p <= 1 for p in p_values["y"])
    assert not has_chart(at, "k_power")
    assert "two models" in summary(at)


def test_the_relevance_thresholds_compared_are_chosen_on_the_page():
    at = open_page()
    chooser = at.multiselect(key="choosing_k_thresholds")
    assert chooser.value == ["grade >= 1", "grade >= 2", "grade >= 3"]
    chooser.set_value(["grade >= 3"]).run()
    ok(at)
    rows = {row for trace in figure(at, "k_relevance_map")["data"] for row in trace["y"]}
    assert rows == {"grade >= 3"}
    assert "under every relevance mapping tried (grade >= 3)" in summary(at)
    at.multiselect(key="choosing_k_thresholds").set_value([]).run()
    ok(at)
    assert not has_chart(at, "k_relevance_map")
    assert len(summary(at).splitlines()) == 4
