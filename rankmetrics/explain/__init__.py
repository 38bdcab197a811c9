"""Why one user's metric is what it is: the ranked list and the arithmetic of NDCG (with the
ideal list), of Precision, Recall, HitRate, RR and AP, and of ERR, RBP, bpref and Judged rank by
rank; of serendipity and miscalibration against the user's history; and two models' lists for
one user side by side.

The modules, by what they explain: :mod:`~rankmetrics.explain.ndcg` (:func:`explain_ndcg`,
NDCG under each convention, a slipped discount), :mod:`~rankmetrics.explain.binary`
(:func:`explain_metric` and :func:`metric_variants` for the binary metrics),
:mod:`~rankmetrics.explain.stepwise` (:func:`explain_steps` and :func:`step_variants`),
:mod:`~rankmetrics.explain.history` (:func:`explain_history`) and
:mod:`~rankmetrics.explain.two_models` (:func:`side_by_side`); all read the user's rows as
:mod:`~rankmetrics.explain.rows` does, in the order the metrics rank them, so every value
equals the one :func:`rankmetrics.evaluate` gives that user.
"""

from __future__ import annotations

from rankmetrics.explain.binary import (
    BINARY_METRICS,
    HIT_COLUMNS,
    SHORT_NAMES,
    MetricArithmetic,
    explain_metric,
    metric_variants,
)
from rankmetrics.explain.history import HISTORY_METRICS, HistoryArithmetic, explain_history
from rankmetrics.explain.ndcg import (
    IDEAL_COLUMNS,
    RANKED_COLUMNS,
    DiscountSlip,
    NdcgBreakdown,
    compare_conventions,
    explain_ndcg,
    slipped_discount,
)
from rankmetrics.explain.stepwise import (
    STEP_COLUMNS,
    STEP_METRICS,
    StepArithmetic,
    explain_steps,
    step_variants,
)
from rankmetrics.explain.two_models import SideBySide, side_by_side

__all__ = [
    "BINARY_METRICS",
    "HISTORY_METRICS",
    "HIT_COLUMNS",
    "IDEAL_COLUMNS",
    "RANKED_COLUMNS",
    "SHORT_NAMES",
    "STEP_COLUMNS",
    "STEP_METRICS",
    "DiscountSlip",
    "HistoryArithmetic",
    "MetricArithmetic",
    "NdcgBreakdown",
    "SideBySide",
    "StepArithmetic",
    "compare_conventions",
    "explain_history",
    "explain_metric",
    "explain_ndcg",
    "explain_steps",
    "metric_variants",
    "side_by_side",
    "slipped_discount",
    "step_variants",
]
