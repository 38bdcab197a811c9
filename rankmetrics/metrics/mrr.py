r"""Reciprocal rank@K (MRR is its mean): 1 / the rank of the first relevant item in the top K.

.. math:: \mathrm{RR@K} = \frac{1}{\mathrm{rank}_{\text{first hit}}}

0 when no relevant item is in the top K (trec_eval's ``recip_rank`` at K = the list length;
Voorhees, *The TREC-8 Question Answering Track Report*, 1999).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """1 / (first hit's rank) from that rank on, 0 before it."""
    relevant = block.relevant_matrix
    first = np.argmax(relevant, axis=1)
    found = relevant[np.arange(block.n_users), first]
    reciprocal = np.where(found, 1.0 / (first + 1.0), 0.0)
    return np.where(block.cutoffs[None, :] > first[:, None], reciprocal[:, None], 0.0)


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """1 / (first hit's rank) when it is in the top K, else 0."""
    values = np.zeros(items.n_users)
    values[items.hit_user[items.first_hit]] = 1.0 / (items.hit_rank[items.first_hit] + 1.0)
    return values


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each user's first hit at rank r adds 1 / (r + 1) at every cutoff K > r."""
    first_rank = items.hit_rank[items.first_hit]
    return items.accumulated(first_rank, 1.0 / (first_rank + 1.0))


METRIC = Metric(
    name="mrr",
    label="MRR",
    plain_name="How early the first hit comes",
    description="1 / rank of the first relevant item within the top K, 0 if none.",
    formula=r"\mathrm{RR@K} = \frac{1}{\mathrm{rank}_{\text{first hit}}}",
    position=40,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
)
