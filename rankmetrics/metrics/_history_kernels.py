"""The metrics that compare a user's list with the user's training history, on plain arrays:
serendipity (relevant and unexpected items) and miscalibration (how far the list's mix of
categories is from the history's).

Lists are a block of users x K item codes (-1 past a list's end), the history the block's rows
of :class:`~rankmetrics.beyond.History`. By item attributes no pair of a list item and a
history item is visited one by one: each similarity sum is a product of the history with a
table of items (the feature vectors, the category sets); by co-occurrence each pair is one
lookup in the co-occurrence table, all of a block's pairs at once.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from rankmetrics.beyond import MOST_CATEGORY_SETS, History, ItemFacts, jaccard_table
from rankmetrics.checks import needed
from rankmetrics.metrics._kernels import UserBlock, safe_divide

#: Most list entries x categories held at once by miscalibration.
CELLS_AT_ONCE = 1 << 22
#: Miscalibration sums per (user, history category) pair while the histories hold at most
#: this share of the (user, category) pairs, else for every category at once.
PAIRS_UP_TO = 0.4
#: About how many table cells spreading a row costs as one binary search of serendipity.
SEARCH_COST = 8


def _history(facts: ItemFacts, metric: str) -> History:
    if facts.history is None:
        raise ValueError(f"{metric} needs training interactions (each user's history).")
    return facts.history


def _listed(lists: np.ndarray) -> np.ndarray:
    """Users x K: the items of the top k, min(k, the list's length)."""
    lengths = np.count_nonzero(lists >= 0, axis=1)
    return np.minimum(np.arange(1.0, lists.shape[1] + 1)[None, :], lengths[:, None])


def serendipity(block: UserBlock) -> np.ndarray:
    """Users x K: the relevant items' unexpectedness summed over the top k, divided by the
    items of the top k (Microsoft Recommenders' ``user_serendipity`` at each cutoff)."""
    lists, facts = block.top_items, block.item_facts
    relevant = block.relevant_matrix
    if facts.unexpectedness == "popularity":
        found = _unexpected_by_popularity(lists, relevant, facts)
    else:
        unexpected = unexpectedness(lists, facts, block.first_user)
        found = np.cumsum(np.where(relevant, unexpected, 0.0), axis=1)
    return safe_divide(found, _listed(lists))


def unexpectedness(lists: np.ndarray, facts: ItemFacts, first_user: int = 0) -> np.ndarray:
    """Users x K: one minus each listed item's mean similarity to the items of its user's
    history (1 for a user without history; 0 past a list's end), the users being ground-truth
    users ``first_user`` onwards."""
    history = _history(facts, "serendipity")
    stop = first_user + len(lists)
    sizes = history.sizes[first_user:stop].astype(np.float64)
    held = history.rows(first_user, stop)
    if facts.unexpectedness == "cooccurrence":
        summed = _cooccurrence_sums(lists, held, history)
    else:
        summed = _attribute_similarity(lists, held, sizes, facts, history)
    mean = safe_divide(summed, sizes[:, None])
    return np.where(lists < 0, 0.0, np.where(sizes[:, None] > 0, 1.0 - mean, 1.0))


def _cooccurrence_sums(lists: np.ndarray, held: sp.csr_matrix, history: History
                       ) -> np.ndarray:
    """Users x K: each listed item's cosine co-occurrence summed over the items of its user's
    history (0 past a list's end).

    Each (history item, listed item) pair of a user is one lookup. A history item many of the
    block's users hold (the popular ones, which most histories are made of) has its row of
    the table spread out once, then read by position; the other pairs are found by binary
    search in the sorted keys of the pairs held together, in key order (history items in
    order, each list in order), so that the searches walk the keys forwards."""
    keys, values = history.cooccurrence_lookup()
    n_users, width = lists.shape
    n_items = max(history.n_items, 1)
    order = np.argsort(lists, axis=1, kind="stable")
    ordered = np.take_along_axis(lists, order, axis=1).astype(np.int64)
    ordered[ordered < 0] = n_items  # a column of 0s in the spread rows, no key in the search
    owner = np.repeat(np.arange(n_users), np.diff(held.indptr))
    seen = held.indices.astype(np.int64)
    by_item = np.argsort(seen, kind="stable")
    owner, seen = owner[by_item], seen[by_item]
    starts = np.flatnonzero(np.r_[True, seen[1:] != seen[:-1]]) if len(seen) else \
        np.zeros(0, dtype=np.int64)
    counts = np.diff(np.r_[starts, len(seen)])
    spread = counts * width * SEARCH_COST >= n_items  # spreading a row pays for itself
    sums = np.zeros(n_users * width)
    columns = np.arange(width)[None, :]

    def add(users: np.ndarray, found: np.ndarray, weights: np.ndarray) -> None:
        cells = (users[:, None] * width + columns).ravel()
        sums[:] += np.bincount(cells[found], weights=weights, minlength=len(sums))

    searched = np.flatnonzero(~np.repeat(spread, counts))
    step = max(1, CELLS_AT_ONCE // max(width, 1))
    for start in range(0, len(searched), step):
        entries = searched[start:start + step]
        users = owner[entries]
        wanted = (seen[entries, None] * n_items + ordered[users]).ravel()
        at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
        found = keys[at] == wanted if len(keys) else np.zeros(len(wanted), dtype=bool)
        add(users, found, values[at[found]])

    rows_at_once = max(1, CELLS_AT_ONCE // (n_items + 1))
    popular, popular_starts, popular_counts = seen[starts[spread]], starts[spread], counts[spread]
    for first in range(0, len(popular), rows_at_once):
        rows = popular[first:first + rows_at_once]
        lo, hi = np.searchsorted(keys, rows * n_items), np.searchsorted(keys, (rows + 1) * n_items)
        at = _ranges(lo, hi)
        table = np.zeros((len(rows), n_items + 1))
        local = np.repeat(np.arange(len(rows)), hi - lo)
        table[local, keys[at] - rows[local] * n_items] = values[at]
        these = slice(first, first + rows_at_once)
        entries = _ranges(popular_starts[these], popular_starts[these] + popular_counts[these])
        local = np.repeat(np.arange(len(rows)), popular_counts[these])
        for start in range(0, len(entries), step):
            users = owner[entries[start:start + step]]
            gathered = table[local[start:start + step, None], ordered[users]].ravel()
            add(users, np.ones(len(gathered), dtype=bool), gathered)
    out = np.empty((n_users, width))
    np.put_along_axis(out, order, sums.reshape(n_users, width), axis=1)
    return out


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The integers lo[0]..hi[0]-1, then lo[1]..hi[1]-1, and so on."""
    lengths = hi - lo
    ends = np.cumsum(lengths)
    return np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - lengths - lo, lengths)


def _attribute_similarity(lists: np.ndarray, held: sp.csr_matrix, sizes: np.ndarray,
                          facts: ItemFacts, history: History) -> np.ndarray:
    """Users x K: each listed item's similarity (one minus ILD's distance) summed over the
    items of its user's history."""
    traits = facts.attributes
    if traits is None:
        raise ValueError("Serendipity by item attributes needs item attributes; give them, "
                         "or choose unexpectedness='cooccurrence'.")
    codes = np.where(lists < 0, 0, lists)
    if traits.distance == "cosine":
        unit = needed(traits.unit_features, "Cosine distance needs numeric item features.")
        return np.einsum("ukd,ud->uk", unit[codes], held @ unit)
    if traits.distance == "hamming":
        binary = needed(traits.binary_features, "Hamming distance needs binary item features.")
        width = max(binary.shape[1], 1)
        ones = binary.sum(axis=1)
        totals = held @ binary  # users x features: the history's items having each
        differ = (sizes[:, None] * ones[codes] + totals.sum(axis=1)[:, None]
                  - 2 * np.einsum("ukd,ud->uk", binary[codes], totals))
        return sizes[:, None] - differ / width
    set_of_item, similar = _category_sets(traits.category_bits, history)
    in_sets = sp.csr_matrix((np.ones(len(set_of_item)), (np.arange(len(set_of_item)),
                                                         set_of_item)),
                            shape=(len(set_of_item), len(similar)))
    by_set = np.asarray((held @ in_sets) @ similar)  # users x sets
    return np.take_along_axis(by_set, set_of_item[codes], axis=1)


def _category_sets(bits: np.ndarray | None, history: History) -> tuple[np.ndarray, np.ndarray]:
    """Each item's category set number and the Jaccard similarity of every two sets (two
    empty sets alike, as ILD has it), computed once."""
    if bits is None:
        raise ValueError("Serendipity by item attributes needs categories or numeric features.")
    with history._lock:
        if "sets" not in history._kept:
            distinct, set_of_item = np.unique(bits, axis=0, return_inverse=True)
            if len(distinct) > MOST_CATEGORY_SETS:
                raise ValueError(
                    f"The item attributes hold {len(distinct)} distinct sets of categories; "
                    f"serendipity by item attributes compares at most {MOST_CATEGORY_SETS}. "
                    "Give fewer categories, numeric features, or choose "
                    "unexpectedness='cooccurrence'.")
            history._kept["sets"] = (set_of_item.reshape(-1),
                                     1.0 - jaccard_table(distinct)[:-1, :-1])
        return history._kept["sets"]  # type: ignore[return-value]


def popularity_ranks(facts: ItemFacts) -> np.ndarray:
    """Each item's rank by training popularity among the catalogue's items (1: the most
    popular; ties by first appearance), past the catalogue for an item outside it, and a
    last entry for code -1."""
    popularity = facts.popularity
    if popularity is None:
        raise ValueError("Serendipity by popularity needs training interactions.")
    catalogue = np.flatnonzero(facts.in_catalogue)
    ranked = catalogue[np.argsort(-popularity.counts[catalogue], kind="stable")]
    ranks = np.full(len(facts.in_catalogue) + 1, len(facts.in_catalogue) + 1, dtype=np.int64)
    ranks[ranked] = np.arange(1, len(ranked) + 1)
    return ranks


def _unexpected_by_popularity(lists: np.ndarray, relevant: np.ndarray,
                              facts: ItemFacts) -> np.ndarray:
    """Users x K: the relevant items of the top k that are not among the k most popular
    items. The relevant item at rank j (1-based) with popularity rank r counts at the
    cutoffs j..r-1: one +1 and one -1 on a difference array, one cumulative sum."""
    n_users, width = lists.shape
    ranks = popularity_ranks(facts)[lists]
    users, positions = np.nonzero(relevant & (lists >= 0))
    first = positions + 1
    last = np.minimum(ranks[users, positions] - 1, width)
    counted = last >= first
    users, first, last = users[counted], first[counted], last[counted]
    steps = width + 2
    diff = (np.bincount(users * steps + first, minlength=n_users * steps)
            - np.bincount(users * steps + last + 1, minlength=n_users * steps))
    return np.cumsum(diff.reshape(n_users, steps), axis=1)[:, 1:width + 1].astype(np.float64)


def category_shares(facts: ItemFacts, history: History) -> np.ndarray:
    """Items (and a last row for code -1) x categories: each item's share of each of its
    categories (1 / its number of categories; a row of 0 for an item without any), computed
    once."""
    traits = facts.attributes
    if traits is None or traits.category_bits is None:
        raise ValueError("Miscalibration needs item categories (a column of categories in "
                         "the item attributes).")
    with history._lock:
        if "shares" not in history._kept:
            bits = traits.category_bits
            unpacked = np.unpackbits(bits.astype("<u8").view(np.uint8), axis=1,
                                     bitorder="little")
            used = np.flatnonzero(unpacked.any(axis=0))
            held = unpacked[:, used].astype(np.float64)
            counts = held.sum(axis=1, keepdims=True)
            shares = np.divide(held, counts, out=np.zeros_like(held), where=counts > 0)
            history._kept["shares"] = np.vstack([shares, np.zeros((1, shares.shape[1]))])
        return history._kept["shares"]  # type: ignore[return-value]


def miscalibration(block: UserBlock) -> np.ndarray:
    """Users x K: Steck's (2018) KL divergence, in nats, of the top k's category mix q from
    the history's p, sum_c p_c ln(p_c / ((1 - alpha) q_c + alpha p_c)); 0 for a user whose
    history has no category."""
    lists, facts = block.top_items, block.item_facts
    return miscalibration_of(lists, facts, block.first_user)


def history_mix(facts: ItemFacts, first_user: int, stop: int) -> np.ndarray:
    """Users x categories: each user's category mix p over the history items that have
    categories (rows of 0 for a history without any)."""
    history = _history(facts, "miscalibration")
    shares = category_shares(facts, history)
    held = history.rows(first_user, stop)
    mixed = np.asarray(held @ shares[:-1])
    counted = np.asarray(held @ (shares[:-1].sum(axis=1) > 0).astype(np.float64))
    return safe_divide(mixed, counted[:, None])


def miscalibration_of(lists: np.ndarray, facts: ItemFacts, first_user: int = 0
                      ) -> np.ndarray:
    """:func:`miscalibration` of the ground-truth users ``first_user`` onwards.

    Only the categories of each user's history count (p_c > 0; alpha > 0 keeps the smoothed
    share above 0 there), with the items' shares added up along the ranks: for every
    category at once where the histories hold most categories, else one running sum per
    (user, history category) pair."""
    history = _history(facts, "miscalibration")
    shares = category_shares(facts, history)
    n_users, width = lists.shape
    target = history_mix(facts, first_user, first_user + n_users)
    has = (shares.sum(axis=1) > 0).astype(np.float64)
    # (1 - alpha) / the number of the top k's items that have categories (0 for none)
    scale = safe_divide(np.full((n_users, width), 1 - facts.calibration_alpha),
                        np.cumsum(has[lists], axis=1))
    held = np.count_nonzero(target)
    if held > PAIRS_UP_TO * target.size:
        return _divergence_of_every_category(lists, shares, target, scale,
                                             facts.calibration_alpha)
    return _divergence_by_pair(lists, shares, target, scale, facts.calibration_alpha)


def _divergence_of_every_category(lists: np.ndarray, shares: np.ndarray, target: np.ndarray,
                                  scale: np.ndarray, alpha: float) -> np.ndarray:
    """Users x K: sum_c p_c ln p_c - sum_c p_c ln s_c, a block of users x K x categories at
    a time."""
    own = np.zeros_like(target)
    np.log(target, out=own, where=target > 0)
    entropy = np.einsum("uc,uc->u", target, own)
    n_users, width = lists.shape
    out = np.zeros((n_users, width))
    step = max(1, CELLS_AT_ONCE // max(width * shares.shape[1], 1))
    for start in range(0, n_users, step):
        these = slice(start, start + step)
        p = target[these]
        smoothed = np.cumsum(shares[lists[these]], axis=1)
        smoothed *= scale[these][:, :, None]
        smoothed += alpha * p[:, None, :]
        np.log(smoothed, out=smoothed, where=np.broadcast_to(p[:, None, :] > 0,
                                                              smoothed.shape))
        out[these] = entropy[these, None] - np.einsum("ukc,uc->uk", smoothed, p)
    return out


def _divergence_by_pair(lists: np.ndarray, shares: np.ndarray, target: np.ndarray,
                        scale: np.ndarray, alpha: float) -> np.ndarray:
    """Users x K: the same sum, one running sum along the ranks per (user, history category)
    pair."""
    users, categories = np.nonzero(target)  # user by user
    p = target[users, categories]
    out = np.zeros(lists.shape)
    step = max(1, CELLS_AT_ONCE // max(lists.shape[1], 1))
    for start in range(0, len(users), step):
        these = slice(start, start + step)
        owner, share = users[these], p[these, None]
        smoothed = np.cumsum(shares[lists[owner], categories[these, None]], axis=1)
        smoothed *= scale[owner]
        smoothed += alpha * share
        terms = share * (np.log(share) - np.log(smoothed))
        firsts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        out[owner[firsts]] += np.add.reduceat(terms, firsts, axis=0)
    return out
