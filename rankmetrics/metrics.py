"""The metrics rankmetrics computes, declared once for the CLI, the dashboard and the docs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    """A metric's name, its label in charts, what it means, and whether it has a cutoff."""

    name: str
    label: str
    description: str
    formula: str
    has_cutoff: bool = True


METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        Metric(
            "precision", "Precision",
            "Share of the top K slots that hold a relevant item (divided by K even when "
            "the list is shorter).",
            r"\mathrm{P@K} = \frac{|\{\text{relevant in top } K\}|}{K}",
        ),
        Metric(
            "recall", "Recall",
            "Share of the user's relevant items that appear in the top K.",
            r"\mathrm{R@K} = \frac{|\{\text{relevant in top } K\}|}{|R|}",
        ),
        Metric(
            "hit_rate", "HitRate",
            "1 if at least one relevant item is in the top K, else 0 (trec_eval's success).",
            r"\mathrm{HR@K} = \mathbb{1}[\,\text{a relevant item in top } K\,]",
        ),
        Metric(
            "mrr", "MRR",
            "1 / rank of the first relevant item within the top K, 0 if none.",
            r"\mathrm{RR@K} = \frac{1}{\mathrm{rank}_{\text{first hit}}}",
        ),
        Metric(
            "map", "MAP",
            "Average precision: the precision at each hit rank within the top K, summed "
            "and divided by |R| (or the chosen denominator); MAP is its mean over users.",
            r"\mathrm{AP@K} = \frac{1}{|R|}\sum_{k \le K} \mathrm{P@k}\,\mathrm{rel}(k)",
        ),
        Metric(
            "ndcg", "NDCG",
            "DCG of the list divided by the DCG of the ideal list: 1 for a perfect order.",
            r"\mathrm{NDCG@K} = \frac{\mathrm{DCG@K}}{\mathrm{IDCG@K}}",
        ),
        Metric(
            "dcg", "DCG",
            "Sum of each item's gain discounted by 1/log2(rank + 1).",
            r"\mathrm{DCG@K} = \sum_{i=1}^{K} \frac{\mathrm{gain}(g_i)}{\log_2(i+1)}",
        ),
        Metric(
            "r_precision", "R-Precision",
            "Precision at rank |R|: the share of the first |R| items that are relevant "
            "(no cutoff).",
            r"\mathrm{RPrec} = \frac{|\{\text{relevant in top } |R|\}|}{|R|}",
            has_cutoff=False,
        ),
    )
}

CUTOFF_METRICS = tuple(name for name, metric in METRICS.items() if metric.has_cutoff)
MAIN_METRICS = ("precision", "recall", "hit_rate", "mrr", "map", "ndcg")


def check_metrics(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Validate metric names, keeping their order; an unknown name is a ValueError."""
    unknown = [name for name in names if name not in METRICS]
    if unknown:
        raise ValueError(
            f"Unknown metric {unknown[0]!r}: choose from {', '.join(METRICS)}."
        )
    if not names:
        raise ValueError(f"Choose at least one metric from {', '.join(METRICS)}.")
    return tuple(dict.fromkeys(names))
