r"""Precision@K: the share of the top K slots that hold a relevant item.

.. math:: \mathrm{P@K} = \frac{|\{\text{relevant in top } K\}|}{K}

Divided by K even when the list is shorter (trec_eval's ``P``; Manning, Raghavan and
Schütze, *Introduction to Information Retrieval*, 2008, section 8.4).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Hits in the top k over k, for every k."""
    return block.precision


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Hits in the top K over K."""
    return items.hits_of_users / np.float64(items.max_cutoff)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each hit at rank r adds 1 / K at every cutoff K > r."""
    return items.accumulated(items.hit_rank) / items.cutoffs


METRIC = Metric(
    name="precision",
    label="Precision",
    plain_name="Share of the list that is relevant",
    description="Share of the top K slots that hold a relevant item (divided by K even when "
    "the list is shorter).",
    formula=r"\mathrm{P@K} = \frac{|\{\text{relevant in top } K\}|}{K}",
    position=10,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    divided_by_cutoff=True,
)
