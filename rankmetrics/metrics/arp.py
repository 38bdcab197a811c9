r"""ARP@K: the average popularity (training interactions) of the items in a user's top K.

.. math:: \mathrm{ARP@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} \varphi(i)

Computed per user from each user's top K, at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values, summed_list_values
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's ARP at every cutoff."""
    return list_values("arp", block)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over the counted users at every cutoff, without a users x K matrix."""
    return summed_list_values("arp", items)


METRIC = Metric(
    name="arp",
    label="ARP",
    plain_name="Average popularity of recommended items",
    description="Average popularity of the items in each user's top K (training interactions).",
    formula=r"\mathrm{ARP@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} \varphi(i)",
    position=150,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=None,
    needs="interactions",
    higher="recommends more popular items",
    decimals=2,
)
