r"""HitRate@K: 1 if at least one relevant item is in the top K, else 0.

.. math:: \mathrm{HR@K} = \mathbb{1}[\,\text{a relevant item in top } K\,]

trec_eval calls it ``success``.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """1 from the first hit's rank on."""
    return (block.hits > 0).astype(np.float64)


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """1 when a relevant item is in the top K."""
    return (items.hits_of_users > 0).astype(np.float64)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each user's first hit at rank r adds 1 at every cutoff K > r."""
    return items.accumulated(items.hit_rank[items.first_hit])


METRIC = Metric(
    name="hit_rate",
    label="HitRate",
    plain_name="Share of users with a hit",
    description="1 if at least one relevant item is in the top K, else 0 (trec_eval's "
    "success).",
    formula=r"\mathrm{HR@K} = \mathbb{1}[\,\text{a relevant item in top } K\,]",
    position=30,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
)
