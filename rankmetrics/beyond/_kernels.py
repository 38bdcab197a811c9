"""The beyond-accuracy metrics at every cutoff, on plain arrays.

Lists are a users x K matrix of item codes (-1 past a list's end). Per-user metrics are
cumulative sums along the ranks, so every cutoff costs one pass. System metrics follow from
how many users each item is recommended to at each cutoff (one ``bincount`` per rank): in
particular the mean overlap of two users' top K is the number of (user, other user, item)
triples sharing an item divided by the number of pairs, so personalization never compares
two users.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.beyond._items import ItemFacts, ItemTraits
from rankmetrics.kernels import safe_divide

SYSTEM_NAMES = ("coverage", "gini", "entropy", "personalization")


def padded(values: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``values`` with one more entry, ``fill``, for code -1 (no item)."""
    return np.concatenate([values, np.full((1, *values.shape[1:]), fill, dtype=values.dtype)])


def per_user(metric: str, lists: np.ndarray, facts: ItemFacts) -> np.ndarray:
    """Users x K values of a per-user metric (see :data:`BEYOND_METRICS`) at every cutoff."""
    present = lists >= 0
    listed = np.cumsum(present, axis=1, dtype=np.float64)
    if metric in ("ild", "categories"):
        attributes = _needs(facts.attributes, metric)
        if metric == "categories":
            return distinct_categories(lists, attributes)
        return intra_list_diversity(lists, listed, attributes)
    popularity = facts.popularity
    if popularity is None:
        raise ValueError(f"{metric} needs training interactions.")
    per_item = {"arp": popularity.counts, "novelty": popularity.self_information,
                "aplt": popularity.long_tail, "aclt": popularity.long_tail}[metric]
    summed = np.cumsum(padded(per_item.astype(np.float64))[lists], axis=1)
    return summed if metric == "aclt" else safe_divide(summed, listed)


def _needs(attributes: ItemTraits | None, metric: str) -> ItemTraits:
    if attributes is None:
        raise ValueError(f"{metric} needs item attributes.")
    return attributes


def intra_list_diversity(lists: np.ndarray, listed: np.ndarray,
                         attributes: ItemTraits) -> np.ndarray:
    """Mean distance over the pairs of the top K (0 for fewer than two items)."""
    pairs = listed * (listed - 1) / 2
    if attributes.distance == "cosine":
        if attributes.unit_features is None:
            raise ValueError("ILD by cosine distance needs numeric item features.")
        unit = padded(attributes.unit_features)[lists]
        prefix = np.cumsum(unit, axis=1)
        squares = np.cumsum(np.einsum("ukd,ukd->uk", unit, unit), axis=1)
        similar = (np.einsum("ukd,ukd->uk", prefix, prefix) - squares) / 2
        return np.where(pairs > 0, 1.0 - safe_divide(similar, pairs), 0.0)
    table, set_of_item = attributes.set_distances, attributes.set_of_item
    if table is None or set_of_item is None:
        raise ValueError("ILD by Jaccard distance needs item categories.")
    sets = padded(set_of_item, len(table) - 1)[lists]
    distance = np.zeros(lists.shape)
    for k in range(1, lists.shape[1]):
        distance[:, k] = distance[:, k - 1] + table[sets[:, k:k + 1], sets[:, :k]].sum(
            axis=1, dtype=np.float64)
    return safe_divide(distance, pairs)


def distinct_categories(lists: np.ndarray, attributes: ItemTraits) -> np.ndarray:
    """How many categories the items of the top K have between them."""
    if attributes.category_bits is None:
        raise ValueError("categories needs item attributes with categories (text or lists "
                         "of categories), not only numeric features.")
    bits = np.bitwise_or.accumulate(padded(attributes.category_bits)[lists], axis=1)
    return np.bitwise_count(bits).sum(axis=2).astype(np.float64)


# System metrics ----------------------------------------------------------------------------

def system_curves(lists: np.ndarray, facts: ItemFacts, distribution: str
                  ) -> dict[str, np.ndarray]:
    """Coverage, Gini, entropy and personalization at every cutoff 1..K of ``lists``: the
    counts of each item grow by one rank's ``bincount`` at a time."""
    users = float(np.count_nonzero(lists[:, 0] >= 0)) if lists.shape[1] else 0.0
    running = np.zeros(len(facts.ids))
    curves: dict[str, list[float]] = {name: [] for name in SYSTEM_NAMES}
    for k in range(lists.shape[1]):
        column = lists[:, k]
        running += np.bincount(column[column >= 0], minlength=len(running))
        for name, value in system_values(running, k + 1, users, facts, distribution).items():
            curves[name].append(value)
    return {name: np.asarray(values) for name, values in curves.items()}


def counts_at(lists: np.ndarray, cutoff: int, n_items: int, weights: np.ndarray
              ) -> np.ndarray:
    """How many users (each counted ``weights[u]`` times) have each item in their top
    ``cutoff``."""
    top = lists[:, :cutoff]
    present = top >= 0
    return np.bincount(top[present], minlength=n_items,
                       weights=np.broadcast_to(weights[:, None], top.shape)[present])


def system_values(counts: np.ndarray, cutoff: int, users: float, facts: ItemFacts,
                  distribution: str) -> dict[str, float]:
    """Coverage, Gini, entropy and personalization from how many users (``users`` of them,
    with a list) have each item in their top ``cutoff``."""
    catalogue = counts[facts.in_catalogue]
    size = len(catalogue)
    pairs = users * (users - 1)
    shared = float(counts @ counts - counts.sum())  # (user, other user, item) triples
    spread = catalogue if distribution == "catalogue" else catalogue[catalogue > 0]
    return {
        "coverage": float(np.count_nonzero(catalogue)) / size if size else np.nan,
        "gini": gini(spread),
        "entropy": normalized_entropy(spread),
        "personalization": 1.0 - shared / pairs / cutoff if pairs > 0 else np.nan,
    }


def gini(counts: np.ndarray) -> float:
    """Gini index of counts over items: sum_j (2j - n - 1) c_(j) / (n sum c), c ascending.

    >>> float(gini(np.array([0.0, 0.0, 0.0, 4.0])))
    0.75
    """
    n, total = len(counts), float(counts.sum())
    if n == 0 or total == 0:
        return np.nan
    ascending = np.sort(counts)
    return float(((2 * np.arange(1, n + 1) - n - 1) @ ascending) / (n * total))


def normalized_entropy(counts: np.ndarray) -> float:
    """Shannon entropy of the shares c_i / sum c, divided by log n (0 when n is 1).

    >>> float(normalized_entropy(np.array([1.0, 1.0, 1.0, 1.0])))
    1.0
    """
    n, total = len(counts), float(counts.sum())
    if n == 0 or total == 0:
        return np.nan
    if n == 1:
        return 0.0
    shares = counts[counts > 0] / total
    return float(-(shares @ np.log(shares)) / np.log(n))
