"""Metrics in plain words: every metric has a name a product manager reads without the
notation, its short label stays as columns show it, and every figure says which way is better
(or what a higher value means where neither is)."""

from __future__ import annotations

import re

import pandas as pd
import plotly.graph_objects as go
import pytest

from rankmetrics.figures import distribution, ecdf, metric_curves, pairwise_matrix
from rankmetrics.figures.beyond import beyond_curves, tradeoff
from rankmetrics.figures.segments import segment_curves_figure
from rankmetrics.figures.text import text_alternative
from rankmetrics.metrics import (
    ALL_METRICS,
    BEYOND_METRICS,
    LONG_TAIL_METRICS,
    METRICS,
    direction_text,
    higher_says,
    plain_label,
)

LABELS = {
    "precision": "Precision", "recall": "Recall", "hit_rate": "HitRate", "mrr": "MRR",
    "map": "MAP", "ndcg": "NDCG", "dcg": "DCG", "r_precision": "R-Precision",
    "err": "ERR", "rbp": "RBP", "rbp_residual": "RBP residual", "bpref": "bpref",
    "judged": "Judged",
    "coverage": "Coverage", "gini": "Gini", "exposure_gini": "Exposure Gini",
    "entropy": "Entropy",
    "personalization": "Personalization", "arp": "ARP", "aplt": "APLT", "aclt": "ACLT",
    "novelty": "Novelty", "ild": "ILD", "categories": "Categories",
    "category_entropy": "Category entropy",
    "serendipity": "Serendipity", "miscalibration": "Miscalibration",
    "recall_long_tail": "Recall (long tail)", "ndcg_long_tail": "NDCG (long tail)",
}


def test_the_short_labels_are_unchanged():
    assert {name: metric.label for name, metric in ALL_METRICS.items()} == LABELS


@pytest.mark.parametrize("name", list(ALL_METRICS))
def test_every_metric_has_a_plain_name_in_words(name):
    metric = ALL_METRICS[name]
    words = metric.plain_name
    assert words and words == words.strip() and words[0].isupper()
    assert not words.endswith(".")
    # words, not the notation: the short name is not the plain name, nor inside it
    assert metric.label not in words
    assert plain_label(name) == (f"{words} ({metric.label})" if "(" not in metric.label
                                 else f"{words}: {metric.label}")


def test_plain_names_tell_the_metrics_apart():
    names = [metric.plain_name for metric in ALL_METRICS.values()]
    assert len(set(names)) == len(names)


def test_the_plain_label_takes_the_short_name_shown():
    assert plain_label("ndcg", "NDCG@10") == "Ranking quality (NDCG@10)"
    assert plain_label("arp", "ARP@5") == "Average popularity of recommended items (ARP@5)"
    assert plain_label("ild") == "Diversity within a list (ILD)"
    assert plain_label("gini") == "Inequality of recommendations (Gini)"
    assert plain_label("ndcg_long_tail", "NDCG (long tail)@10") == (
        "Ranking quality on long-tail items: NDCG (long tail)@10")
    with pytest.raises(ValueError, match="'metric' argument must be one of"):
        plain_label("ndgc")


@pytest.mark.parametrize("name", [*(name for name in METRICS
                                    if name not in ("judged", "rbp_residual")),
                                  *LONG_TAIL_METRICS])
def test_higher_is_better_for_accuracy(name):
    assert direction_text(name) == "Higher is better"


def test_the_share_judged_says_what_higher_means_not_better():
    # it tells how far the other values can be trusted, not which model is better
    assert direction_text("judged") == "Higher: has more of its top K judged"
    assert direction_text("rbp_residual") == "Higher: has more of its list unjudged"


@pytest.mark.parametrize("name", [name for name in BEYOND_METRICS if name not in
                                  LONG_TAIL_METRICS])
def test_a_beyond_accuracy_metric_says_what_higher_means(name):
    higher = BEYOND_METRICS[name].higher
    assert higher and not higher.endswith(".")
    assert direction_text(name) == f"Higher: {higher}"
    assert "better" not in higher  # a higher value is not better in itself


def test_the_direction_words_of_the_popularity_and_exposure_metrics():
    assert direction_text("arp") == "Higher: recommends more popular items"
    assert direction_text("gini") == "Higher: concentrates recommendations on fewer items"
    assert direction_text("coverage") == "Higher: recommends more of the catalogue"


# ----- the figures say the metric in words and which way is better ------------------------

CURVES = {"alpha": {"ndcg": [0.5, 0.6, 0.7], "arp": [900.0, 800.0, 700.0],
                    "coverage": [0.1, 0.2, 0.3]},
          "beta": {"ndcg": [0.4, 0.5, 0.6], "arp": [300.0, 250.0, 200.0],
                   "coverage": [0.4, 0.5, 0.6]}}
POINTS = pd.DataFrame({"model": ["alpha", "beta"], "x": [0.2, 0.5], "x_low": [0.1, 0.4],
                       "x_high": [0.3, 0.6], "y": [0.6, 0.5], "y_low": [0.55, 0.45],
                       "y_high": [0.65, 0.55]})


def words(text: str) -> str:
    """Figure text as read: line breaks and tags dropped."""
    return " ".join(re.sub(r"<[^>]+>", " ", text).split())


def panel_titles(fig: go.Figure) -> list[str]:
    return [words(annotation.text) for annotation in fig.layout.annotations]


def test_each_curve_panel_names_its_metric_in_words_and_which_way_is_better():
    fig = metric_curves(CURVES, ["ndcg", "arp"], cutoff=2)
    assert panel_titles(fig) == [
        "Ranking quality (NDCG@K) Higher is better",
        "Average popularity of recommended items (ARP@K) Higher: recommends more popular "
        "items"]


def test_the_beyond_accuracy_panels_say_what_a_higher_value_means():
    fig = beyond_curves(CURVES, ["coverage", "arp"], cutoff=2)
    assert panel_titles(fig) == [
        "Share of the catalogue recommended (Coverage@K) Higher: recommends more of the "
        "catalogue",
        "Average popularity of recommended items (ARP@K) Higher: recommends more popular "
        "items"]
    assert "better" not in " ".join(panel_titles(fig))


def test_long_panel_titles_wrap_and_the_rows_make_room_for_them():
    one_line = metric_curves(CURVES, ["ndcg"], cutoff=2)
    three = metric_curves(CURVES, ["ndcg", "arp", "coverage"], cutoff=2)  # three a row
    arp = three.layout.annotations[1].text
    assert arp.startswith("Average popularity of recommended<br>items (ARP@K)<br>")
    assert all(len(words(line)) <= 42 for line in arp.split("<br>"))
    # taller titles: a larger top margin, and the panels keep their height
    assert three.layout.margin.t > one_line.layout.margin.t
    assert three.layout.height - three.layout.margin.t == (
        one_line.layout.height - one_line.layout.margin.t)


def test_the_trade_off_names_both_axes_in_words_and_says_which_way_is_better():
    fig = tradeoff(POINTS, "ndcg", "coverage", 10)
    assert fig.layout.yaxis.title.text == "Ranking quality (NDCG@10)"
    assert fig.layout.xaxis.title.text == "Share of the catalogue recommended (Coverage@10)"
    assert words(fig.layout.title.text) == (
        "Ranking quality (NDCG@10) against share of the catalogue recommended (Coverage@10)")
    assert fig.layout.title.subtitle.text == (
        "Further up is better; a model further right recommends more of the catalogue; "
        "bars: 95% confidence intervals")
    on_the_long_tail = tradeoff(POINTS, "recall", "recall_long_tail", 5, confidence=0.9)
    assert on_the_long_tail.layout.title.subtitle.text == (
        "Higher is better on both axes; bars: 90% confidence intervals")


@pytest.mark.parametrize(("metric", "subtitle", "reading"), [
    ("ndcg", "Higher is better", "A curve further right is better"),
    ("arp", "Higher: recommends more popular items",
     "A model whose curve lies further right recommends more popular items"),
])
def test_the_distributions_say_which_way_is_better(metric, subtitle, reading):
    values = {"alpha": [0.0, 0.5, 1.0], "beta": [0.2, 0.4, 0.6]}
    for kind in ("histogram", "box"):
        fig = distribution(values, metric, 10, kind=kind)
        assert words(fig.layout.title.text) == (
            f"{plain_label(metric, f'{ALL_METRICS[metric].label}@10')}: how it spreads over "
            "users")
        assert words(fig.layout.title.subtitle.text) == subtitle
    cumulative = ecdf(values, metric, 10)
    assert words(cumulative.layout.title.text).endswith("@10): cumulative share of users")
    assert words(cumulative.layout.title.subtitle.text) == reading


def test_segment_curves_say_the_metric_in_words_and_which_way_is_better():
    curves = pd.DataFrame({"segment": ["FR", "FR", "DE", "DE"], "model": "a",
                           "cutoff": [1, 2, 1, 2], "value": [0.5, 0.4, 0.3, 0.2]})
    fig = segment_curves_figure(curves, "mrr", 2)
    assert fig.layout.title.text.startswith("How early the first hit comes (MRR@K) over K")
    assert fig.layout.title.subtitle.text == "Higher is better"


def test_the_significance_matrix_says_higher_where_higher_is_not_better():
    pairs = pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "difference": [0.3],
                          "ci_low": [0.1], "ci_high": [0.5], "p_corrected": [0.01],
                          "significant": [True]})
    accuracy = pairwise_matrix(pairs, ["b", "a"], "NDCG@10")
    assert "row significantly better" in accuracy.layout.title.text
    popularity = pairwise_matrix(pairs, ["b", "a"], "ARP@10", higher=higher_says("arp"))
    title = popularity.layout.title.text
    assert "row significantly higher (recommends more popular items)" in title
    assert "better" not in title
    hover = popularity.data[0].customdata
    assert "b: significantly higher" in hover[0][1] and "a: significantly lower" in hover[1][0]


def test_the_text_alternative_reads_the_subtitle_too():
    fig = tradeoff(POINTS, "ndcg", "arp", 10)
    assert text_alternative(fig).startswith(
        "Ranking quality (NDCG@10) against average popularity of recommended items "
        "(ARP@10). Further up is better; a model further right recommends more popular "
        "items; bars: 95% confidence intervals.")
