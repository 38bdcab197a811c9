r"""R-Precision: precision at rank |R|, one value per user (no cutoff).

.. math:: \mathrm{RPrec} = \frac{|\{\text{relevant in top } |R|\}|}{|R|}

Every ranked item counts, however long the list (trec_eval's ``Rprec``); 0 for a user without
relevant items.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.kernels import UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The hits within the first |R| ranks over |R|: shape (n_users, 1)."""
    hit = block.relevant & (block.rank < block.n_relevant[block.user])
    hits = np.bincount(block.user[hit], minlength=block.n_users)
    values = np.zeros(block.n_users, dtype=np.float64)
    np.divide(hits, block.n_relevant, out=values, where=block.n_relevant > 0)
    return values[:, None]


METRIC = Metric(
    name="r_precision",
    label="R-Precision",
    description="Precision at rank |R|: the share of the first |R| items that are relevant "
    "(no cutoff).",
    formula=r"\mathrm{RPrec} = \frac{|\{\text{relevant in top } |R|\}|}{|R|}",
    position=80,
    per_user=per_user,
    has_cutoff=False,
    main=False,
)
