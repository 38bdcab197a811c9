"""Figure builders, tested on their own: traces, values, markers and colours, no Streamlit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from rankmetrics import Conventions
from rankmetrics.explain import explain_ndcg
from rankmetrics.figures import (
    BETTER_COLOR,
    NEUTRAL_COLOR,
    PALETTE,
    TIE_COLOR,
    WORSE_COLOR,
    distribution,
    ecdf,
    head_to_head_scatter,
    metric_curves,
    metric_label,
    model_colors,
    ndcg_contributions,
    pairwise_matrix,
    win_tie_loss,
)

CURVES = {
    "alpha": {"precision": [1.0, 0.5, 0.4], "ndcg": [1.0, 0.7, 0.6]},
    "beta": {"precision": [0.0, 0.5, 0.6], "ndcg": [0.0, 0.4, 0.5]},
}


def traces(fig: go.Figure, role: str) -> list[dict]:
    data = json.loads(fig.to_json())["data"]
    return [t for t in data if (t.get("meta") or {}).get("role") == role]


def test_model_colors_are_stable_and_distinct():
    models = [f"m{i}" for i in range(10)]
    colors = model_colors(models)
    assert len(set(colors.values())) == 10
    assert model_colors(models[:3]) == {m: colors[m] for m in models[:3]}
    assert colors["m0"] == PALETTE[0]
    many = model_colors([f"x{i}" for i in range(len(PALETTE) + 1)])
    assert many[f"x{len(PALETTE)}"] == PALETTE[0]


def test_metric_labels():
    assert metric_label("ndcg", 10) == "NDCG@10"
    assert metric_label("precision") == "Precision@K"
    assert metric_label("r_precision", 10) == "R-Precision"


def test_curves_one_line_per_model_and_metric():
    fig = metric_curves(CURVES, ["precision", "ndcg"], cutoff=2)
    curves = traces(fig, "curve")
    assert [(t["name"], t["meta"]["metric"]) for t in curves] == [
        ("alpha", "precision"), ("beta", "precision"), ("alpha", "ndcg"), ("beta", "ndcg")]
    for t in curves:
        assert t["x"] == [1, 2, 3]
        assert t["y"] == CURVES[t["name"]][t["meta"]["metric"]]
    assert [t["showlegend"] for t in curves] == [True, True, False, False]
    titles = [a["text"] for a in fig.layout.annotations]
    # each panel names its metric in words, then which way is better, in smaller type
    assert titles == [
        "Share of the list that is relevant (Precision@K)<br>"
        "<span style='font-size:12px'>Higher is better</span>",
        "Ranking quality (NDCG@K)<br><span style='font-size:12px'>Higher is better</span>"]


def test_curves_mark_the_chosen_cutoff():
    fig = metric_curves(CURVES, ["precision", "ndcg"], cutoff=3)
    markers = traces(fig, "marker")
    assert len(markers) == 4
    for t in markers:
        assert t["x"] == [3]
        assert t["y"] == [CURVES[t["name"]][t["meta"]["metric"]][2]]
        assert t["hoverinfo"] == "skip"  # the panel's one hover box names the chosen K
    assert all("(chosen K)" in t["customdata"][2] for t in traces(fig, "hover"))
    lines = [shape for shape in fig.layout.shapes if shape.type == "line"]
    assert len(lines) == 2 and {line.x0 for line in lines} == {3}
    assert "K = 3" in fig.layout.title.text


def test_curves_use_the_given_colours_everywhere():
    colors = {"alpha": "#111111", "beta": "#222222"}
    fig = metric_curves(CURVES, ["ndcg"], cutoff=1, colors=colors)
    for t in traces(fig, "curve"):
        assert t["line"]["color"] == colors[t["name"]]
    for t in traces(fig, "marker"):
        assert t["marker"]["color"] == colors[t["name"]]


def test_curves_hover_box_lists_each_model_once_highest_first():
    fig = metric_curves(CURVES, ["ndcg"], cutoff=1)
    assert all(t["hoverinfo"] == "skip" for t in traces(fig, "curve") + traces(fig, "marker"))
    (hover,) = traces(fig, "hover")
    assert fig.layout.hovermode == "x"
    assert hover["x"] == [1, 2, 3] and hover["y"] == [1.0, 0.7, 0.6]  # along the top curve
    # ndcg: alpha 1.0, 0.7, 0.6; beta 0.0, 0.4, 0.5
    at_1, _, at_3 = hover["customdata"]
    assert at_1.startswith("<b>NDCG@1</b> (chosen K)")
    assert at_1.count("alpha") == 1 and at_1.count("beta") == 1
    assert at_1.index("alpha: 1.0000") < at_1.index("beta: 0.0000")
    assert at_3.index("alpha: 0.6000") < at_3.index("beta: 0.5000")
    assert "(chosen K)" not in at_3
    crossing = {"a": {"ndcg": [0.1, 0.9]}, "b": {"ndcg": [0.5, 0.2]}}
    (hover,) = traces(metric_curves(crossing, ["ndcg"], cutoff=1), "hover")
    assert hover["customdata"][0].index("b: 0.5") < hover["customdata"][0].index("a: 0.1")
    assert hover["customdata"][1].index("a: 0.9") < hover["customdata"][1].index("b: 0.2")


def test_coinciding_curves_are_dashed_and_named_in_the_legend():
    # MRR = 1.0 at every K for two models, a third below
    same = {"one": {"mrr": [1.0, 1.0, 1.0]}, "two": {"mrr": [1.0, 1.0, 1.0]},
            "three": {"mrr": [0.5, 0.6, 0.6]}}
    fig = metric_curves(same, ["mrr"], cutoff=2)
    dashes = {t["name"]: t["line"]["dash"] for t in traces(fig, "curve")}
    assert dashes == {"one": "solid", "two": "dash", "three": "solid"}
    (note,) = traces(fig, "coincide")
    assert note["name"] == "one and two coincide on MRR@K (dashed)" and note["showlegend"]
    assert "two: 1.0000 (= one)" in traces(fig, "hover")[0]["customdata"][0]
    assert traces(metric_curves(CURVES, ["ndcg"], cutoff=2), "coincide") == []


def test_the_end_of_the_longest_list_is_marked():
    long = {"a": {"precision": [1.0, 0.5, 1 / 3, 0.25]}}  # one item, a list of 1
    fig = metric_curves(long, ["precision"], cutoff=1, list_end=1)
    ends = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert [s.x0 for s in ends] == [1]
    assert "lists end" in [a.text for a in fig.layout.annotations]
    unmarked = metric_curves(long, ["precision"], cutoff=1, list_end=4)
    assert not [s for s in unmarked.layout.shapes if s.line.dash == "dash"]


def test_curves_layout_grows_with_the_metrics():
    six = ["precision", "recall", "hit_rate", "mrr", "map", "ndcg"]
    data = {m: {metric: [0.5] * 4 for metric in six} for m in ("a", "b")}
    fig = metric_curves(data, six, cutoff=2)
    assert len(fig.layout.annotations) == 6
    assert fig.layout.height > metric_curves(data, ["ndcg"], cutoff=2).layout.height


def test_curves_without_metrics_or_beyond_the_curve():
    with pytest.raises(ValueError, match="at least one metric"):
        metric_curves(CURVES, [], cutoff=1)
    assert traces(metric_curves(CURVES, ["ndcg"], cutoff=9), "marker") == []


def test_model_names_are_shown_literally():
    fig = metric_curves({"<b>x</b>": CURVES["alpha"]}, ["ndcg"], cutoff=1)
    assert traces(fig, "curve")[0]["name"] == "&lt;b&gt;x&lt;/b&gt;"


def test_figures_carry_plain_lists():
    big = {"a": np.random.default_rng(0).random(50_000), "b": np.zeros(50_000)}
    for fig in (metric_curves(CURVES, ["ndcg"], cutoff=1), distribution(big, "ndcg", 10),
                ecdf(big, "ndcg", 10), distribution(big, "ndcg", 10, kind="box")):
        text = fig.to_json()
        assert "bdata" not in text
        assert len(text) < 200_000


def test_histogram_of_a_discrete_metric_has_one_bar_per_value():
    values = {"a": [0, 1, 1, 1], "b": [0, 0, 0, 1]}
    fig = distribution(values, "hit_rate", 5)
    bars = traces(fig, "histogram")
    assert [t["name"] for t in bars] == ["a", "b"]
    assert bars[0]["x"] == ["0", "1"]
    assert bars[0]["y"] == [25.0, 75.0] and bars[1]["y"] == [75.0, 25.0]
    assert fig.layout.xaxis.type == "category"
    assert fig.layout.xaxis.title.text == "HitRate@5"


def test_histogram_of_a_continuous_metric_is_binned_with_a_bar_for_zero():
    rng = np.random.default_rng(1)
    values = {"a": rng.random(1000), "b": np.concatenate([np.zeros(100), rng.random(400) / 2])}
    bars = traces(distribution(values, "ndcg", 10), "histogram")
    for t in bars:
        assert len(t["x"]) == 11  # exactly 0, then 10 bins of 0.1
        assert t["customdata"][0] == "exactly 0" and t["customdata"][1] == "0.00–0.10"
        assert sum(t["y"]) == pytest.approx(100.0)
    assert bars[0]["y"][0] == 0 and bars[1]["y"][0] == pytest.approx(20.0)
    assert sum(bars[1]["y"][6:]) == 0  # b is below 0.5


def test_box_plot_uses_precomputed_quartiles():
    values = {"a": np.arange(101) / 100}
    box = traces(distribution(values, "recall", 5, kind="box"), "box")[0]
    assert box["q1"] == [0.25] and box["median"] == [0.5] and box["q3"] == [0.75]
    assert box["mean"] == [pytest.approx(0.5)]
    assert box["lowerfence"] == [0.0] and box["upperfence"] == [1.0]
    with pytest.raises(ValueError, match="kind"):
        distribution(values, "recall", 5, kind="violin")


def test_ecdf_climbs_to_one_and_is_thinned():
    values = {"a": [0, 0, 0.5, 1.0], "big": np.random.default_rng(2).random(100_000)}
    lines = traces(ecdf(values, "ndcg", 10), "ecdf")
    assert lines[0]["x"] == [0, 0.5, 1.0] and lines[0]["y"] == [0.5, 0.75, 1.0]
    big = lines[1]
    assert len(big["x"]) <= 401 and big["y"][-1] == 1.0
    assert big["x"] == sorted(big["x"]) and big["y"] == sorted(big["y"])


def test_ndcg_contributions_match_the_breakdown():
    truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
    run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
    b = explain_ndcg(truth, run, "u", cutoff=5, conventions=Conventions.preset("retrieved_ideal"))
    fig = ndcg_contributions(b, "#123456", model="recommended")
    ranked, ideal = traces(fig, "ranked")[0], traces(fig, "ideal")[0]
    assert ranked["x"] == [1, 2, 3, 4, 5]
    assert ranked["y"] == pytest.approx([1, 0, 0.5, 0, 0])
    assert ranked["customdata"] == list("ABCDE")
    assert ideal["x"] == [1, 2] and ideal["y"] == pytest.approx([1, 0.63093], abs=1e-5)
    assert "0.9197" in fig.layout.title.text
    assert ranked["marker"]["color"] == "#123456"
    assert "DCG@5 = 1.5000" in ranked["name"]


# ----- confidence bands on the curves ------------------------------------------------------

BANDS = pd.DataFrame({
    "model": ["alpha"] * 3 + ["beta"] * 2,
    "metric": ["ndcg"] * 5,
    "cutoff": [1, 2, 3, 1, 3],
    "mean": [1.0, 0.7, 0.6, 0.0, 0.5],
    "ci_low": [0.9, 0.6, 0.5, 0.0, 0.4],
    "ci_high": [1.0, 0.8, 0.7, 0.1, 0.6],
})


def test_bands_are_shaded_areas_in_the_model_colour():
    colors = {"alpha": "#0072B2", "beta": "#E69F00"}
    fig = metric_curves(CURVES, ["precision", "ndcg"], cutoff=2, colors=colors, bands=BANDS,
                        confidence=0.9)
    bands = traces(fig, "band")
    assert [(t["name"], t["meta"]["metric"]) for t in bands] == [("alpha", "ndcg"),
                                                                 ("beta", "ndcg")]
    alpha, beta = bands
    # the upper edge left to right, then the lower edge back: one closed area
    assert alpha["x"] == [1, 2, 3, 3, 2, 1]
    assert alpha["y"] == [1.0, 0.8, 0.7, 0.5, 0.6, 0.9]
    assert beta["x"] == [1, 3, 3, 1] and beta["y"] == [0.1, 0.6, 0.4, 0.0]
    assert alpha["fill"] == "toself" and alpha["fillcolor"] == "rgba(0, 114, 178, 0.18)"
    assert beta["fillcolor"] == "rgba(230, 159, 0, 0.18)"
    assert alpha["hoverinfo"] == "skip" and not alpha["showlegend"]
    assert "shaded: 90% confidence band" in fig.layout.title.text
    hover = {t["meta"]["metric"]: t["customdata"] for t in traces(fig, "hover")}
    assert "alpha: 1.0000 [0.9000, 1.0000]" in hover["ndcg"][0]
    assert "alpha: 0.6000 [0.5000, 0.7000]" in hover["ndcg"][2]
    assert "beta: 0.4000<" not in hover["ndcg"][1] and hover["ndcg"][1].endswith("beta: 0.4000")
    assert "[" not in hover["precision"][0]


def test_no_bands_no_shading():
    fig = metric_curves(CURVES, ["ndcg"], cutoff=2)
    assert traces(fig, "band") == []
    assert "shaded" not in fig.layout.title.text


# ----- the pairwise matrix ---------------------------------------------------------------

PAIRS = pd.DataFrame({
    "model_a": ["a", "a", "b"],
    "model_b": ["b", "c", "c"],
    "difference": [0.1, 0.3, 0.2],  # mean_b - mean_a: c > b > a
    "ci_low": [0.05, 0.2, -0.01],
    "ci_high": [0.15, 0.4, 0.41],
    "p_corrected": [0.0004, 0.01, 0.2],
    "significant": [True, True, False],
})


def test_pairwise_matrix_cells_read_row_minus_column():
    fig = pairwise_matrix(PAIRS, ["c", "b", "a"], "NDCG@10")
    cells = traces(fig, "matrix")[0]
    assert cells["x"] == ["c", "b", "a"] and cells["y"] == ["c", "b", "a"]
    # rows c, b, a; c - b = 0.2 (not significant), c - a = 0.3 (significant), b - a = 0.1
    assert cells["z"] == [[None, 0, 1], [0, None, 1], [-1, -1, None]]
    text = cells["text"]
    assert text[0][2] == "▲ +0.3000<br>p = 0.010"
    assert text[2][0] == "▼ -0.3000<br>p = 0.010"
    assert text[0][1] == "+0.2000<br>p = 0.200" and text[1][0] == "-0.2000<br>p = 0.200"
    assert text[1][2] == "▲ +0.1000<br>p < 0.001"
    assert text[1][1] == "–"
    assert "c − a: +0.3000 [0.2000, 0.4000]" in cells["customdata"][0][2]
    assert "a − c: -0.3000 [-0.4000, -0.2000]" in cells["customdata"][2][0]
    assert "significantly worse" in cells["customdata"][2][0]
    # the colour key is a line of the title (a colour bar would crowd narrow windows)
    assert not cells["showscale"] and "colorbar" not in cells
    assert "▲ blue: row significantly better · ▼ red: worse" in fig.layout.title.text
    colours = [c for _, c in cells["colorscale"]]
    assert colours[0] == WORSE_COLOR and colours[2] == NEUTRAL_COLOR
    assert colours[-1] == BETTER_COLOR
    assert "NDCG@10" in fig.layout.title.text
    assert fig.layout.yaxis.autorange == "reversed"  # first model on top


def test_pairwise_matrix_calls_equal_means_neither_better_nor_worse():
    # equal means with a significant test (Wilcoxon can reject on equal means): grey, no glyph
    pairs = PAIRS.assign(difference=0.0, significant=True)
    cells = traces(pairwise_matrix(pairs, ["c", "b", "a"], "NDCG@10"), "matrix")[0]
    assert cells["z"] == [[None, 0, 0], [0, None, 0], [0, 0, None]]
    assert "no significant difference" in cells["customdata"][0][2]


def test_pairwise_matrix_escapes_names():
    pairs = PAIRS.replace({"a": "<b>a</b>"})
    cells = traces(pairwise_matrix(pairs, ["c", "b", "<b>a</b>"], "MAP@5"), "matrix")[0]
    assert cells["x"][2] == "&lt;b&gt;a&lt;/b&gt;"


# ----- head to head ----------------------------------------------------------------------


def duel(a, b) -> pd.DataFrame:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return pd.DataFrame({"user": [f"u{i}" for i in range(len(a))], "value_a": a,
                         "value_b": b, "difference": b - a})


def test_scatter_groups_users_and_colours_by_winner():
    pairs = duel([0.0, 0.0, 0.5, 1.0, 0.2], [1.0, 1.0, 0.5, 0.0, 0.4])
    colors = {"A": "#111111", "B": "#222222"}
    fig = head_to_head_scatter(pairs, "A", "B", "NDCG@10", colors)
    dots = {t["meta"]["outcome"]: t for t in traces(fig, "users")}
    b_better = dots["b_better"]
    assert b_better["x"] == [0.0, 0.2] and b_better["y"] == [1.0, 0.4]
    counts = {(x, y): c for x, y, (c, _) in zip(b_better["x"], b_better["y"],
                                                b_better["customdata"], strict=True)}
    assert counts == {(0.0, 1.0): 2, (0.2, 0.4): 1}
    assert b_better["marker"]["color"] == "#222222"
    assert dots["a_better"]["x"] == [1.0] and dots["a_better"]["marker"]["color"] == "#111111"
    assert dots["tie"]["x"] == [0.5] and dots["tie"]["marker"]["color"] == TIE_COLOR
    sizes = dict(zip(b_better["x"], b_better["marker"]["size"], strict=True))
    assert sizes[0.0] > sizes[0.2]  # two users make a bigger dot
    assert b_better["name"] == "B better: 3 users"
    assert traces(fig, "diagonal")[0]["x"] == traces(fig, "diagonal")[0]["y"] == [0.0, 1.0]
    assert fig.layout.xaxis.title.text == "A: NDCG@10"
    assert fig.layout.yaxis.title.text == "B: NDCG@10"
    assert "rounded" not in fig.layout.title.text


def test_scatter_of_many_users_stays_light_and_counts_everyone():
    rng = np.random.default_rng(0)
    a = rng.random(100_000)
    b = np.clip(a + rng.normal(0.05, 0.2, 100_000), 0, 1)
    fig = head_to_head_scatter(duel(a, b), "A", "B", "NDCG@10")
    dots = traces(fig, "users")
    assert sum(len(t["x"]) for t in dots) <= 2_500
    assert sum(c for t in dots for c, _ in t["customdata"]) == 100_000
    assert "values rounded to" in fig.layout.title.text
    assert len(fig.to_json()) < 400_000
    assert "bdata" not in fig.to_json()


def test_win_tie_loss_bar():
    colors = {"A": "#111111", "B": "#222222"}
    fig = win_tie_loss(612, 87, 401, "A", "B", "NDCG@10", colors)
    parts = {t["meta"]["outcome"]: t for t in traces(fig, "outcome")}
    assert [parts[k]["x"] for k in ("b_better", "tie", "a_better")] == [[612], [87], [401]]
    assert parts["b_better"]["marker"]["color"] == "#222222"
    assert parts["a_better"]["marker"]["color"] == "#111111"
    assert parts["tie"]["marker"]["color"] == TIE_COLOR
    assert parts["b_better"]["text"] == ["612 (56%)"]
    assert parts["b_better"]["name"] == "B better"
    assert fig.layout.barmode == "stack"
    assert "NDCG@10" in fig.layout.title.text


def test_comparisons_of_a_metric_where_higher_is_not_better_say_what_higher_means():
    higher = "recommends more popular items"
    bar = win_tie_loss(5, 1, 3, "A", "B", "ARP@10", higher=higher)
    parts = {t["meta"]["outcome"]: t["name"] for t in traces(bar, "outcome")}
    assert parts == {"b_better": "B recommends more popular items", "tie": "same value",
                     "a_better": "A recommends more popular items"}
    assert bar.layout.title.text.startswith(
        "Who recommends more popular items to each user, at ARP@10")
    scatter = head_to_head_scatter(duel([3.0, 9.0], [7.0, 2.0]), "A", "B", "ARP@10",
                                   higher=higher)
    names = {t["meta"]["outcome"]: t["name"] for t in traces(scatter, "users")}
    assert names["b_better"] == "B recommends more popular items: 1 user"
    words = " ".join([*names.values(), *(a.text for a in scatter.layout.annotations)])
    assert "better" not in words


def test_no_dot_lies_under_the_scatters_corner_labels():
    # whole numbers reaching the top of the range (as category counts do): the corner labels
    # sit in the top and bottom 7% of the plot; every dot stays inside the middle 84%
    scatter = head_to_head_scatter(duel([0.0, 12.0, 3.0], [12.0, 0.0, 12.0]), "A", "B",
                                   "Categories@10")
    low, high = scatter.layout.yaxis.range
    for trace in traces(scatter, "users"):
        for y in trace["y"]:
            assert 0.08 <= (y - low) / (high - low) <= 0.92
    assert [a.y for a in scatter.layout.annotations if a.yref == "y domain"] == [0.98, 0.02]

