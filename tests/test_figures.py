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
    PALETTE,
    distribution,
    ecdf,
    metric_curves,
    metric_label,
    model_colors,
    ndcg_contributions,
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
    assert titles == ["Precision@K", "NDCG@K"]


def test_curves_mark_the_chosen_cutoff():
    fig = metric_curves(CURVES, ["precision", "ndcg"], cutoff=3)
    markers = traces(fig, "marker")
    assert len(markers) == 4
    for t in markers:
        assert t["x"] == [3]
        assert t["y"] == [CURVES[t["name"]][t["meta"]["metric"]][2]]
        assert "chosen K" in t["hovertemplate"]
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


def test_curves_show_exact_values_on_hover():
    fig = metric_curves(CURVES, ["ndcg"], cutoff=1)
    assert all("%{y:.4f}" in t["hovertemplate"] for t in traces(fig, "curve"))
    assert fig.layout.hovermode == "x unified"


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
