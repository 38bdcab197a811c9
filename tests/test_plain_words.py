"""Metrics in plain words: every metric has a name a product manager reads without the
notation, its short label stays as columns show it, and every figure says which way is better
(or what a higher value means where neither is)."""

from __future__ import annotations

import pytest

from rankmetrics.metrics import (
    ALL_METRICS,
    BEYOND_METRICS,
    LONG_TAIL_METRICS,
    METRICS,
    direction_text,
    plain_label,
)

LABELS = {
    "precision": "Precision", "recall": "Recall", "hit_rate": "HitRate", "mrr": "MRR",
    "map": "MAP", "ndcg": "NDCG", "dcg": "DCG", "r_precision": "R-Precision",
    "coverage": "Coverage", "gini": "Gini", "entropy": "Entropy",
    "personalization": "Personalization", "arp": "ARP", "aplt": "APLT", "aclt": "ACLT",
    "novelty": "Novelty", "ild": "ILD", "categories": "Categories",
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
    assert plain_label("gini") == "Inequality of exposure (Gini)"
    assert plain_label("ndcg_long_tail", "NDCG (long tail)@10") == (
        "Ranking quality on long-tail items: NDCG (long tail)@10")
    with pytest.raises(ValueError, match="'metric' argument must be one of"):
        plain_label("ndgc")


@pytest.mark.parametrize("name", [*METRICS, *LONG_TAIL_METRICS])
def test_higher_is_better_for_accuracy(name):
    assert direction_text(name) == "Higher is better"


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
