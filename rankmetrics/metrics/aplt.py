r"""APLT@K: the share of a user's top K that is in the long tail.

.. math:: \mathrm{APLT@K} = \frac{|L_u^K \cap \Gamma|}{|L_u^K|}

Computed per user from each user's top K, at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values, summed_list_values
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's APLT at every cutoff."""
    return list_values("aplt", block)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over the counted users at every cutoff, without a users x K matrix."""
    return summed_list_values("aplt", items)


METRIC = Metric(
    name="aplt",
    label="APLT",
    plain_name="Share of long-tail items",
    description="Share of the items in each user's top K that are in the long tail.",
    formula=r"\mathrm{APLT@K} = \frac{|L_u^K \cap \Gamma|}{|L_u^K|}",
    position=160,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=1.0,
    needs="interactions",
    higher="recommends a larger share of long-tail items",
)
