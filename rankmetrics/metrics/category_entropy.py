r"""Category entropy@K: the Shannon entropy, in bits, of the categories of a user's top K.

.. math:: \mathrm{CatEnt@K} = -\sum_c p_c \log_2 p_c, \quad p_c = m_c / \sum_{c'} m_{c'}

with m_c the number of items of the user's top K in category c. Computed per user from each
user's top K, at every cutoff at once. An item with several categories counts once for each,
an item without categories counts nothing; the value is 0 for a list without categories or
with a single one.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._beyond_kernels import list_values
from rankmetrics.metrics._kernels import UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's category entropy at every cutoff."""
    return list_values("category_entropy", block)


METRIC = Metric(
    name="category_entropy",
    label="Category entropy",
    plain_name="Spread of categories in a list",
    description="Shannon entropy in bits (log base 2) of the categories of each user's top K: "
    "each category's share is its item memberships over all memberships (an item with several "
    "categories counts once for each); 0 for a single category.",
    formula=r"\mathrm{CatEnt@K} = -\sum_c p_c \log_2 p_c, \quad p_c = \frac{|\{i \in L_u^K : "
    r"c \in \mathrm{cat}(i)\}|}{\sum_{i \in L_u^K} |\mathrm{cat}(i)|}",
    position=205,
    per_user=per_user,
    main=False,
    highest=None,
    needs="attributes",
    higher="recommends lists spread over more categories",
    decimals=3,
)
