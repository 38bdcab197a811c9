"""The Beyond accuracy page and the optional files in AppTest: the demo's curves, trade-off
and deciles; a data set without optional files; uploads that enable metrics and their
removal; the per-user metrics on the Users, Significance and Head-to-head pages, worded by
what a higher value means; values shown with the digits they need."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import APP, MOVIE_MODELS, figure, frame, go, ok, plain, start, upload

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
    assert figure(at, "beyond_tradeoff")["layout"]["xaxis"]["title"]["text"] == (
        "Share of the catalogue recommended (Coverage@10)")
    at.slider(key="cutoff").set_value(5).run()
    ok(at)
    assert figure(at, "beyond_tradeoff")["data"][0]["x"] == [pytest.approx(5 / 1500)]


def test_moving_k_reuses_the_beyond_accuracy_curves(monkeypatch):
    from rankmetrics.evaluation._beyond import BeyondAccuracy

    at = start("movies", PAGE)
    before = beyond_table(at)
    computed = []
    curve = BeyondAccuracy.curve

    def counted(self, model, metric):
        computed.append((model, metric))
        return curve(self, model, metric)

    monkeypatch.setattr(BeyondAccuracy, "curve", counted)
    at.slider(key="cutoff").set_value(5).run()
    ok(at)
    assert computed == []  # the curves over every K are kept; K picks a point of them
    after = beyond_table(at)
    assert "Coverage@5" in after.columns and "Coverage@10" in before.columns
    assert after.loc["popularity", "Coverage@5"] == pytest.approx(5 / 1500)
    at.radio(key="rel_kind").set_value("binary").run()
    ok(at)
    assert computed  # a new relevance: the users counted may change, so they are computed


def test_the_pills_and_pickers_name_the_metrics_in_words():
    at = start("movies", PAGE)
    pills = [group for group in at.get("button_group") if group.key == "beyond_metrics"][0]
    shown = [option.content for option in pills.proto.options]
    assert shown[:6] == [
        "Share of the catalogue recommended (Coverage)", "Inequality of recommendations (Gini)",
        "Inequality of attention (Exposure Gini)", "Evenness of recommendations (Entropy)",
        "Difference between users' lists (Personalization)",
        "Average popularity of recommended items (ARP)"]
    # the pills' help says what each measures and what a higher value means
    assert ("**Inequality of recommendations (Gini)**: How unequally recommendations are spread"
            in pills.proto.help)
    assert "Higher: concentrates recommendations on fewer items." in pills.proto.help
    accuracy, against = (at.selectbox(key="beyond_accuracy_metric"),
                         at.selectbox(key="beyond_tradeoff_metric"))
    assert accuracy.format_func("ndcg") == "Ranking quality (NDCG@10)"
    assert against.format_func("ild") == "Diversity within a list (ILD@10)"


def test_the_trade_off_opens_on_accuracy_against_the_share_of_long_tail_items():
    at = start("movies", PAGE)
    assert at.selectbox(key="beyond_accuracy_metric").value == "ndcg"
    assert at.selectbox(key="beyond_tradeoff_metric").value == "aplt"
    layout = figure(at, "beyond_tradeoff")["layout"]
    assert layout["yaxis"]["title"]["text"] == "Ranking quality (NDCG@10)"
    assert layout["xaxis"]["title"]["text"] == "Share of long-tail items (APLT@10)"
    assert layout["title"]["text"] == (
        "Ranking quality (NDCG@10) against share of long-tail items (APLT@10)")
    assert layout["title"]["subtitle"]["text"] == (
        "Further up is better; a model further right recommends a larger share of long-tail "
        "items; bars: 95% confidence intervals")


def test_without_interactions_the_trade_off_opens_on_coverage():
    at = start("textbook", PAGE)
    assert at.selectbox(key="beyond_tradeoff_metric").value == "coverage"
    assert figure(at, "beyond_tradeoff")["layout"]["xaxis"]["title"]["text"] == (
        "Share of the catalogue recommended (Coverage@5)")


def test_the_curves_and_the_table_say_what_a_higher_value_means():
    at = start("movies", PAGE)
    titles = [a["text"] for a in figure(at, "beyond_chart")["layout"]["annotations"]]
    assert titles[1].startswith("Inequality of recommendations (Gini@K)<br>")
    assert "Higher: concentrates recommendations on fewer items" in titles[1]
    table = [d for d in at.main.dataframe if str(d.value.columns[0]).startswith("Coverage@")]
    columns = json.loads(table[0].proto.columns)
    assert columns["Gini@10"]["help"] == (
        "Inequality of recommendations (Gini@10): How unequally recommendations are spread "
        "over the items: 0 when every item is recommended equally often, near 1 when a few "
        "items take them all. Higher: concentrates recommendations on fewer items.")
    assert columns["APLT@10"]["help"].endswith(
        "Higher: recommends a larger share of long-tail items.")


def test_without_optional_files_the_page_says_which_file_adds_what():
    at = start("textbook", PAGE)
    texts = [plain(info.value) for info in at.info]
    assert any(t.startswith("**Training interactions**") and "novelty" in t for t in texts)
    assert any(t.startswith("**Item attributes**") and "ILD" in t for t in texts)
    assert list(beyond_table(at).columns) == [
        "Coverage@5", "Gini@5", "Exposure Gini@5", "Entropy@5", "Personalization@5"]


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


def shown_values(at, first_column: str):
    """The table whose first column starts ``first_column``, as the page shows its cells
    (the Styler's text, read from the element)."""
    tables = [d for d in at.main.dataframe if str(d.value.columns[0]).startswith(first_column)]
    assert tables, f"no table starting with {first_column}"
    styler = tables[0].proto.arrow_data.styler
    return pa.ipc.open_stream(styler.display_values).read_all().to_pandas()


def test_counts_show_as_whole_numbers_and_popularity_with_two_decimals():
    at = start("movies", PAGE)
    values = beyond_table(at)
    cells = shown_values(at, "Coverage@")
    # the popularity model gives everyone the same ten films: 12 genres between them
    assert values.loc["popularity", "Categories@10"] == 12.0
    assert cells.loc["popularity", "Categories@10"] == "12"
    assert cells.loc["random", "Categories@10"] == f"{values.loc['random', 'Categories@10']:.2f}"
    assert cells.loc["popularity", "ARP@10"] == f"{values.loc['popularity', 'ARP@10']:,.2f}"
    assert cells.loc["top_heavy", "Coverage@10"] == (
        f"{values.loc['top_heavy', 'Coverage@10']:.4f}")


H2H = "app_pages/head_to_head.py"


def test_head_to_head_offers_the_per_user_beyond_metrics_worded_by_what_higher_means():
    at = start("movies", H2H)
    box = at.selectbox(key="h2h_metric")
    shown = {option.split(" (")[-1].rstrip(")") for option in box.options}
    assert {"ARP@10", "APLT@10", "ACLT@10", "Novelty@10", "ILD@10", "Categories@10"} <= shown
    assert "Coverage@10" not in shown  # one value for all users: no user to compare
    assert "Average popularity of recommended items (ARP@10)" in box.options
    box.set_value("arp").run()
    ok(at)
    model_a, model_b = at.session_state["h2h_a"], at.session_state["h2h_b"]
    bar = figure(at, "h2h_outcomes")
    parts = {trace["meta"]["outcome"]: trace for trace in bar["data"]}
    assert parts["b_better"]["name"] == f"{model_b} recommends more popular items"
    assert parts["a_better"]["name"] == f"{model_a} recommends more popular items"
    assert "Who recommends more popular items to each user, at ARP@10" in (
        bar["layout"]["title"]["text"])
    more_b, same, more_a = (parts[key]["x"][0] for key in ("b_better", "tie", "a_better"))
    caption = next(plain(c.value) for c in at.caption
                   if "recommends more popular items to" in plain(c.value))
    same_users = {0: "no user gets", 1: "1 user gets"}.get(same, f"{same:,} users get")
    assert (f"{model_b} recommends more popular items to {more_b:,} users, {model_a} to "
            f"{more_a:,} users, and {same_users} the same ARP@10 from both") in caption
    assert "not better in itself" in caption
    words = " ".join([*(plain(m.value) for m in at.main.markdown),
                      *(plain(c.value) for c in at.main.caption)])
    assert "beats" not in words and "does better" not in words
    assert f"Largest gaps where {model_b} recommends more popular items" in words
    ahead = frame(at, "h2h_b_ahead")
    assert (ahead["value_b"] > ahead["value_a"]).all()
    scatter = figure(at, "h2h_scatter")
    assert all("better" not in a["text"] for a in scatter["layout"]["annotations"])
    # ARP has no rank-by-rank arithmetic: the button says it explains NDCG, and does
    explain = next(b for b in at.button if b.key == "h2h_explain_a")
    assert explain.label == f"Explain {model_a}'s NDCG@10 for this user"
    explain.click().run()
    ok(at)
    assert at.session_state["explain_metric"] == "ndcg"


def test_head_to_head_shows_counts_as_whole_numbers():
    at = start("movies", H2H)
    at.selectbox(key="h2h_metric").set_value("categories").run()
    ok(at)
    tables = [d for d in at.main.dataframe if d.key == "h2h_b_ahead"]
    formats = {column: config["type_config"].get("format")
               for column, config in json.loads(tables[0].proto.columns).items()
               if "type_config" in config}
    assert formats == {"user": None, "value_a": "%d", "value_b": "%d", "difference": "%+d"}
    assert "Who recommends items of more categories to each user" in (
        figure(at, "h2h_outcomes")["layout"]["title"]["text"])


def test_head_to_head_without_optional_files_offers_accuracy_metrics_only():
    at = start("textbook", H2H)
    options = at.selectbox(key="h2h_metric").options
    assert "Ranking quality (NDCG@5)" in options and not any("(ARP@" in o for o in options)


def test_a_link_reopens_head_to_head_on_a_beyond_accuracy_metric():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update({"data": "movies", "h2h_metric": "novelty"})
    at.run()
    go(at, H2H)
    ok(at)
    assert not [w for w in at.warning if "link" in w.value]
    assert at.session_state["h2h_metric"] == "novelty"
    assert "Who recommends more novel (less often seen) items to each user" in (
        figure(at, "h2h_outcomes")["layout"]["title"]["text"])



def test_the_users_page_words_a_beyond_accuracy_metric_by_what_higher_means():
    at = start("movies", "app_pages/users.py")
    at.selectbox(key="users_metric").set_value("arp").run()
    ok(at)
    headings = [plain(h.value) for h in at.main.subheader]
    assert "Users with a model's lowest ARP@10" in headings
    captions = " ".join(plain(c.value) for c in at.main.caption)
    assert "A model whose curve lies further right recommends more popular items" in captions
    assert "is better" not in captions and "serve best" not in captions
    tables = [d for d in at.main.dataframe if d.key == "worst_table"]
    formats = {column: config["type_config"].get("format")
               for column, config in json.loads(tables[0].proto.columns).items()
               if "type_config" in config and column in MOVIE_MODELS}
    assert set(formats.values()) == {"%.2f"}
