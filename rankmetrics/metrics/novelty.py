r"""Novelty@K: the mean self-information of the items in a user's top K.

.. math:: \mathrm{Nov@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} -\log_2 p(i)

Computed per user from each user's top K, at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values, summed_list_values
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's Novelty at every cutoff."""
    return list_values("novelty", block)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over the counted users at every cutoff, without a users x K matrix."""
    return summed_list_values("novelty", items)


METRIC = Metric(
    name="novelty",
    label="Novelty",
    plain_name="Rarity of recommended items",
    description="Mean self-information of the items in each user's top K: rarely seen items are "
    "novel.",
    formula=r"\mathrm{Nov@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} -\log_2 p(i)",
    position=180,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=None,
    needs="interactions",
    higher="recommends more novel (less often seen) items",
    decimals=3,
)
