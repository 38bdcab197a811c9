"""Serendipity and miscalibration in the dashboard: offered on the Beyond accuracy page with
the movies demo's training interactions and genres, and worked out for one user in Metrics
explained, with the library's value; not offered where there is no history."""

from __future__ import annotations

import pytest

from rankmetrics import evaluate
from rankmetrics.io import read_attributes, read_interactions, read_run, read_truth
from rankmetrics.relevance import RelevanceMapping
from tests.apptest import MOVIE_MODELS, ROOT, frame, go, ok, start

MOVIES = ROOT / "data" / "movies"
PAGE = "app_pages/explained.py"


def table_with(at, column: str):
    found = [table.value for table in at.main.dataframe if column in table.value.columns]
    assert found, f"no table with {column}"
    return found[0]


@pytest.fixture(scope="module")
def library():
    return evaluate(read_truth(MOVIES / "ground_truth.csv"),
                    {m: read_run(MOVIES / f"{m}.parquet") for m in MOVIE_MODELS},
                    relevance=RelevanceMapping.identity(4), max_cutoff=50,
                    interactions=read_interactions(MOVIES / "train.csv"),
                    item_attributes=read_attributes(MOVIES / "items.csv", key="item"))


def test_the_beyond_page_offers_them():
    at = start("movies", "app_pages/beyond.py")
    group = next(g for g in at.get("button_group") if g.key == "beyond_metrics")
    offered = [option.content for option in group.proto.options]
    assert any("Serendipity" in text for text in offered)
    assert any("Miscalibration" in text for text in offered)


@pytest.mark.parametrize("metric", ["serendipity", "miscalibration"])
def test_metrics_explained_works_out_one_user(metric, library):
    at = start("movies", PAGE)
    at.selectbox(key="explain_metric").set_value(metric).run()
    ok(at)
    model, user = at.selectbox(key="explain_model").value, at.selectbox(key="explain_user").value
    k = at.slider(key="cutoff").value
    expected = library.per_user_at(model, metric, k)[user]
    shown = next(m for m in at.metric if m.label.startswith(("Serendipity", "Miscalibration")))
    assert shown.value == f"{expected:.4f}"
    rows = table_with(at, "unexpected" if metric == "serendipity" else "categories")
    assert len(rows) == min(k, 50)
    if metric == "miscalibration":
        categories = table_with(at, "smoothed")
        assert categories["term"].sum() == pytest.approx(expected, abs=1e-9)
        assert categories["history"].sum() == pytest.approx(1.0)
    else:
        assert rows["part"].sum() / len(rows) == pytest.approx(expected, abs=1e-9)
    assert len(at.latex) >= 2


def test_without_training_interactions_they_are_not_offered():
    at = start("textbook", PAGE)
    assert "serendipity" not in at.selectbox(key="explain_metric").options
    go(at, "app_pages/compare.py")


@pytest.mark.parametrize("metric, label", [("serendipity", "Serendipity@10"),
                                           ("miscalibration", "Miscalibration@10")])
def test_the_pages_of_per_user_values_take_them(metric, label, library):
    at = start("movies", "app_pages/users.py")
    at.selectbox(key="users_metric").set_value(metric).run()
    ok(at)
    summary = frame(at, "users_summary")
    column = f"Mean {label}"
    means = summary[column]
    for model in MOVIE_MODELS:
        # the mean over the users the page counts is the library's mean
        assert float(means[model]) == pytest.approx(library.curve(model, metric)[9], abs=1e-9)

    go(at, "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value(metric).run()
    ok(at)
    assert not at.exception
    assert f"Every model at {label}" in [header.value for header in at.subheader]
    models = next(table.value for table in at.main.dataframe
                  if "mean" in table.value.columns).set_index("Model")
    for model in MOVIE_MODELS:
        assert models.loc[model, "mean"] == pytest.approx(library.curve(model, metric)[9],
                                                          abs=1e-9)

    go(at, "app_pages/head_to_head.py")
    at.selectbox(key="h2h_metric").set_value(metric).run()
    ok(at)
    assert not at.exception
