r"""ACLT@K: the number of long-tail items in a user's top K.

.. math:: \mathrm{ACLT@K} = |L_u^K \cap \Gamma|

Computed per user from each user's top K, at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values, summed_list_values
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's ACLT at every cutoff."""
    return list_values("aclt", block)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over the counted users at every cutoff, without a users x K matrix."""
    return summed_list_values("aclt", items)


METRIC = Metric(
    name="aclt",
    label="ACLT",
    plain_name="Number of long-tail items",
    description="Number of long-tail items in each user's top K.",
    formula=r"\mathrm{ACLT@K} = |L_u^K \cap \Gamma|",
    position=170,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=None,
    needs="interactions",
    higher="recommends more long-tail items",
    decimals=2,
    whole=True,
)
