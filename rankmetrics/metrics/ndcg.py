r"""NDCG@K: DCG of the list over the DCG of the ideal list, 1 for a perfect order.

.. math:: \mathrm{NDCG@K} = \frac{\mathrm{DCG@K}}{\mathrm{IDCG@K}}

The ideal list holds all of the user's ground-truth items sorted by gain (trec_eval's
``ndcg_cut``, ranx) or the model's own top K re-sorted (scikit-learn's ``ndcg_score`` fed the
top K), by the ``ideal`` convention. 0 when IDCG is 0.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.kernels import JudgedItems, UserBlock, discounts, safe_divide
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """DCG over IDCG at every cutoff."""
    if conventions.ideal == "retrieved":
        idcg = retrieved_ideal_dcg(block.gain_matrix, block.discounts)
    else:
        idcg = np.cumsum(block.ideal_gain_matrix * block.discounts, axis=1)
    return safe_divide(block.dcg, idcg)


def retrieved_ideal_dcg(gains: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """IDCG@k of each row's own top-k list re-sorted by gain, for every k at once.

    The ideal top-k list holds, for every distinct gain level, as many items of that level as
    the first k ranks do, highest level first. With ``c_g(k)`` the count of level-g items in the
    first k ranks and ``s_g(k)`` the count of items above level g, the level contributes
    ``gain_g * (D[s_g + c_g] - D[s_g])`` where ``D[j]`` sums the first j discounts. The cost
    is one pass per distinct positive gain.

    >>> retrieved_ideal_dcg(np.array([[0.0, 1.0, 3.0]]), discounts(3)).round(4).tolist()
    [[0.0, 1.0, 3.6309]]
    """
    n_users, max_cutoff = gains.shape
    cumulative_discount = np.concatenate([[0.0], np.cumsum(disc)])
    ideal = np.zeros((n_users, max_cutoff), dtype=np.float64)
    above = np.zeros((n_users, max_cutoff), dtype=np.int64)
    for level in np.unique(gains[gains > 0])[::-1]:
        count = np.cumsum(gains == level, axis=1)
        ideal += level * (
            cumulative_discount[above + count] - cumulative_discount[above]
        )
        above += count
    return ideal


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over users of NDCG at every cutoff, summed per distinct ideal list; None with
    the retrieved ideal or when the ideal lists are too many.

    With p(u) the user's ideal list, sum_u DCG_u(K) / IDCG_p(u)(K) =
    sum_p [sum_{r < K} A[p, r]] / IDCG_p(K), where A[p, r] sums the discounted gains
    at rank r of the users with ideal list p.
    """
    if conventions.ideal != "ground_truth" or items.ideal_lists is None:
        return None
    list_of_user, ideal_gains = items.ideal_lists
    n_lists, max_cutoff = ideal_gains.shape
    disc = discounts(max_cutoff)
    idcg = np.cumsum(ideal_gains * disc, axis=1)
    inverse = np.zeros_like(idcg)
    np.divide(1.0, idcg, out=inverse, where=idcg > 0)
    table = np.bincount(
        list_of_user[items.user] * max_cutoff + items.rank,
        weights=items.gain * disc[items.rank],
        minlength=n_lists * max_cutoff,
    ).astype(np.float64, copy=False).reshape(n_lists, max_cutoff)
    np.cumsum(table, axis=1, out=table)
    table *= inverse
    return table.sum(axis=0)


METRIC = Metric(
    name="ndcg",
    label="NDCG",
    description="DCG of the list divided by the DCG of the ideal list: 1 for a perfect order.",
    formula=r"\mathrm{NDCG@K} = \frac{\mathrm{DCG@K}}{\mathrm{IDCG@K}}",
    position=60,
    per_user=per_user,
    summed=summed,
    highest=1.0,
)
