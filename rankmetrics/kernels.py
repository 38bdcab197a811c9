"""Vectorized metric kernels: a block of users x cutoffs, every cutoff at once.

Inputs are dense matrices with one row per user and one column per rank (1..K):
``relevant`` (bool), ``gains`` (float64), and per-user counts. Every metric is a cumulative
sum along the rank axis, so column ``k - 1`` of each result is the metric at cutoff ``k``.
Nothing here knows about item ids, files or pandas.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions


def discounts(max_cutoff: int) -> np.ndarray:
    """The DCG discount of each rank i = 1..max_cutoff: 1 / log2(i + 1).

    >>> discounts(3).round(4).tolist()
    [1.0, 0.6309, 0.5]
    """
    return 1.0 / np.log2(np.arange(2, max_cutoff + 2, dtype=np.float64))


def gain_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """The DCG gain of each grade: ``2**g - 1`` (exponential) or ``g`` (linear).

    Grades below 0 (trec_eval's "junk" judgments, -1) give no gain.

    >>> gain_of(np.array([0.0, 1.0, 3.0, -1.0]), "exponential").tolist()
    [0.0, 1.0, 7.0, 0.0]
    """
    positive = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    if gain == "exponential":
        return np.exp2(positive) - 1.0
    return positive


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def retrieved_ideal_dcg(gains: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """IDCG@k of each row's own top-k list re-sorted by gain, for every k at once.

    The ideal top-k list holds, for every distinct gain level, as many items of that level as
    the first k ranks do, highest level first. With ``c_g(k)`` the count of level-g items in the
    first k ranks and ``s_g(k)`` the count of items above level g, the level contributes
    ``gain_g * (D[s_g + c_g] - D[s_g])`` where ``D[j]`` sums the first j discounts. The cost
    is one pass per distinct positive gain.
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


def metric_block(
    relevant: np.ndarray,
    gains: np.ndarray,
    n_relevant: np.ndarray,
    ideal_gains: np.ndarray | None,
    conventions: Conventions,
    metrics: tuple[str, ...],
) -> dict[str, np.ndarray]:
    """Every requested metric for a block of users at every cutoff 1..K.

    Parameters
    ----------
    relevant : bool array (n_users, K)
        Whether the item at each rank is relevant (grade >= threshold).
    gains : float array (n_users, K)
        DCG gain of the item at each rank (0 for unjudged items and beyond the list's end).
    n_relevant : int array (n_users,)
        |R|: relevant items in the user's ground truth.
    ideal_gains : float array (n_users, K) or None
        The user's ground-truth gains sorted descending (for ``ideal="ground_truth"``).
    conventions : Conventions
    metrics : tuple of str
        Any of precision, recall, hit_rate, mrr, map, dcg, ndcg.

    Returns
    -------
    dict of metric name -> float array (n_users, K); column k-1 holds the metric at cutoff k.

    Examples
    --------
    >>> rel = np.array([[True, False, True, False, False]])  # A, B, C, D, E; liked A, C, ...
    >>> out = metric_block(rel, rel * 1.0, np.array([5]), np.ones((1, 5)),
    ...                    Conventions(), ("precision", "ndcg"))
    >>> float(round(out["precision"][0, 4], 4)), float(round(out["ndcg"][0, 4], 4))
    (0.4, 0.5087)
    """
    n_users, max_cutoff = relevant.shape
    cutoffs = np.arange(1, max_cutoff + 1, dtype=np.float64)
    n_rel = n_relevant.astype(np.float64)[:, None]
    out: dict[str, np.ndarray] = {}
    if not set(metrics) & {"precision", "recall", "hit_rate", "map"}:
        hits = precision = None  # DCG and NDCG need neither
    else:
        hits = np.cumsum(relevant, axis=1, dtype=np.int64)
        precision = hits / cutoffs
    if "precision" in metrics:
        out["precision"] = precision
    if "recall" in metrics:
        out["recall"] = _safe_divide(hits, n_rel)
    if "hit_rate" in metrics:
        out["hit_rate"] = (hits > 0).astype(np.float64)
    if "mrr" in metrics:
        first = np.argmax(relevant, axis=1)
        found = relevant[np.arange(n_users), first]
        reciprocal = np.where(found, 1.0 / (first + 1.0), 0.0)
        out["mrr"] = np.where(cutoffs[None, :] > first[:, None], reciprocal[:, None], 0.0)
    if "map" in metrics:
        precision_sums = np.cumsum(np.where(relevant, precision, 0.0), axis=1)
        if conventions.ap_denominator == "relevant":
            denominator = n_rel
        elif conventions.ap_denominator == "min_k_relevant":
            denominator = np.minimum(cutoffs[None, :], n_rel)
        else:
            denominator = hits
        out["map"] = _safe_divide(precision_sums, denominator)
    if "dcg" in metrics or "ndcg" in metrics:
        disc = discounts(max_cutoff)
        dcg = np.cumsum(gains * disc, axis=1)
        if "dcg" in metrics:
            out["dcg"] = dcg
        if "ndcg" in metrics:
            if conventions.ideal == "retrieved":
                idcg = retrieved_ideal_dcg(gains, disc)
            else:
                idcg = np.cumsum(ideal_gains * disc, axis=1)
            out["ndcg"] = _safe_divide(dcg, idcg)
    return out


#: Metrics :func:`step_sums` computes (MAP with ``ap_denominator="hits"`` excepted).
STEP_METRICS = ("precision", "recall", "hit_rate", "mrr", "map", "dcg")


def step_sums(
    user: np.ndarray,
    rank: np.ndarray,
    relevant: np.ndarray,
    gain: np.ndarray,
    n_relevant: np.ndarray,
    conventions: Conventions,
    metrics: tuple[str, ...],
    max_cutoff: int,
) -> dict[str, np.ndarray]:
    """Sums over users of each metric at every cutoff 1..K, without a users x K matrix.

    Each of these metrics changes only where a judged item enters the list (precision is
    hits / K), so the sum over users at cutoff K is a cumulative sum over ranks of what the
    items at each rank add. The cost is one pass over the judged items plus K x K work.

    Parameters
    ----------
    user, rank : int arrays (n_entries,)
        The judged ranked items of the users to sum over: user, 0-based rank < max_cutoff;
        sorted by user, then rank.
    relevant : bool array (n_entries,)
    gain : float array (n_entries,)
        DCG gain of each item.
    n_relevant : int array
        |R| of every user (indexed by ``user``).
    metrics : tuple of str
        Any of :data:`STEP_METRICS`; MAP not with ``ap_denominator="hits"``, whose values
        are not sums of steps over users.

    Returns
    -------
    dict of metric name -> float array (max_cutoff,): the sum over users at cutoff k in
    position k-1. Divided by the number of users, equal to the mean of
    :func:`metric_block`'s columns.

    Examples
    --------
    >>> sums = step_sums(np.array([0, 0]), np.array([0, 2]), np.array([True, True]),
    ...                  np.array([1.0, 1.0]), np.array([5]), Conventions(),
    ...                  ("precision", "map"), 5)
    >>> sums["precision"].round(4).tolist(), sums["map"].round(4).tolist()
    ([1.0, 0.5, 0.6667, 0.5, 0.4], [0.2, 0.2, 0.3333, 0.3333, 0.3333])
    """
    unknown = set(metrics) - set(STEP_METRICS)
    if unknown or ("map" in metrics and conventions.ap_denominator == "hits"):
        raise ValueError(f"step_sums cannot compute {sorted(unknown) or ['map (hits)']}.")
    k = max_cutoff
    cutoffs = np.arange(1, k + 1, dtype=np.float64)

    def accumulated(ranks: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        return np.cumsum(np.bincount(ranks, weights=weights, minlength=k)[:k], dtype=np.float64)

    out: dict[str, np.ndarray] = {}
    hit_user, hit_rank = user[relevant], rank[relevant]
    first = np.ones(len(hit_user), dtype=bool)
    np.not_equal(hit_user[1:], hit_user[:-1], out=first[1:])
    if "precision" in metrics:
        out["precision"] = accumulated(hit_rank) / cutoffs
    if "recall" in metrics or "map" in metrics:
        hit_n_relevant = n_relevant[hit_user]
    if "recall" in metrics:
        out["recall"] = _accumulated_per_relevant(hit_rank, None, hit_n_relevant, k)
    if "hit_rate" in metrics:
        out["hit_rate"] = accumulated(hit_rank[first])
    if "mrr" in metrics:
        out["mrr"] = accumulated(hit_rank[first], 1.0 / (hit_rank[first] + 1.0))
    if "map" in metrics:
        position = np.arange(len(hit_user))
        nth_hit = position - np.maximum.accumulate(np.where(first, position, 0)) + 1
        precision_at_hit = nth_hit / (hit_rank + 1.0)
        if conventions.ap_denominator == "relevant":
            out["map"] = _accumulated_per_relevant(hit_rank, precision_at_hit, hit_n_relevant,
                                                   k)
        else:  # min(K, |R|): a hit at rank r (0-based) adds its precision at each K > r,
            # divided by K while K <= |R| and by |R| from K = |R| + 1 on
            n_rel = hit_n_relevant
            divided_by_k = hit_rank < n_rel  # K = r + 1 .. |R|: added at r, removed at |R|
            change = np.bincount(hit_rank[divided_by_k], weights=precision_at_hit[divided_by_k],
                                 minlength=k + 1)[:k + 1]
            change -= np.bincount(np.minimum(n_rel[divided_by_k], k),
                                  weights=precision_at_hit[divided_by_k], minlength=k + 1)[:k + 1]
            from_rank = np.maximum(hit_rank, n_rel)  # K - 1 >= max(r, |R|)
            later = from_rank < k
            out["map"] = np.cumsum(change)[:k] / cutoffs + _accumulated_per_relevant(
                from_rank[later], precision_at_hit[later], n_rel[later], k)
    if "dcg" in metrics:
        out["dcg"] = accumulated(rank, gain * discounts(k)[rank])
    return out


#: Most (distinct |R| x cutoffs) cells :func:`_accumulated_per_relevant` sums in.
MAX_RELEVANT_CELLS = 1 << 22


def _accumulated_per_relevant(
    ranks: np.ndarray, weights: np.ndarray | None, n_relevant: np.ndarray, k: int
) -> np.ndarray:
    """Sum of ``weight / |R|`` over the entries at ranks below each cutoff 1..k.

    The weights are summed per value of |R| first and divided once, so a perfect list (its
    user's weights add up to |R| exactly) gives exactly 1, where adding 1/|R| |R| times
    would not (ten times 0.1 is not 1.0 in floating point).
    """
    if len(ranks) == 0:
        return np.zeros(k)
    present = np.bincount(n_relevant) > 0
    values = np.flatnonzero(present)
    if len(values) * k > MAX_RELEVANT_CELLS:  # very many distinct |R|: one division each
        divided = 1.0 / n_relevant if weights is None else weights / n_relevant
        return np.cumsum(np.bincount(ranks, weights=divided, minlength=k)[:k])
    group = (np.cumsum(present) - 1)[n_relevant]
    table = np.bincount(group * k + ranks, weights=weights, minlength=len(values) * k)
    table = table.astype(np.float64, copy=False).reshape(len(values), k)
    np.cumsum(table, axis=1, out=table)
    return (table / values[:, None]).sum(axis=0)
