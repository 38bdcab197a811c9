r"""RBP@K: Rank-Biased Precision (Moffat and Zobel, *Rank-biased precision for measurement of
retrieval effectiveness*, TOIS 2008).

.. math:: \mathrm{RBP@K} = (1 - p) \sum_{i=1}^{K} \mathrm{rel}(i)\, p^{i-1}

A reader looks at the first item and goes on from each rank to the next with probability p
(the ``rbp_persistence`` convention, 0.8 by default); RBP is the expected share of the items
looked at that are relevant. rel(i) is 1 for a relevant item (``rbp_gain="binary"``, as
ranx's ``rbp`` on 0/1 labels and ir_measures' ``RBP(rel=threshold)``), or, with
``rbp_gain="graded"``, the item's grade over the highest grade g_max (the ``max_grade``
convention). Unjudged items count as not relevant: what they could add is
:mod:`RBP's residual <rankmetrics.metrics.rbp_residual>`.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, grades_within
from rankmetrics.metrics._metric import Metric


def rank_weights(persistence: float, width: int) -> np.ndarray:
    """(1 - p) p^(i-1) for ranks i = 1..width.

    >>> rank_weights(0.5, 3).tolist()
    [0.5, 0.25, 0.125]
    """
    return (1.0 - persistence) * persistence ** np.arange(width, dtype=np.float64)


def item_gains(relevant: np.ndarray, grades: tuple[np.ndarray, float],
               conventions: Conventions) -> np.ndarray:
    """What each entry adds: 1 if relevant (binary), or its grade / g_max (graded; grades
    below 0 as 0)."""
    if conventions.rbp_gain == "binary":
        return relevant.astype(np.float64)
    values, highest = grades
    values = grades_within(values, highest, "Graded RBP")
    return values / highest if highest > 0 else np.zeros_like(values)


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The weights of the ranks, times what the item there adds, added up rank by rank."""
    weights = rank_weights(conventions.rbp_persistence, block.width)
    if conventions.rbp_gain == "binary":
        return np.cumsum(block.relevant_matrix * weights, axis=1)
    gains = block.at_ranks(item_gains(block.relevant, block.grades, conventions))
    return np.cumsum(gains * weights, axis=1)


def _terms(items: JudgedItems, conventions: Conventions) -> tuple[np.ndarray, np.ndarray,
                                                                    np.ndarray]:
    """(user, rank, weight x gain) of the entries that add to RBP."""
    weights = rank_weights(conventions.rbp_persistence, items.max_cutoff)
    if conventions.rbp_gain == "binary":
        return items.hit_user, items.hit_rank, weights[items.hit_rank]
    gains = item_gains(items.relevant, items.grades, conventions)
    return items.user, items.rank, weights[items.rank] * gains


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """The weighted gains of each user's items within K."""
    user, _, terms = _terms(items, conventions)
    return items.of_users(user, terms)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each item at rank r adds (1 - p) p^r x its gain at every cutoff K > r."""
    _, rank, terms = _terms(items, conventions)
    return items.accumulated(rank, terms)


METRIC = Metric(
    name="rbp",
    label="RBP",
    plain_name="Relevant share of what a reader looks at",
    description="Expected share of relevant items among those a reader looks at, who goes on "
    "from each rank to the next with probability p (the rbp_persistence convention, 0.8 by "
    "default); with rbp_gain graded, each item counts its grade / g_max.",
    formula=r"\mathrm{RBP@K} = (1 - p) \sum_{i=1}^{K} \mathrm{rel}(i)\, p^{i-1}",
    position=76,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    main=False,
    highest=1.0,
)
