r"""ILD@K: intra-list diversity, the mean distance between two items of a user's top K.

.. math:: \mathrm{ILD@K} = \frac{2}{|L|(|L| - 1)} \sum_{i < j \in L_u^K} d(i, j)

Computed per user from each user's top K, at every cutoff at once. The distance is Jaccard's
on category sets (0 to 1) or the cosine distance 1 - cos on numeric features (0 to 2: two
items pointing opposite ways are 2 apart), so ILD runs from 0 to 2; with
``BeyondOptions(distance="hamming")``, the share of binary features two items differ on (0 to 1).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values
from rankmetrics.metrics._kernels import UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's ILD at every cutoff."""
    return list_values("ild", block)


METRIC = Metric(
    name="ild",
    label="ILD",
    plain_name="Diversity within a list",
    description="Intra-list diversity: mean distance between two items of the top K (Jaccard on "
    "category sets, from 0 to 1; cosine distance on numeric features, from 0 to 2; or, as an "
    "option, Hamming distance on binary features, from 0 to 1), over the pairs.",
    formula=r"\mathrm{ILD@K} = \frac{2}{|L|(|L| - 1)} \sum_{i < j \in L_u^K} d(i, j)",
    position=190,
    per_user=per_user,
    main=False,
    highest=2.0,
    needs="attributes",
    higher="recommends more varied lists",
)
