r"""Judged@K: the share of the items in the top K that have a judgment (a row of the user's
ground truth with a grade of 0 or more, relevant or not).

.. math:: \mathrm{Judged@K} = \frac{|\{\text{judged in top } K\}|}{\min(K, |\text{list}|)}

Every metric counts an unjudged item as not relevant, so a low Judged@K says the other
values may be too low. A list shorter than K is divided by its length, as ir_measures'
``Judged@k`` does (0 for an empty list); a grade below 0 (trec_eval's -1) is no judgment.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, safe_divide
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Judged items in the top k over the items there, for every k."""
    shown = np.minimum(block.cutoffs[None, :], block.lengths[:, None])
    return safe_divide(np.cumsum(block.judged_matrix, axis=1, dtype=np.int64), shown)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each judged item at rank r adds 1 / min(K, the list's length) at every cutoff K > r."""
    judged = items.judged
    user = items.user[judged]
    return items.accumulated_per_min_k_relevant(items.rank[judged], np.ones(len(user)),
                                                items.lengths[user].astype(np.int64))


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Judged items in the top K over the items there."""
    judged = np.bincount(items.user[items.judged], minlength=items.n_users)
    return safe_divide(judged, np.minimum(items.lengths, items.max_cutoff))


METRIC = Metric(
    name="judged",
    label="Judged",
    plain_name="Share of the list that was judged",
    description="Share of the items in the top K that the user's ground truth judges, "
    "relevant or not (a shorter list: of its items). Unjudged items count as not relevant in "
    "every other metric.",
    formula=r"\mathrm{Judged@K} = \frac{|\{\text{judged in top } K\}|}"
    r"{\min(K, |\text{list}|)}",
    position=85,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    main=False,
    highest=1.0,
    higher="has more of its top K judged",
)
