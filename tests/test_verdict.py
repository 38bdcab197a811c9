"""What a reader concludes from the dashboard: one model is called best only when it is
significantly better than every other, sentences never crown a model the data does not,
every table gives each model's difference from a chosen baseline, and the words, charts,
theme and messages tell the truth to everyone (keyboard, screen reader, dark mode)."""

from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from dashboard.highlight import Highlight
from dashboard.messages import in_app
from dashboard.settings import beyond_lists_note
from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.figures import PALETTE, metric_curves, model_colors, pairwise_matrix
from rankmetrics.figures.text import (
    BACKGROUND,
    LIGHT_TICKS,
    MARK_CONTRAST,
    contrast_ratio,
    on_dark,
    recolor,
    recolored,
    text_alternative,
)
from rankmetrics.io import read_run, read_truth
from rankmetrics.report.verdict import differences_from, leader_verdict
from rankmetrics.stats import compare_models
from tests.apptest import figure, frame, go, ok, plain, start, upload, warnings
from tests.helpers import MOVIE_MODELS, REPO

# ----- the library: leaders and differences from a baseline ------------------------------


def test_differences_from_a_baseline_by_hand():
    # per user: A 0.2, 0.4 (mean 0.3); B 0.3, 0.5 (mean 0.4); C 0.3, 0.3 (mean 0.3)
    values = pd.DataFrame({"A": [0.2, 0.4] * 20, "B": [0.3, 0.5] * 20, "C": [0.3, 0.3] * 20})
    result = compare_models(values, test="t", n_bootstrap=200)
    table = differences_from(result, "A").set_index("model")
    assert table.loc["B", "difference"] == pytest.approx(0.4 - 0.3)
    assert table.loc["B", "lift"] == pytest.approx((0.4 - 0.3) / 0.3)
    assert table.loc["B", "verdict"] == "better"
    assert table.loc["C", "difference"] == pytest.approx(0.0, abs=1e-12)
    assert table.loc["C", "verdict"] == "no significant difference"
    assert table.loc["A", "verdict"] == "baseline" and np.isnan(table.loc["A", "ci_low"])
    pair = result.pair("A", "B")
    assert (table.loc["B", "ci_low"], table.loc["B", "ci_high"]) == (pair.ci_low, pair.ci_high)
    assert table.loc["B", "lift_low"] == pytest.approx(pair.ci_low / 0.3)
    with pytest.raises(ValueError, match="The baseline 'D' is not one of the compared models"):
        differences_from(result, "D")


def test_lift_is_undefined_over_a_zero_baseline():
    values = pd.DataFrame({"A": [0.0] * 12, "B": [0.1, 0.3] * 6})
    table = differences_from(compare_models(values, test="t", n_bootstrap=50), "A")
    assert table.set_index("model").loc["B", "difference"] == pytest.approx(0.2)
    assert table["lift"].isna().all()


def test_the_movies_recall_leaders_are_not_distinguishable(movies_per_user):
    # Recall@10: top_heavy 0.2404 vs personalized 0.2351, p = 0.217 after Holm
    result = compare_models(movies_per_user("recall"))
    verdict = leader_verdict(result)
    assert verdict.leaders == ("top_heavy", "personalized") and verdict.best is None
    assert not result.pair("personalized", "top_heavy").significant
    ndcg = leader_verdict(compare_models(movies_per_user("ndcg")))
    assert ndcg.best == "top_heavy" and ndcg.leaders == ("top_heavy",)


@pytest.fixture(scope="module")
def movies_per_user():
    movies = REPO / "data" / "movies"
    truth = read_truth(movies / "ground_truth.csv")
    runs = {m: read_run(movies / f"{m}.parquet") for m in MOVIE_MODELS}
    mapping = RelevanceMapping.graded({3: 1, 4: 2, 5: 3}, threshold=2)  # the app's suggestion
    ev = evaluate(truth, runs, relevance=mapping, max_cutoff=10)
    return lambda metric: ev.paired(metric, 10)


# ----- the Compare page: best, tied leaders, the test behind them ---------------------------


def marks(at) -> pd.DataFrame:
    """The Compare table as displayed (values with their ★ / ≈ marks)."""
    styler = at.main.dataframe[0].proto.arrow_data.styler
    return pa.ipc.open_stream(styler.display_values).read_all().to_pandas()


def test_compare_marks_the_best_only_when_significant_and_says_how():
    at = start("movies")
    shown = marks(at)
    assert shown.loc["top_heavy", "NDCG@10"].endswith(" ★")
    assert shown.loc["top_heavy", "Recall@10"] == "0.2404 ≈"
    assert shown.loc["personalized", "Recall@10"] == "0.2351 ≈"
    assert not any(cell.endswith(("★", "≈")) for cell in shown["Recall@10"][["popularity",
                                                                          "random"]])
    styles = at.main.dataframe[0].proto.arrow_data.styler.styles
    assert Highlight.TIED.css in styles and Highlight.BEST.css in styles
    captions = " ".join(c.value for c in at.caption)
    assert ("tested with the randomization test, Holm correction, 5% significance level: the "
            "default; choose another on the Significance page") in captions
    assert "not distinguishable" in captions
    # the Significance page's choices rule once made there
    go(at, "app_pages/significance.py")
    at.selectbox(key="significance_test").set_value("t").run()
    at.selectbox(key="significance_correction").set_value("bonferroni").run()
    go(at, "app_pages/compare.py")
    captions = " ".join(c.value for c in at.caption)
    assert ("tested with the paired t-test, Bonferroni correction, 5% significance level: "
            "chosen on the Significance page") in captions


def test_the_pair_sentence_never_crowns_a_model_the_test_does_not():
    at = start("movies", "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value("recall").run()
    at.selectbox(key="significance_pair").set_value(("personalized", "top_heavy")).run()
    ok(at)
    sentence = plain(at.info[0].value)
    assert sentence.startswith("No real difference between top_heavy and personalized on "
                               "Recall@10: top_heavy has the higher mean, by 0.005")
    assert "beats" not in sentence and "better than" not in sentence
    assert "Higher mean, fewer users served better: top_heavy serves" in sentence


# ----- the baseline ---------------------------------------------------------------------


def test_baseline_is_chosen_in_the_sidebar_and_every_table_shows_the_difference(
        movies_per_user):
    at = start("movies")
    assert at.sidebar.selectbox(key="baseline").value == "popularity"  # the first model
    at.sidebar.selectbox(key="baseline").set_value("personalized").run()
    ok(at)
    table = [d.value for d in at.main.dataframe if "Verdict" in d.value.columns][0]
    assert "personalized" not in set(table["Model"])
    ndcg = table[table["Metric"] == "NDCG@10"].set_index("Model")
    means = movies_per_user("ndcg").mean()
    for model in ("top_heavy", "popularity", "random"):
        gap = means[model] - means["personalized"]
        assert ndcg.loc[model, "Difference"] == pytest.approx(gap)
        assert ndcg.loc[model, "Lift"] == pytest.approx(gap / means["personalized"])
        assert ndcg.loc[model, "Difference: low"] < gap < ndcg.loc[model, "Difference: high"]
    assert ndcg.loc["top_heavy", "Verdict"] == "better"
    assert ndcg.loc["random", "Verdict"] == "worse"
    assert any(h.value.startswith("Difference from personalized") for h in at.subheader)
    go(at, "app_pages/users.py")  # the choice holds on every page
    summary = frame(at, "users_summary")
    assert summary.loc["top_heavy", "Difference"] == pytest.approx(
        means["top_heavy"] - means["personalized"])
    assert summary.loc["personalized", "Verdict"] == "baseline"
    go(at, "app_pages/significance.py")
    models = frame(at, "significance_models").set_index("Model")
    assert models.loc["random", "Lift"] == pytest.approx(
        (means["random"] - means["personalized"]) / means["personalized"])


# ----- the sidebar tells the truth ------------------------------------------------------------


def sidebar_captions(at) -> str:
    return " ".join(plain(c.value) for c in at.sidebar.caption)


def test_the_relevance_text_describes_the_mapping_in_force():
    at = start("movies")
    assert "NDCG grades 5 -> 3" in sidebar_captions(at)  # the suggestion, in force
    at.sidebar.radio(key="rel_kind").set_value("binary").run()
    at.sidebar.select_slider(key="rel_threshold").set_value(3).run()
    ok(at)
    text = sidebar_captions(at)
    assert "NDCG grades 5 -> 3" not in text
    assert "In force: binary: rating >= 3 is relevant (grade 1" in text


def test_curves_beyond_the_longest_list_are_explained():
    at = start("movies")  # every model lists 50 items
    assert beyond_lists_note(50) not in sidebar_captions(at)
    assert not [s for s in figure(at, "compare_chart")["layout"]["shapes"]
                if s["line"].get("dash") == "dash"]
    at.sidebar.number_input(key="max_cutoff").set_value(60).run()
    ok(at)
    assert beyond_lists_note(50) in sidebar_captions(at)
    layout = figure(at, "compare_chart")["layout"]
    assert {s["x0"] for s in layout["shapes"] if s["line"].get("dash") == "dash"} == {50}
    assert "lists end" in [a["text"] for a in layout["annotations"]]


# ----- charts -------------------------------------------------------------------------------


def test_identical_curves_on_the_textbook_coincide_and_say_so():
    # both lists put A first: MRR = HitRate = 1 at every K for both models
    at = start("textbook")
    data = figure(at, "compare_chart")["data"]
    notes = {t["name"] for t in data if t["meta"]["role"] == "coincide"}
    assert "recommended and c_at_position_5 coincide on MRR@K (dashed)" in notes
    dashed = {(t["name"], t["meta"]["metric"]) for t in data
              if t["meta"]["role"] == "curve" and t["line"]["dash"] != "solid"}
    assert ("c_at_position_5", "mrr") in dashed and ("recommended", "mrr") not in dashed


def test_one_hover_box_per_panel_in_the_app():
    data = figure(start("movies"), "compare_chart")["data"]
    hover = [t for t in data if t["meta"]["role"] == "hover"]
    assert len(hover) == 6
    assert all(t.get("hoverinfo") == "skip" for t in data if t["meta"]["role"] != "hover")
    ndcg_at_10 = next(t for t in hover if t["meta"]["metric"] == "ndcg")["customdata"][9]
    order = [ndcg_at_10.index(name) for name in ("top_heavy", "personalized", "popularity",
                                                  "random")]
    assert order == sorted(order)


def test_charts_carry_a_text_alternative():
    at = start("movies")
    chart = [c for c in at.get("plotly_chart") if c.proto.id.endswith("-compare_chart")][0]
    assert chart.proto.alt.startswith("Mean over users at K = 1..50")
    assert "At K = 10, Precision: personalized 0.2795, top_heavy 0.2399" in chart.proto.alt
    matrix = pairwise_matrix(
        pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "difference": [0.1],
                      "ci_low": [0.05], "ci_high": [0.15], "p_corrected": [0.01],
                      "significant": [True]}), ["b", "a"], "NDCG@10")
    assert "1 of 1 pairs differ significantly" in text_alternative(matrix)


def test_dark_charts_keep_models_distinguishable_and_light_ticks_readable():
    assert contrast_ratio(LIGHT_TICKS, BACKGROUND["light"]) >= 4.5
    dark = [on_dark(color) for color in PALETTE]
    assert len(set(dark)) == len(PALETTE)
    assert all(contrast_ratio(c, BACKGROUND["dark"]) >= MARK_CONTRAST for c in dark)
    colors = model_colors([f"m{i}" for i in range(8)])
    assert colors["m6"] == "#000000"  # black on white, ...
    curves = metric_curves({m: {"ndcg": [0.5, 0.4]} for m in colors}, ["ndcg"], 1, colors)
    fig = recolored(curves, "dark")
    lines = {t.name: t.line.color for t in fig.data if t.meta["role"] == "curve"}
    assert lines["m6"] == "#F0E442"  # ... yellow on the dark page
    assert "color:#F0E442" in [t for t in fig.data if t.meta["role"] == "hover"][0].customdata[0]
    assert recolored(curves, "light").layout.xaxis.tickfont.color == LIGHT_TICKS
    # the figure has no background of its own: the page's theme shows through
    assert curves.layout.plot_bgcolor is None and curves.layout.paper_bgcolor is None


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_chart_recoloured_in_place_is_the_recoloured_copy(theme):
    """Pages draw each figure once, recoloured in place: the same figure as the copy, and
    the text alternative, read before, is the copy's."""
    colors = model_colors([f"m{i}" for i in range(8)])
    curves = metric_curves({m: {"ndcg": [0.5, 0.4], "recall": [0.1, 0.3]} for m in colors},
                           ["ndcg", "recall"], 1, colors)
    copy = recolored(curves, theme)
    alternative = text_alternative(curves)
    recolor(curves, theme)
    assert curves.to_plotly_json() == copy.to_plotly_json()
    assert text_alternative(copy) == alternative


def test_every_chart_gets_the_same_type_sizes_unless_its_builder_chose_larger_type():
    from plotly.subplots import make_subplots

    bare = make_subplots(rows=1, cols=2).add_bar(x=[1], y=[1], row=1, col=2)
    shown = recolored(bare, "light")
    sizes = {(axis.tickfont.size, axis.title.font.size)
             for axis in [*shown.select_xaxes(), *shown.select_yaxes()]}
    assert sizes == {(13, 14)}
    assert (shown.layout.font.size, shown.layout.legend.font.size,
            shown.layout.title.font.size) == (14, 14, 16)
    # the curves' own builder already uses these sizes: recolouring changes none of them
    curves = metric_curves({"m": {"ndcg": [0.5, 0.4]}}, ["ndcg"], 1, {"m": "#0072B2"})
    assert recolored(curves, "light").layout.xaxis.tickfont.size == 13
    # a chart made for a projector keeps its large type, an explicit size is kept
    large = recolored(make_subplots(rows=1, cols=1).update_layout(font_size=24), "light")
    assert large.layout.font.size == 24 and large.layout.xaxis.tickfont.size is None
    own = recolored(make_subplots(rows=1, cols=1).update_xaxes(tickfont_size=20), "dark")
    assert own.layout.xaxis.tickfont.size == 20 and own.layout.yaxis.tickfont.size == 13


def test_the_theme_follows_the_system_and_developers_options_are_hidden():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert "base" not in config.get("theme", {})  # no fixed theme: the system's, or chosen
    assert {"light", "dark"} <= set(config["theme"])
    assert config["client"]["toolbarMode"] == "viewer"
    # captions are drawn at 60% of the text colour: on white that must still be 4.5:1
    text = config["theme"]["light"]["textColor"]
    caption = "#" + "".join(f"{round(int(text[i:i + 2], 16) * 0.6 + 255 * 0.4):02X}"
                            for i in (1, 3, 5))
    assert contrast_ratio(caption, "#FFFFFF") >= 4.5


# ----- messages and the keyboard --------------------------------------------------------------


def test_the_app_points_to_the_column_chooser_not_to_python():
    at = start("movies", "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "unknown_columns.csv")
    shown = " ".join(plain(e.value) for e in at.error)
    assert "The file's columns are: 'query', 'title', 'points'" in shown
    assert "columns={" not in shown
    assert "“Choose the columns or the format by hand” below" in shown
    assert in_app("pass columns={'rank': 'pos'}.") == (
        "choose 'pos' as the rank column in “Choose the columns or the format by hand” below.")


def test_explaining_a_worst_served_user_is_a_button():
    at = start("movies", "app_pages/users.py")
    worst = [d.value for d in at.main.dataframe if d.key == "worst_table"][0]
    button = [b for b in at.button if b.key == "explain_worst"][0]
    first = str(worst["user"].iloc[0])
    assert plain(button.label) == f"Explain this user: {first}"
    button.click().run()
    ok(at)
    assert at.title[0].value == "Metrics explained"
    assert at.session_state["explain_user"] == first


def test_the_cli_warns_once_about_the_ground_truth(tmp_path, capsys):
    from rankmetrics.cli import main

    (tmp_path / "truth.csv").write_text("user,item,rating\nu1,a,5\nu2,b,1\n")
    (tmp_path / "run.csv").write_text("user,item,score\nu1,a,1\nu2,b,1\n")
    run = str(tmp_path / "run.csv")
    code = main(["evaluate", "--truth", str(tmp_path / "truth.csv"), "--run", run,
                 "--run", f"other={run}", "--binary", "4", "--cutoffs", "1"])
    assert code == 0
    assert capsys.readouterr().err.count("has no relevant item") == 1


# ----- newcomers ----------------------------------------------------------------------------


def test_the_sample_files_upload_and_compare():
    sample = REPO / "data" / "sample"
    at = start("movies", "app_pages/data.py")
    at.file_uploader[1].set_value(("ratings.csv", (sample / "ratings.csv").read_bytes(),
                                   "text/csv")).run()
    at.file_uploader[0].set_value([
        (name, (sample / name).read_bytes(), "text/csv")
        for name in ("personalized.csv", "popularity.csv")]).run()
    ok(at)
    go(at, "app_pages/compare.py")
    table = frame(at, "compare_table")
    assert list(table.index) == ["personalized", "popularity"]
    assert not warnings(at)
    readme = (REPO / "README.md").read_text()
    assert "data/sample/" in readme and "## How to read the results" in readme


def test_pages_testing_every_metric_bound_their_work_on_many_users():
    from dashboard.verdict import SignificanceChoice, bounded, bounded_note

    chosen = SignificanceChoice("randomization", "holm", 10_000, 1_000, 0.95, chosen=False)
    assert bounded(chosen, 1_940) == chosen  # the demo: the full test
    quick = bounded(chosen, 100_000)
    assert (quick.test, quick.n_bootstrap, quick.correction) == ("t", 200, "holm")
    assert bounded_note(chosen, 100_000) == (
        " With 100,000 users, to keep this page quick, the paired t-test stands in for the "
        "randomization test and the intervals come from 200 resamples; the Significance page "
        "runs the full test.")
    assert bounded_note(chosen, 1_940) == ""
