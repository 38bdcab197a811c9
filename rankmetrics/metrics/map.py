r"""Average precision@K (MAP is its mean over users).

.. math:: \mathrm{AP@K} = \frac{1}{d}\sum_{k \le K} \mathrm{P@k}\,\mathrm{rel}(k)

The precision at each hit rank within the top K, summed and divided by ``d``: |R| (trec_eval's
``map_cut``), min(K, |R|), the hits in the top K or min(|R|, the items in the top K) (LensKit),
by the ``ap_denominator`` convention.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, safe_divide
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The running sum of the precision at hit ranks over the chosen denominator."""
    precision_sums = np.cumsum(np.where(block.relevant_matrix, block.precision, 0.0), axis=1)
    if conventions.ap_denominator == "relevant":
        denominator = block.n_relevant_column
    elif conventions.ap_denominator == "min_k_relevant":
        denominator = np.minimum(block.cutoffs[None, :], block.n_relevant_column)
    elif conventions.ap_denominator == "min_shown_relevant":
        shown = np.minimum(block.cutoffs[None, :], block.lengths[:, None])
        denominator = np.minimum(shown, block.n_relevant_column)
    else:
        denominator = block.hits
    return safe_divide(precision_sums, denominator)


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """The precision at each hit rank within the top K, added up in rank order, over the
    chosen denominator at K."""
    precision_sums = items.of_users(items.hit_user,
                                    items.nth_hit / (items.hit_rank + 1.0))
    if conventions.ap_denominator == "relevant":
        denominator = items.n_relevant.astype(np.float64)
    elif conventions.ap_denominator == "min_k_relevant":
        denominator = np.minimum(np.float64(items.max_cutoff),
                                 items.n_relevant.astype(np.float64))
    elif conventions.ap_denominator == "min_shown_relevant":
        shown = np.minimum(items.lengths, items.max_cutoff)
        denominator = np.minimum(shown, items.n_relevant).astype(np.float64)
    else:
        denominator = items.hits_of_users
    return safe_divide(precision_sums, denominator)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """Each hit at rank r adds its precision over the denominator at every cutoff K > r;
    None over the hits or the items shown, whose values are not such sums of steps."""
    if conventions.ap_denominator in ("hits", "min_shown_relevant"):
        return None
    hit_rank, n_relevant = items.hit_rank, items.hit_n_relevant
    precision_at_hit = items.nth_hit / (hit_rank + 1.0)
    if conventions.ap_denominator == "relevant":
        return items.accumulated_per_relevant(hit_rank, precision_at_hit, n_relevant)
    return items.accumulated_per_min_k_relevant(hit_rank, precision_at_hit, n_relevant)


METRIC = Metric(
    name="map",
    label="MAP",
    plain_name="How early the hits come",
    description="Average precision: the precision at each hit rank within the top K, summed "
    "and divided by |R| (or the chosen denominator); MAP is its mean over users.",
    formula=r"\mathrm{AP@K} = \frac{1}{|R|}\sum_{k \le K} \mathrm{P@k}\,\mathrm{rel}(k)",
    position=50,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
)
