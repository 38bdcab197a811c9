"""Beyond accuracy: catalogue coverage, popularity bias, novelty, diversity and
personalization, at every cutoff, with every choice named.

The metrics are declared in :data:`BEYOND_METRICS`, a registry next to the accuracy
metrics' (they need inputs those do not: training interactions, item attributes, whole
lists). Per-user ones (ARP, APLT, ACLT, novelty, ILD, categories) are computed by an
:class:`~rankmetrics.evaluation.Evaluation` like any metric, so means, per-user tables,
confidence bands and significance tests take them; system ones (coverage, Gini, entropy,
personalization) and the long-tail accuracy come from :class:`BeyondAccuracy`.

>>> import pandas as pd
>>> from rankmetrics import evaluate
>>> from rankmetrics.io import interactions_from_dataframe
>>> truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "c"], "rating": [1, 1]})
>>> run = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"],
...                     "score": [2, 1, 2, 1]})
>>> seen = interactions_from_dataframe(pd.DataFrame({"user": ["x", "x", "y", "y"],
...     "item": ["a", "b", "a", "c"]}), name="train")
>>> ev = evaluate(truth, {"m": run}, max_cutoff=2, interactions=seen)
>>> ev.beyond.curve("m", "coverage").tolist()  # a: 1 of 3 items at K=1; a, b, c at K=2
[0.3333333333333333, 1.0]
>>> ev.curve("m", "arp").tolist()  # popularity a=2, b=1, c=1
[2.0, 1.5]
"""

from rankmetrics.beyond._analysis import BeyondAccuracy, BeyondInputs, prepare_beyond
from rankmetrics.beyond._declared import (
    BEYOND_METRICS,
    LIST_METRICS,
    LONG_TAIL_METRICS,
    SYSTEM_METRICS,
    BeyondMetric,
    BeyondOptions,
    declared,
    higher_says,
    number_format,
    value_text,
)

__all__ = [
    "BEYOND_METRICS",
    "LIST_METRICS",
    "LONG_TAIL_METRICS",
    "SYSTEM_METRICS",
    "BeyondAccuracy",
    "BeyondInputs",
    "BeyondMetric",
    "BeyondOptions",
    "declared",
    "higher_says",
    "number_format",
    "prepare_beyond",
    "value_text",
]
