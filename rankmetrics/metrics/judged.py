r"""Judged@K: the share of the top K slots that hold an item with a judgment (a row of the
user's ground truth, relevant or not).

.. math:: \mathrm{Judged@K} = \frac{|\{\text{judged in top } K\}|}{K}

Every metric counts an unjudged item as not relevant, so a low Judged@K says the other
values may be too low. Divided by K even when the list is shorter, as Precision is; where
every list holds at least K items it is ir_measures' ``Judged@K``, which divides a shorter
list by its length.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Judged items in the top k over k, for every k."""
    return np.cumsum(block.judged_matrix, axis=1, dtype=np.int64) / block.cutoffs


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Judged items in the top K over K."""
    return (np.bincount(items.user, minlength=items.n_users)
            / np.float64(items.max_cutoff))


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each judged item at rank r adds 1 / K at every cutoff K > r."""
    return items.accumulated(items.rank) / items.cutoffs


METRIC = Metric(
    name="judged",
    label="Judged",
    plain_name="Share of the list that was judged",
    description="Share of the top K slots that hold an item of the user's ground truth, "
    "relevant or not (divided by K even when the list is shorter). Unjudged items count as "
    "not relevant in every other metric.",
    formula=r"\mathrm{Judged@K} = \frac{|\{\text{judged in top } K\}|}{K}",
    position=85,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    divided_by_cutoff=True,
    main=False,
    highest=1.0,
    higher="has more of its top K judged",
)
