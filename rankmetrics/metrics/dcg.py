r"""DCG@K: each item's gain discounted by its rank.

.. math:: \mathrm{DCG@K} = \sum_{i=1}^{K} \frac{\mathrm{gain}(g_i)}{\log_2(i+1)}

The gain of a grade is ``2**g - 1`` or ``g`` by the ``gain`` convention (Järvelin and
Kekäläinen, *Cumulated gain-based evaluation of IR techniques*, TOIS 2002; Burges et al.,
*Learning to rank using gradient descent*, ICML 2005, for the exponential gain). With the
``discount="clipped"`` convention the discount is 1/log2(max(i, 2)), the first two ranks alike
(Järvelin and Kekäläinen's original; LensKit's default).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, discounts
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The running sum of discounted gains."""
    return block.dcg_of(conventions.discount)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each item at rank r adds its discounted gain at every cutoff K > r."""
    disc = discounts(items.max_cutoff, conventions.discount)
    return items.accumulated(items.rank, items.gain * disc[items.rank])


METRIC = Metric(
    name="dcg",
    label="DCG",
    plain_name="Ranking quality, not normalized",
    description="Sum of each item's gain discounted by 1/log2(rank + 1).",
    formula=r"\mathrm{DCG@K} = \sum_{i=1}^{K} \frac{\mathrm{gain}(g_i)}{\log_2(i+1)}",
    position=70,
    per_user=per_user,
    summed=summed,
    main=False,
)
