r"""Recall@K: the share of the user's relevant items that appear in the top K.

.. math:: \mathrm{R@K} = \frac{|\{\text{relevant in top } K\}|}{|R|}

0 for a user without relevant items (trec_eval's ``recall``). With the
``recall_denominator="min_k_relevant"`` convention it divides by min(K, |R|), as LensKit does.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, safe_divide
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Hits in the top k over |R| (or min(k, |R|)), for every k."""
    if conventions.recall_denominator == "min_k_relevant":
        return safe_divide(block.hits, np.minimum(block.cutoffs[None, :],
                                                  block.n_relevant_column))
    return safe_divide(block.hits, block.n_relevant_column)


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Hits in the top K over |R| (or min(K, |R|))."""
    if conventions.recall_denominator == "min_k_relevant":
        return safe_divide(items.hits_of_users, np.minimum(items.n_relevant, items.max_cutoff))
    return safe_divide(items.hits_of_users, items.n_relevant)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each hit at rank r adds 1 / |R| (or 1 / min(K, |R|)) at every cutoff K > r."""
    if conventions.recall_denominator == "min_k_relevant":
        return items.accumulated_per_min_k_relevant(
            items.hit_rank, np.ones(len(items.hit_rank)), items.hit_n_relevant)
    return items.accumulated_per_relevant(items.hit_rank, None, items.hit_n_relevant)


METRIC = Metric(
    name="recall",
    label="Recall",
    plain_name="Share of the relevant items found",
    description="Share of the user's relevant items that appear in the top K.",
    formula=r"\mathrm{R@K} = \frac{|\{\text{relevant in top } K\}|}{|R|}",
    position=20,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
)
