r"""R-Precision: precision at rank |R|, one value per user (no cutoff).

.. math:: \mathrm{RPrec} = \frac{|\{\text{relevant in top } |R|\}|}{|R|}

Every ranked item counts, however long the list (trec_eval's ``Rprec``); 0 for a user without
relevant items.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The hits within the first |R| ranks over |R|: shape (n_users, 1)."""
    hit = _hits_within_r(block.user, block.rank, block.relevant, block.n_relevant)
    hits = np.bincount(block.user[hit], minlength=block.n_users)
    values = np.zeros(block.n_users, dtype=np.float64)
    np.divide(hits, block.n_relevant, out=values, where=block.n_relevant > 0)
    return values[:, None]


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each hit within the first |R| ranks adds 1 / |R|: shape (1,)."""
    user, rank, relevant = items.uncut
    hit = _hits_within_r(user, rank, relevant, items.n_relevant)
    return np.array([np.sum(1.0 / items.n_relevant[user[hit]])])


def _hits_within_r(
    user: np.ndarray, rank: np.ndarray, relevant: np.ndarray, n_relevant: np.ndarray
) -> np.ndarray:
    """Whether each judged item is relevant and ranked within its user's first |R|."""
    return relevant & (rank < n_relevant[user])


METRIC = Metric(
    name="r_precision",
    label="R-Precision",
    plain_name="Precision at the number of relevant items",
    description="Precision at rank |R|: the share of the first |R| items that are relevant "
    "(no cutoff).",
    formula=r"\mathrm{RPrec} = \frac{|\{\text{relevant in top } |R|\}|}{|R|}",
    position=80,
    per_user=per_user,
    summed=summed,
    has_cutoff=False,
    main=False,
)
