"""The metrics rankmetrics computes: one module per metric, registered in one table.

Each module of this package (``precision.py``, ``ndcg.py``, ...) declares one
:class:`Metric` named ``METRIC``, holding its label, help text, formula and kernels. The
registry :data:`METRICS` is built from those modules, and the CLI, the library and the
dashboard read it alone, so adding a metric means adding its module (and its tests).

>>> list(METRICS)
['precision', 'recall', 'hit_rate', 'mrr', 'map', 'ndcg', 'dcg', 'r_precision']
>>> MAIN_METRICS
('precision', 'recall', 'hit_rate', 'mrr', 'map', 'ndcg')
"""

from __future__ import annotations

import importlib
import pkgutil

from rankmetrics.checks import check_choice
from rankmetrics.metrics._kernels import (
    JudgedItems,
    Judgments,
    UserBlock,
    discounts,
    gain_of,
    judge,
    safe_divide,
)
from rankmetrics.metrics._metric import Metric


def _registered() -> dict[str, Metric]:
    """The ``METRIC`` of every public module of this package, in the order they declare."""
    found = [
        importlib.import_module(f"{__name__}.{module.name}").METRIC
        for module in pkgutil.iter_modules(__path__)
        if not module.name.startswith("_")
    ]
    return {metric.name: metric for metric in sorted(found, key=lambda m: m.position)}


METRICS: dict[str, Metric] = _registered()
CUTOFF_METRICS = tuple(name for name, metric in METRICS.items() if metric.has_cutoff)
MAIN_METRICS = tuple(name for name, metric in METRICS.items() if metric.main)


def check_metrics(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Validate metric names, keeping their order; an unknown name is a ValueError."""
    for name in names:
        check_choice("metric", name, tuple(METRICS))
    if not names:
        raise ValueError(f"Choose at least one metric from {', '.join(METRICS)}.")
    return tuple(dict.fromkeys(names))


__all__ = [
    "CUTOFF_METRICS",
    "MAIN_METRICS",
    "METRICS",
    "JudgedItems",
    "Judgments",
    "Metric",
    "UserBlock",
    "check_metrics",
    "discounts",
    "gain_of",
    "judge",
    "safe_divide",
]
