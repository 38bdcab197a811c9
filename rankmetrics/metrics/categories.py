r"""Categories@K: the number of distinct categories among a user's top K.

.. math:: \mathrm{Cat@K} = |\bigcup_{i \in L_u^K} \mathrm{cat}(i)|

Computed per user from each user's top K, at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values, summed_list_values
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's Categories at every cutoff."""
    return list_values("categories", block)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over the counted users at every cutoff, without a users x K matrix."""
    return summed_list_values("categories", items)


METRIC = Metric(
    name="categories",
    label="Categories",
    plain_name="Number of categories in a list",
    description="Number of distinct categories among the items of each user's top K.",
    formula=r"\mathrm{Cat@K} = |\bigcup_{i \in L_u^K} \mathrm{cat}(i)|",
    position=200,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=None,
    needs="attributes",
    higher="recommends items of more categories",
    decimals=2,
    whole=True,
)
