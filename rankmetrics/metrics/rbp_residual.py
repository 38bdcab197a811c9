r"""RBP's residual at K: the most that RBP@K's unknowns could add (Moffat and Zobel, 2008).

.. math:: \mathrm{RBP\ residual@K} = 1 - (1 - p) \sum_{i \le K,\ i \text{ judged}} p^{i-1}

The weight of every rank of the top K without a judged item (an unjudged item, a grade below 0,
or no item past the list's end) and of every rank after K, p^K: were all of them relevant, RBP
would be RBP@K plus this. So RBP lies between RBP@K and RBP@K + residual, an interval that
narrows as more of the list is judged.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric
from rankmetrics.metrics.rbp import rank_weights


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """1 minus the weights of the judged ranks, added up rank by rank."""
    weights = rank_weights(conventions.rbp_persistence, block.width)
    return 1.0 - np.cumsum(block.judged_matrix * weights, axis=1)


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """1 minus the weights of each user's judged ranks within K."""
    weights = rank_weights(conventions.rbp_persistence, items.max_cutoff)
    judged = items.judged
    return 1.0 - items.of_users(items.user[judged], weights[items.rank[judged]])


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each counted user adds 1; each judged item at rank r takes (1 - p) p^r away at every
    cutoff K > r."""
    weights = rank_weights(conventions.rbp_persistence, items.max_cutoff)
    judged = items.judged
    return float(np.count_nonzero(items.counted)) - items.accumulated(
        items.rank[judged], weights[items.rank[judged]])


METRIC = Metric(
    name="rbp_residual",
    label="RBP residual",
    plain_name="What unjudged items could add to RBP",
    description="The weight of the ranks without a judged item, in the top K and after it: "
    "RBP lies between RBP@K and RBP@K plus this.",
    formula=r"\mathrm{RBP\ residual@K} = 1 - (1 - p) \sum_{i \le K,\ i \text{ judged}} p^{i-1}",
    position=77,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    main=False,
    highest=1.0,
    higher="has more of its list unjudged",
)
