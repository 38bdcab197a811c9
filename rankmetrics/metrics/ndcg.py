r"""NDCG@K: DCG of the list over the DCG of the ideal list, 1 for a perfect order.

.. math:: \mathrm{NDCG@K} = \frac{\mathrm{DCG@K}}{\mathrm{IDCG@K}}

The ideal list holds all of the user's ground-truth items sorted by gain (trec_eval's
``ndcg_cut``, ranx) or the model's own top K re-sorted (scikit-learn's ``ndcg_score`` fed the
top K), by the ``ideal`` convention. 0 when IDCG is 0. DCG and IDCG share the ``discount``
convention's discount.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, discounts, safe_divide
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """DCG over IDCG at every cutoff."""
    disc = block.discounts_of(conventions.discount)
    if conventions.ideal == "retrieved":
        idcg = retrieved_ideal_dcg(block.gain_matrix, disc)
    else:
        idcg = np.cumsum(block.ideal_gain_matrix * disc, axis=1)
    return safe_divide(block.dcg_of(conventions.discount), idcg)


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


def at_cutoff(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """DCG@K over IDCG@K; None with the ground-truth ideal when the ideal lists are too
    many."""
    width = items.max_cutoff
    disc = discounts(width, conventions.discount)
    dcg = items.of_users(items.user, items.gain * disc[items.rank])
    if conventions.ideal == "retrieved":
        return safe_divide(dcg, _retrieved_ideal_at_cutoff(items, disc))
    if items.ideal_lists is None:
        return None
    list_of_user, ideal_gains = items.ideal_lists
    idcg = np.cumsum(ideal_gains[:, :width] * disc, axis=1)[:, -1]
    return safe_divide(dcg, idcg[list_of_user])


def _retrieved_ideal_at_cutoff(items: JudgedItems, disc: np.ndarray) -> np.ndarray:
    """:func:`retrieved_ideal_dcg` at K of each user, from the counts of each gain level
    in the top K."""
    cumulative_discount = np.concatenate([[0.0], np.cumsum(disc)])
    ideal = np.zeros(items.n_users)
    above = np.zeros(items.n_users, dtype=np.int64)
    for level in np.unique(items.gain[items.gain > 0])[::-1]:
        count = np.bincount(items.user[items.gain == level], minlength=items.n_users)
        ideal += level * (cumulative_discount[above + count] - cumulative_discount[above])
        above += count
    return ideal


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray | None:
    """The sum over users of NDCG at every cutoff, summed per distinct ideal list (with the
    retrieved ideal: from the ranks where a user's value changes); None with the
    ground-truth ideal when the ideal lists are too many.

    With p(u) the user's ideal list, sum_u DCG_u(K) / IDCG_p(u)(K) =
    sum_p [sum_{r < K} A[p, r]] / IDCG_p(K), where A[p, r] sums the discounted gains
    at rank r of the users with ideal list p.
    """
    if conventions.ideal == "retrieved":
        return _summed_over_retrieved_ideals(items, conventions.discount)
    if items.ideal_lists is None:
        return None
    list_of_user, ideal_gains = items.ideal_lists
    n_lists, max_cutoff = ideal_gains.shape
    disc = discounts(max_cutoff, conventions.discount)
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


def _summed_over_retrieved_ideals(items: JudgedItems, discount: str) -> np.ndarray:
    """The sum over users of NDCG at every cutoff with the retrieved ideal.

    A user's DCG and retrieved IDCG change only at the ranks of items with a gain, so NDCG
    is constant between them. Both are computed at each such item as :func:`per_user`
    computes them along the ranks (the same operations in the same order, so the same
    values: DCG summed along a row of the user's items, IDCG level by level as in
    :func:`retrieved_ideal_dcg`); each value's change from the user's previous one is then
    added at its rank and summed over the cutoffs.
    """
    changes = np.flatnonzero(items.gain)
    user, rank, gain = items.user[changes], items.rank[changes], items.gain[changes]
    if len(user) == 0:
        return np.zeros(items.max_cutoff)
    first = np.ones(len(user), dtype=bool)
    np.not_equal(user[1:], user[:-1], out=first[1:])
    row = np.cumsum(first) - 1
    position = np.arange(len(user)) - np.flatnonzero(first)[row]
    values = np.empty(len(user))
    rows_at_once = max(1, MAX_CHANGE_CELLS // (int(position.max()) + 1))  # bounded tables
    for low in range(0, int(row[-1]) + 1, rows_at_once):
        part = slice(*np.searchsorted(row, [low, low + rows_at_once]))
        values[part] = _ndcg_at_items(gain[part], rank[part], first[part], row[part] - low,
                                      position[part], items.max_cutoff, discount)
    changed_by = values.copy()  # each value minus the user's previous one
    changed_by[1:] -= np.where(first[1:], 0.0, values[:-1])
    return items.accumulated(rank, changed_by)


def _ndcg_at_items(gain: np.ndarray, rank: np.ndarray, first: np.ndarray, row: np.ndarray,
                   position: np.ndarray, width: int, discount: str) -> np.ndarray:
    """NDCG with the retrieved ideal after each of the users' items with a gain (``row``
    numbers the users from 0, ``position`` counts the user's items before it)."""
    n_rows, n_columns = int(row[-1]) + 1, int(position.max()) + 1
    # the users' n-th items with a gain in row n, so that the running sums add whole rows
    # at a time (the same additions, in the same order, as along each user's ranks)
    cells = position * n_rows + row
    discounted = np.zeros(n_columns * n_rows)
    discounted[cells] = gain * discounts(width, discount)[rank]
    running = discounted.reshape(n_columns, n_rows)
    for n in range(1, n_columns):
        np.add(running[n - 1], running[n], out=running[n])
    return safe_divide(discounted[cells],
                       _retrieved_ideal_at_items(gain, first, row, position, discount))


def _retrieved_ideal_at_items(gain: np.ndarray, first: np.ndarray, row: np.ndarray,
                              position: np.ndarray, discount: str) -> np.ndarray:
    """:func:`retrieved_ideal_dcg` after each of the users' items with a gain (``first``
    marks each user's first one, ``row`` numbers the users, ``position`` counts the user's
    items before it), from the counts of each gain level among the user's items so far."""
    cumulative_discount = np.concatenate(
        [[0.0], np.cumsum(discounts(int(position.max()) + 1, discount))])
    if gain.min() == gain.max() > 0:
        # every item of one level: the sum below is 0 + level * (D[n] - D[0]) at the n-th
        return gain[0] * cumulative_discount[position + 1]
    ideal = np.zeros(len(gain))
    above = np.zeros(len(gain), dtype=np.int64)
    starts = np.flatnonzero(first)
    for level in np.unique(gain[gain > 0])[::-1]:
        so_far = np.cumsum(gain == level, dtype=np.int64)
        count = so_far - (so_far[starts] - (gain[starts] == level))[row]
        ideal += level * (cumulative_discount[above + count] - cumulative_discount[above])
        above += count
    return ideal


#: Most cells (users x most items with a gain of a user) the retrieved ideal's sums lay out
#: at once (128 MiB of float64): more users are taken in parts.
MAX_CHANGE_CELLS = 1 << 24

METRIC = Metric(
    name="ndcg",
    label="NDCG",
    plain_name="Ranking quality",
    description="DCG of the list divided by the DCG of the ideal list: 1 for a perfect order.",
    formula=r"\mathrm{NDCG@K} = \frac{\mathrm{DCG@K}}{\mathrm{IDCG@K}}",
    position=60,
    per_user=per_user,
    summed=summed,
    at_cutoff=at_cutoff,
    highest=1.0,
)
