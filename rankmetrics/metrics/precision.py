r"""Precision@K: the share of the top K slots that hold a relevant item.

.. math:: \mathrm{P@K} = \frac{|\{\text{relevant in top } K\}|}{K}

Divided by K even when the list is shorter (trec_eval's ``P``; Manning, Raghavan and
Schütze, *Introduction to Information Retrieval*, 2008, section 8.4), or, with the
``precision_denominator="list_length"`` convention, by min(K, the list's length) as LensKit and
Evidently divide (0 for an empty list).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, safe_divide
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Hits in the top k over k (or min(k, the list's length)), for every k."""
    if conventions.precision_denominator == "list_length":
        shown = np.minimum(block.cutoffs[None, :], block.lengths[:, None])
        return safe_divide(block.hits, shown)
    return block.precision


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Hits in the top K over K (or min(K, the list's length))."""
    if conventions.precision_denominator == "list_length":
        return safe_divide(items.hits_of_users, np.minimum(items.lengths, items.max_cutoff))
    return items.hits_of_users / np.float64(items.max_cutoff)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """Each hit at rank r adds 1 / K at every cutoff K > r (over the list's length: from
    the per-user values)."""
    if conventions.precision_denominator == "list_length":
        return None
    return items.accumulated(items.hit_rank) / items.cutoffs


METRIC = Metric(
    name="precision",
    label="Precision",
    plain_name="Share of the list that is relevant",
    description="Share of the top K slots that hold a relevant item (divided by K even when "
    "the list is shorter, unless the conventions divide by the list's length).",
    formula=r"\mathrm{P@K} = \frac{|\{\text{relevant in top } K\}|}{K}",
    position=10,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    divided_by_cutoff=True,
)
