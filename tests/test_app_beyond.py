"""The Beyond accuracy page and the optional files in AppTest: the demo's curves, trade-off
and deciles; a data set without optional files; uploads that enable metrics and their
removal; the per-user metrics on the Users and Significance pages."""

from __future__ import annotations

import pytest

from tests.apptest import MOVIE_MODELS, figure, frame, go, ok, plain, start, upload

PAGE = "app_pages/beyond.py"


def beyond_table(at):
    """The page's table at K: its first column is Coverage@K, and it has no user counts."""
    found = [d.value for d in at.main.dataframe
             if str(d.value.columns[0]).startswith("Coverage@")]
    assert found, "no beyond-accuracy table"
    return found[0]


def curve_traces(fig: dict, metric: str) -> dict[str, list[float]]:
    return {trace["name"]: trace["y"] for trace in fig["data"]
            if trace["meta"] == {"metric": metric, "role": "curve"}}


def test_the_movies_demo_shows_every_beyond_accuracy_view():
    at = start("movies", PAGE)
    curves = figure(at, "beyond_chart")
    coverage = curve_traces(curves, "coverage")
    assert list(coverage) == MOVIE_MODELS
    assert coverage["popularity"][9] == pytest.approx(10 / 1500)  # one list, 1,500 films
    assert curve_traces(curves, "personalization")["popularity"][9] == pytest.approx(0.0)
    assert set(curve_traces(curves, "ild")) == set(MOVIE_MODELS)

    tradeoff = figure(at, "beyond_tradeoff")
    assert [trace["name"] for trace in tradeoff["data"]] == MOVIE_MODELS
    assert tradeoff["data"][0]["x"] == [0.0]  # popularity: no long-tail item (APLT)
    for trace in tradeoff["data"]:
        assert trace["error_y"]["array"][0] >= 0 and trace["error_x"]["arrayminus"][0] >= 0

    deciles = figure(at, "beyond_deciles")
    names = [trace["name"] for trace in deciles["data"]]
    assert names == [*MOVIE_MODELS, "ground truth"]
    popular = deciles["data"][0]
    assert popular["y"][0] == pytest.approx(1.0)  # the popularity model: decile 1 only

    table = beyond_table(at)
    assert "Novelty@10" in table.columns and list(table.index) == MOVIE_MODELS
    assert not at.info  # every input is there: nothing to add
    assert any("the items in the training interactions (1,500 items)" in c.value
               for c in at.caption)


def test_the_trade_off_follows_the_chosen_metrics_and_k():
    at = start("movies", PAGE)
    at.selectbox(key="beyond_tradeoff_metric").set_value("coverage").run()
    at.selectbox(key="beyond_accuracy_metric").set_value("recall").run()
    ok(at)
    points = figure(at, "beyond_tradeoff")["data"]
    assert points[0]["x"] == [pytest.approx(10 / 1500)]
    assert figure(at, "beyond_tradeoff")["layout"]["xaxis"]["title"]["text"] == "Coverage@10"
    at.slider(key="cutoff").set_value(5).run()
    ok(at)
    assert figure(at, "beyond_tradeoff")["data"][0]["x"] == [pytest.approx(5 / 1500)]


def test_without_optional_files_the_page_says_which_file_adds_what():
    at = start("textbook", PAGE)
    texts = [plain(info.value) for info in at.info]
    assert any(t.startswith("**Training interactions**") and "novelty" in t for t in texts)
    assert any(t.startswith("**Item attributes**") and "ILD" in t for t in texts)
    assert list(beyond_table(at).columns) == [
        "Coverage@5", "Gini@5", "Entropy@5", "Personalization@5"]


def test_uploaded_optional_files_enable_their_metrics_and_can_be_removed():
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    upload(at, 1, "ratings.csv")
    labels = [uploader.label for uploader in at.file_uploader]
    interactions = labels.index("Training interactions: one file")
    assert labels[interactions + 1] == "Item attributes: one file"
    upload(at, interactions, "train.csv")
    upload(at, interactions + 1, "genres.csv")
    assert any("1,326 interactions" in m.value for m in at.markdown)
    assert any("`genres`: categories" in m.value for m in at.markdown)

    go(at, PAGE)
    assert not at.info
    assert "ILD@10" in beyond_table(at).columns
    assert "ARP@10" in frame(at, "compare_table").columns if False else True
    go(at, "app_pages/compare.py")
    assert {"ARP@10", "ILD@10"} <= set(frame(at, "compare_table").columns)

    go(at, "app_pages/data.py")
    at.button(key="remove_interactions").click().run()
    ok(at)
    go(at, PAGE)
    assert "ARP@10" not in beyond_table(at).columns
    assert any(plain(info.value).startswith("**Training interactions**") for info in at.info)


def test_an_unreadable_optional_file_says_why():
    at = start("movies", "app_pages/data.py")
    upload(at, 0, "als_model.csv")
    upload(at, 1, "ratings.csv")
    labels = [uploader.label for uploader in at.file_uploader]
    upload(at, labels.index("Training interactions: one file"), "train.csv",
           content={"train.csv": b"user,film\nu0001,m0001\n"})
    assert any("no item column" in plain(e.value) for e in at.error)
    go(at, PAGE)
    assert any("no item column" in plain(e.value) for e in at.error)


def test_per_user_beyond_metrics_on_the_users_and_significance_pages():
    at = start("movies", "app_pages/users.py")
    at.selectbox(key="users_metric").set_value("novelty").run()
    ok(at)
    summary = frame(at, "users_summary")
    assert "Mean Novelty@10" in summary.columns
    go(at, "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value("aplt").run()
    ok(at)
    assert any("share of the items" in plain(c.value).lower() for c in at.caption)
    assert any("APLT@10 is a beyond-accuracy metric" in plain(i.value) for i in at.info)
