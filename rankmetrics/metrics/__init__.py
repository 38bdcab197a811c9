"""The metrics rankmetrics computes: one module per metric, registered in one table.

Each module of this package (``precision.py``, ``ndcg.py``, ``coverage.py``, ...) declares one
:class:`Metric` named ``METRIC``, holding its label, its plain name, help text, formula, what it
needs and its kernels. The registry :data:`ALL_METRICS` is built from those modules, accuracy
and beyond accuracy alike, and the CLI, the library and the dashboard read it alone, so adding
a metric means adding its module (and its tests). Two views of it name the families:
:data:`METRICS`, the accuracy metrics (a ground truth and runs are all they need, so every
picker that lists them may offer all of them), and :data:`BEYOND_METRICS`, the
beyond-accuracy metrics (they need whole lists, training interactions or item attributes).

>>> list(METRICS)  # doctest: +NORMALIZE_WHITESPACE
['precision', 'recall', 'hit_rate', 'mrr', 'map', 'ndcg', 'dcg', 'err', 'rbp',
 'rbp_residual', 'r_precision', 'bpref', 'judged']
>>> MAIN_METRICS
('precision', 'recall', 'hit_rate', 'mrr', 'map', 'ndcg')
>>> LIST_METRICS  # doctest: +NORMALIZE_WHITESPACE
('arp', 'aplt', 'aclt', 'novelty', 'serendipity', 'ild', 'categories', 'category_entropy',
 'miscalibration')
"""

from __future__ import annotations

import importlib
import math
import pkgutil

from rankmetrics.checks import check_choice
from rankmetrics.metrics._beyond_kernels import (
    COUNT_CELLS,
    UNSEEN_METRICS,
    counts_at,
    gini,
    item_value_table,
    normalized_entropy,
    rank_sums,
    system_curves,
    system_values,
    unpacked_bits,
)
from rankmetrics.metrics._history_kernels import popularity_ranks
from rankmetrics.metrics._kernels import (
    JudgedItems,
    Judgments,
    UserBlock,
    discounts,
    gain_of,
    judge,
    safe_divide,
)
from rankmetrics.metrics._metric import NEEDS, Metric


def _registered() -> dict[str, Metric]:
    """The ``METRIC`` of every public module of this package, in the order they declare."""
    found = [
        importlib.import_module(f"{__name__}.{module.name}").METRIC
        for module in pkgutil.iter_modules(__path__)
        if not module.name.startswith("_")
    ]
    return {metric.name: metric for metric in sorted(found, key=lambda m: m.position)}


#: Every metric, accuracy and beyond accuracy, in the order they are listed.
ALL_METRICS: dict[str, Metric] = _registered()
#: The accuracy metrics: computed from a ground truth and runs alone.
METRICS: dict[str, Metric] = {name: metric for name, metric in ALL_METRICS.items()
                              if not metric.beyond_accuracy}
#: The beyond-accuracy metrics: coverage, popularity bias, novelty, diversity and
#: personalization, and the accuracy on long-tail items.
BEYOND_METRICS: dict[str, Metric] = {name: metric for name, metric in ALL_METRICS.items()
                                     if metric.beyond_accuracy}
CUTOFF_METRICS = tuple(name for name, metric in METRICS.items() if metric.has_cutoff)
MAIN_METRICS = tuple(name for name, metric in METRICS.items() if metric.main)
#: Beyond-accuracy metrics an evaluation computes per user from the lists, like any other.
LIST_METRICS = tuple(name for name, metric in BEYOND_METRICS.items()
                     if metric.per_user is not None)
#: Beyond-accuracy metrics with one value for the system.
SYSTEM_METRICS = tuple(name for name, metric in BEYOND_METRICS.items() if not metric.averaged)
#: The long-tail accuracy metrics, and the accuracy metric each is on the long tail.
LONG_TAIL_METRICS = {name: metric.long_tail_of for name, metric in BEYOND_METRICS.items()
                     if metric.long_tail_of is not None}


def check_metrics(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Validate accuracy metric names, keeping their order; an unknown name is a ValueError."""
    for name in names:
        check_choice("metric", name, tuple(METRICS))
    if not names:
        raise ValueError(f"Choose at least one metric from {', '.join(METRICS)}.")
    return tuple(dict.fromkeys(names))


def declared(name: str) -> Metric:
    """The declaration of any metric, accuracy or beyond accuracy (a ValueError names the
    metrics for an unknown name).

    >>> declared("ndcg").label, declared("aplt").label
    ('NDCG', 'APLT')
    """
    return ALL_METRICS[check_choice("metric", name, tuple(ALL_METRICS))]


def higher_says(name: str) -> str | None:
    """What a higher value of a metric says of a model's recommendations, as a predicate;
    None where higher is better (the accuracy metrics).

    >>> higher_says("arp"), higher_says("ndcg")
    ('recommends more popular items', None)
    """
    return declared(name).higher


def plain_label(name: str, short: str | None = None) -> str:
    """A metric as pickers and chart titles name it: its plain name, then its short name
    (``short``, such as ``"NDCG@10"``, instead of the label when given), in parentheses or,
    for a short name with parentheses of its own, after a colon.

    >>> plain_label("aplt"), plain_label("ndcg", "NDCG@10")
    ('Share of long-tail items (APLT)', 'Ranking quality (NDCG@10)')
    >>> plain_label("recall_long_tail")
    'Share of the relevant long-tail items found: Recall (long tail)'
    """
    metric = declared(name)
    short = metric.label if short is None else short
    return f"{metric.plain_name}: {short}" if "(" in short else f"{metric.plain_name} ({short})"


def direction_text(name: str) -> str:
    """Which way is better, or what a higher value means where neither is: a chart's
    subtitle, a column's help.

    >>> direction_text("ndcg"), direction_text("arp")
    ('Higher is better', 'Higher: recommends more popular items')
    """
    higher = higher_says(name)
    return "Higher is better" if higher is None else f"Higher: {higher}"


def value_text(name: str, value: float) -> str:
    """A metric's value as shown in a table: four decimals, fewer where the metric declares
    fewer, none for a whole count; "–" for no value.

    >>> value_text("ndcg", 0.5), value_text("categories", 12.0), value_text("arp", 1234.567)
    ('0.5000', '12', '1,234.57')
    """
    if value is None or math.isnan(value):
        return "–"
    metric = declared(name)
    if metric.whole and float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.{metric.decimals}f}"


def number_format(name: str, *, signed: bool = False) -> str:
    """The printf-style format of one user's value of a metric (a count: a whole number),
    for a table column; ``signed`` for a difference.

    >>> number_format("ndcg"), number_format("aclt", signed=True), number_format("arp")
    ('%.4f', '%+d', '%.2f')
    """
    metric = declared(name)
    sign = "+" if signed else ""
    return f"%{sign}d" if metric.whole else f"%{sign}.{metric.decimals}f"


__all__ = [
    "ALL_METRICS",
    "BEYOND_METRICS",
    "COUNT_CELLS",
    "CUTOFF_METRICS",
    "LIST_METRICS",
    "UNSEEN_METRICS",
    "LONG_TAIL_METRICS",
    "MAIN_METRICS",
    "METRICS",
    "NEEDS",
    "SYSTEM_METRICS",
    "JudgedItems",
    "Judgments",
    "Metric",
    "UserBlock",
    "check_metrics",
    "counts_at",
    "declared",
    "direction_text",
    "discounts",
    "gain_of",
    "gini",
    "higher_says",
    "item_value_table",
    "judge",
    "normalized_entropy",
    "number_format",
    "plain_label",
    "popularity_ranks",
    "rank_sums",
    "safe_divide",
    "system_curves",
    "system_values",
    "unpacked_bits",
    "value_text",
]
