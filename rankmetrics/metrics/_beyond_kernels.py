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

from rankmetrics.beyond import ItemFacts, ItemTraits
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, safe_divide

SYSTEM_NAMES = ("coverage", "gini", "exposure_gini", "entropy", "personalization")


def padded(values: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``values`` with one more entry, ``fill``, for code -1 (no item)."""
    return np.concatenate([values, np.full((1, *values.shape[1:]), fill, dtype=values.dtype)])


def list_values(metric: str, block: UserBlock) -> np.ndarray:
    """Users x K values of a per-user beyond-accuracy metric for a block of users (the
    ``per_user`` kernel of ARP, APLT, ACLT, novelty, ILD and categories)."""
    return per_user(metric, block.top_items, block.item_facts)


def summed_list_values(metric: str, items: JudgedItems) -> np.ndarray | None:
    """The sum over the counted users of ARP, APLT, ACLT or novelty (see
    :func:`summed_item_means`) or of categories (added up in integers) at every cutoff
    1..max_cutoff; None for a metric without a summed form (ILD)."""
    lists, width = items.top_items, items.max_cutoff
    facts = items.item_facts
    if leaves_out_unseen(metric, facts):
        return None  # a mean over the seen items: from the per-user values
    if metric in ITEM_MEANS:
        by_rank = items.item_rank_sums[:, ITEM_MEANS[metric]]
        sums = summed_item_means(metric, lists, items.counted.astype(np.float64), facts,
                                 by_rank)
    elif metric == "categories" and facts.attributes is not None:
        sums = summed_categories(lists, items.counted, facts.attributes)
    else:
        return None
    if len(sums) < width:  # past the longest list: ARP and the others stay as they were
        sums = np.concatenate([sums, np.full(width - len(sums), sums[-1])])
    return sums


def per_user(metric: str, lists: np.ndarray, facts: ItemFacts) -> np.ndarray:
    """Users x K values of a per-user beyond-accuracy metric at every cutoff."""
    # a list fills its first ranks: the items in the top k are min(k, its length)
    lengths = np.count_nonzero(lists >= 0, axis=1)
    listed = np.minimum(np.arange(1.0, lists.shape[1] + 1)[None, :], lengths[:, None])
    if metric in ("ild", "categories", "category_entropy"):
        attributes = _needs(facts.attributes, metric)
        if metric == "categories":
            return distinct_categories(lists, attributes)
        if metric == "category_entropy":
            return category_entropy(lists, attributes)
        return intra_list_diversity(lists, listed, attributes)
    if leaves_out_unseen(metric, facts):
        return seen_item_means(metric, lists, facts)
    summed = np.cumsum(item_values(metric, facts)[lists], axis=1)
    return summed if metric == "aclt" else safe_divide(summed, listed)


#: The metrics that can leave out the items unseen in training (``unseen_items="left_out"``).
UNSEEN_METRICS = ("arp", "novelty")


def leaves_out_unseen(metric: str, facts: ItemFacts) -> bool:
    """Whether ``metric`` leaves out the items no training interaction holds."""
    return metric in UNSEEN_METRICS and facts.unseen_items == "left_out"


def seen_item_means(metric: str, lists: np.ndarray, facts: ItemFacts) -> np.ndarray:
    """Users x K: the mean of ARP's or novelty's item values over the items of the top k
    seen in training, NaN where the top k holds none (Evidently drops the unseen items,
    then averages each user's remaining ones)."""
    popularity = facts.popularity
    if popularity is None:
        raise ValueError("ARP and novelty need training interactions.")
    seen = padded(popularity.counts > 0, False)
    values = np.where(seen, item_values(metric, facts), 0.0)
    summed = np.cumsum(values[lists], axis=1)
    found = np.cumsum(seen[lists], axis=1, dtype=np.int64)
    out = np.full(summed.shape, np.nan)
    np.divide(summed, found, out=out, where=found > 0)
    return out


#: The per-user metrics that average (or, ACLT, add up) one value per recommended item, and
#: the column of :func:`item_value_table` each reads.
ITEM_MEANS = {"arp": 0, "aplt": 1, "aclt": 1, "novelty": 2}


def item_values(metric: str, facts: ItemFacts) -> np.ndarray:
    """Each item's value for ARP, APLT, ACLT or novelty, and a last 0 for code -1."""
    return item_value_table(facts)[:, ITEM_MEANS[metric]]


def item_value_table(facts: ItemFacts) -> np.ndarray:
    """Items (and a last row of 0 for code -1) x (popularity, in the long tail,
    self-information)."""
    popularity = facts.popularity
    if popularity is None:
        raise ValueError("ARP, APLT, ACLT and novelty need training interactions.")
    return padded(np.column_stack([popularity.counts, popularity.long_tail,
                                   popularity.self_information]).astype(np.float64))


def rank_sums(lists: np.ndarray, weights: np.ndarray, table: np.ndarray) -> np.ndarray:
    """K x columns: at each rank, the sum over users (user u counted ``weights[u]`` times)
    of the ``table`` row of the item there (the last row for no item), from how often each
    item sits at that rank."""
    by_rank = np.ascontiguousarray(lists.T)  # one rank's items side by side in memory
    np.remainder(by_rank, len(table), out=by_rank)  # code -1: the last row
    return np.stack([np.bincount(items, weights=weights, minlength=len(table)) @ table
                     for items in by_rank]) if len(by_rank) else np.zeros((0, table.shape[1]))


def summed_item_means(metric: str, lists: np.ndarray, weights: np.ndarray,
                      facts: ItemFacts, by_rank: np.ndarray) -> np.ndarray:
    """The sum over users (user u counted ``weights[u]`` times) of ARP, APLT, ACLT or
    novelty at every cutoff 1..K, from ``by_rank`` (each rank's weighted sum of the item
    values: a column of :func:`rank_sums`), without a users x K matrix of values.

    A user with L items has sum_{j<=k} v_j / k at k <= L and t / L past it (t: the sum of
    all L values). With C_k the weighted sum of every user's first k values (items past a
    list's end are worth 0) and T_k, M_k the weighted sums of t and t / L over the users
    with L < k, the sum over users is (C_k - T_k) / k + M_k (ACLT, not divided: C_k).
    """
    width = lists.shape[1]
    reached = np.cumsum(by_rank)
    if metric == "aclt":
        return reached
    values = item_values(metric, facts)
    lengths = np.count_nonzero(lists >= 0, axis=1)
    short = np.flatnonzero((lengths < width) & (weights != 0))
    totals = values[lists[short]].sum(axis=1) * weights[short]
    ended = np.bincount(lengths[short] + 1, weights=totals, minlength=width + 1)
    ended_mean = np.bincount(lengths[short] + 1, minlength=width + 1,
                             weights=safe_divide(totals, lengths[short].astype(np.float64)))
    cutoffs = np.arange(1.0, width + 1)
    return (reached - np.cumsum(ended)[1:]) / cutoffs + np.cumsum(ended_mean)[1:]


def _needs(attributes: ItemTraits | None, metric: str) -> ItemTraits:
    if attributes is None:
        raise ValueError(f"{metric} needs item attributes.")
    return attributes


def intra_list_diversity(lists: np.ndarray, listed: np.ndarray,
                         attributes: ItemTraits) -> np.ndarray:
    """Mean distance over the pairs of the top K (0 for fewer than two items)."""
    pairs = listed * (listed - 1) / 2
    if attributes.distance == "hamming":
        if attributes.binary_features is None:
            raise ValueError("ILD by Hamming distance needs binary item features.")
        differ = _differing_features(lists, listed, attributes.binary_features)
        width = max(attributes.binary_features.shape[1], 1)
        return np.where(pairs > 0, safe_divide(differ, pairs * width), 0.0)
    if attributes.distance == "cosine":
        if attributes.unit_features is None:
            raise ValueError("ILD by cosine distance needs numeric item features.")
        unit = padded(attributes.unit_features)[lists]
        prefix = np.cumsum(unit, axis=1)
        squares = np.cumsum(np.einsum("ukd,ukd->uk", unit, unit), axis=1)
        similar = (np.einsum("ukd,ukd->uk", prefix, prefix) - squares) / 2
        return np.where(pairs > 0, 1.0 - safe_divide(similar, pairs), 0.0)
    bits = attributes.category_bits
    if bits is None:
        raise ValueError("ILD by Jaccard distance needs item categories.")
    marked = _marked_empty_sets(bits)
    if marked is not None and (np.bitwise_count(marked) == 1).all():
        # one category an item: Jaccard similarity is 1 for the same category, else 0
        similar = _same_category_pairs(lists, np.bitwise_count(marked - np.uint64(1)))
    elif marked is not None:  # read in the narrowest type that holds the bits
        narrow = marked.astype(np.min_scalar_type(int(marked.max(initial=0))))
        similar = _similar_pairs_by_bits(lists, narrow)
    else:
        similar = _similar_pairs_by_table(lists, attributes)
    return np.where(pairs > 0, 1.0 - safe_divide(similar, pairs), 0.0)


def _differing_features(lists: np.ndarray, listed: np.ndarray, binary: np.ndarray
                        ) -> np.ndarray:
    """Users x K: the features the pairs of the top k differ on, summed over the pairs,
    with no pair compared: for m vectors x_i of 0 and 1, sum_{i<j} |x_i - x_j|^2 is
    m sum_i |x_i|^2 - |sum_i x_i|^2, and |sum_i x_i|^2 grows rank by rank by
    2 <sum so far, x_k> + |x_k|^2. Past a list's end the item is a vector of zeros and m
    stays. Every term is a whole number: exact in float32 below 2^24, which holds the
    running sums unless lists are long and the features many."""
    exact = lists.shape[1] * max(binary.shape[1], 1) < 1 << 24
    rows = padded(binary).astype(np.float32 if exact else np.float64)
    sizes = rows.sum(axis=1, dtype=np.float64)
    out = np.empty(lists.shape)
    for first in range(0, len(lists), USERS_PER_SUM):
        block = lists[first:first + USERS_PER_SUM]
        by_rank = np.ascontiguousarray(block.T)
        held = np.zeros((len(block), rows.shape[1]), dtype=rows.dtype)
        norm = np.zeros(len(block))
        norms = np.empty(by_rank.shape)
        for k, items in enumerate(by_rank):
            vectors = rows[items]
            norm += 2 * np.einsum("ud,ud->u", held, vectors) + sizes[items]
            held += vectors
            norms[k] = norm
        out[first:first + USERS_PER_SUM] = (
            listed[first:first + USERS_PER_SUM] * np.cumsum(sizes[block], axis=1) - norms.T)
    return out


def _marked_empty_sets(bits: np.ndarray) -> np.ndarray | None:
    """Each item's categories as one word of bits, an item without any holding one category
    of its own ("none", the bit after the last category): two items without categories are
    then alike (similarity 1) and unlike any other, as the definition has it, with no case
    apart. None when that takes more than one 64-bit word."""
    if bits.shape[1] != 1:
        return None
    words = bits[:, 0]
    none = int(np.bitwise_or.reduce(words, initial=np.uint64(0))).bit_length()
    if none >= 64:
        return None
    return np.where(words == 0, np.uint64(1 << none), words)


#: Users whose pairs are compared at a time (their temporaries stay in the processor's cache).
USERS_PER_PASS = 2048


def _same_category_pairs(lists: np.ndarray, category: np.ndarray) -> np.ndarray:
    """Users x K: how many pairs of the top k share their one category (``category``: each
    item's), with no pair compared: the item at rank k pairs with as many earlier items as
    already hold its category, a running count per user and category."""
    kinds = int(category.max(initial=0)) + 2  # the last: no item
    codes = padded(category.astype(np.int64), kinds - 1)[lists]
    out = np.empty(lists.shape)
    for first in range(0, len(lists), USERS_PER_PASS):
        block = codes[first:first + USERS_PER_PASS]
        # each (user, category)'s place in one flat array of running counts, rank by rank
        cells = np.ascontiguousarray((block + kinds * np.arange(len(block))[:, None]).T)
        held = np.zeros(len(block) * kinds)
        found = np.empty(cells.shape)
        for k, at in enumerate(cells):
            np.take(held, at, out=found[k])
            held[at] = found[k] + 1
        found *= (lists[first:first + USERS_PER_PASS] >= 0).T  # past a list's end: no pairs
        out[first:first + USERS_PER_PASS] = np.cumsum(found, axis=0).T
    return out


def _similar_pairs_by_bits(lists: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Users x K: the summed Jaccard similarity |A & B| / |A | B| of the pairs of the top k,
    ``bits`` holding each item's categories in one word (no set empty): counted with bit
    operations and one division a pair, rank by rank, into buffers made once per pass.

    Past a list's end the item has no categories and counts as having one, so its pairs
    are worth 0 / (its size + 1), 0, with no case apart.
    """
    words = padded(bits)
    sizes_of = np.bitwise_count(words)  # uint8: at most 64
    sizes_of[-1] = 1
    out = np.empty(lists.shape)
    for first in range(0, len(lists), USERS_PER_PASS):
        codes = np.ascontiguousarray(lists[first:first + USERS_PER_PASS].T)  # ranks x users
        by_rank, sizes = words[codes], sizes_of[codes]
        common = np.empty_like(by_rank)
        shared = np.empty(by_rank.shape, dtype=np.uint8)
        union = np.empty(by_rank.shape, dtype=np.uint8)
        similarity = np.empty(by_rank.shape)
        found = np.zeros(by_rank.shape)
        for k in range(1, by_rank.shape[0]):
            np.bitwise_and(by_rank[:k], by_rank[k], out=common[:k])
            np.bitwise_count(common[:k], out=shared[:k])
            np.add(sizes[:k], sizes[k], out=union[:k])
            union[:k] -= shared[:k]
            np.divide(shared[:k], union[:k], out=similarity[:k])
            similarity[:k].sum(axis=0, out=found[k])
        out[first:first + USERS_PER_PASS] = np.cumsum(found, axis=0).T
    return out


def _similar_pairs_by_table(lists: np.ndarray, attributes: ItemTraits) -> np.ndarray:
    """As :func:`_similar_pairs_by_bits`, for more than 64 categories: the similarity of
    every two distinct category sets from a table."""
    table, set_of_item = attributes.set_distances, attributes.set_of_item
    if table is None or set_of_item is None:
        raise ValueError("ILD by Jaccard distance needs item categories.")
    similarity = 1.0 - table
    similarity[-1, :] = similarity[:, -1] = 0.0  # no item
    sets = padded(set_of_item, len(table) - 1)[lists]
    out = np.zeros(lists.shape)
    for k in range(1, lists.shape[1]):
        out[:, k] = out[:, k - 1] + similarity[sets[:, k:k + 1], sets[:, :k]].sum(
            axis=1, dtype=np.float64)
    return out


def distinct_categories(lists: np.ndarray, attributes: ItemTraits) -> np.ndarray:
    """How many categories the items of the top K have between them."""
    return _category_counts(lists, attributes).astype(np.float64)


#: Users whose categories are counted at a time when summing them.
USERS_PER_SUM = 8192


def summed_categories(lists: np.ndarray, mask: np.ndarray, attributes: ItemTraits
                      ) -> np.ndarray:
    """The sum over the users in ``mask`` of :func:`distinct_categories` at every cutoff,
    counted in integers a block of users at a time."""
    total = np.zeros(lists.shape[1], dtype=np.int64)
    for first in range(0, len(lists), USERS_PER_SUM):
        block = slice(first, first + USERS_PER_SUM)
        total += _category_counts(lists[block][mask[block]], attributes).sum(
            axis=0, dtype=np.int64)
    return total.astype(np.float64)


def _category_counts(lists: np.ndarray, attributes: ItemTraits) -> np.ndarray:
    """Users x K: how many categories the items of each top k have between them, as
    integers."""
    bits = attributes.category_bits
    if bits is None:
        raise ValueError("categories needs item attributes with categories (text or lists "
                         "of categories), not only numeric features.")
    if bits.shape[1] == 1:  # one word: held in the narrowest type that holds it
        word = bits[:, 0].astype(np.min_scalar_type(int(bits.max(initial=0))))
        return np.bitwise_count(np.bitwise_or.accumulate(padded(word)[lists], axis=1))
    held = np.bitwise_or.accumulate(padded(bits)[lists], axis=1)
    return np.bitwise_count(held).sum(axis=2, dtype=np.int64)



def category_entropy(lists: np.ndarray, attributes: ItemTraits) -> np.ndarray:
    """Users x K: the Shannon entropy in bits of the categories of each top k, each
    category's share being its (item, category) memberships over all of them (an item
    counts once for each of its categories, an item without any counts nothing; 0 for no
    membership or one category).

    With m_c the memberships of category c and T their sum, the entropy is
    log2 T - sum_c m_c log2 m_c / T: running counts per user and category along the ranks,
    a block of users at a time, and a table of m log2 m, with no users x K x categories
    array and one logarithm per (user, rank)."""
    bits = attributes.category_bits
    if bits is None:
        raise ValueError("category_entropy needs item attributes with categories (text or "
                         "lists of categories), not only numeric features.")
    # little-endian: bit j of word w is category 64 w + j
    words = padded(bits).astype("<u8", copy=False)
    used = np.flatnonzero(unpacked_bits(np.bitwise_or.reduce(words, axis=0, keepdims=True))[0])
    width = lists.shape[1]
    out = np.zeros(lists.shape)
    if not len(used) or not width:
        return out
    members = unpacked_bits(words)[:, used]  # items x used categories, 0 or 1
    sizes = members.sum(axis=1, dtype=np.float64)
    counts_at = np.arange(width + 1, dtype=np.float64)
    m_log_m = counts_at * np.log2(np.maximum(counts_at, 1.0))
    count_type = np.min_scalar_type(width)  # a count is at most the list's length
    for first in range(0, len(lists), USERS_PER_SUM):
        block = np.ascontiguousarray(lists[first:first + USERS_PER_SUM].T)  # ranks x users
        counts = np.zeros((block.shape[1], len(used)), dtype=count_type)
        spread = np.empty(block.shape)  # sum_c m_c log2 m_c
        kinds = np.empty(block.shape, dtype=np.int64)
        for k, items in enumerate(block):
            counts += members[items]
            spread[k] = m_log_m[counts].sum(axis=1)
            kinds[k] = np.count_nonzero(counts, axis=1)
        total = np.cumsum(sizes[block], axis=0)
        value = np.log2(np.maximum(total, 1.0)) - safe_divide(spread, total)
        out[first:first + USERS_PER_SUM] = np.where(kinds > 1, value, 0.0).T
    return out


def unpacked_bits(words: np.ndarray) -> np.ndarray:
    """Little-endian uint64 words (..., W) as their bits (..., 64 W), 0 or 1 (uint8)."""
    return np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=-1,
                         bitorder="little")

# System metrics ----------------------------------------------------------------------------

#: Most item counts held at once while computing the system metrics at every cutoff.
COUNT_CELLS = 1 << 22


def system_curves(lists: np.ndarray, facts: ItemFacts, distribution: str,
                  rank_weights: np.ndarray) -> dict[str, np.ndarray]:
    """Coverage, Gini, exposure's Gini, entropy and personalization at every cutoff 1..K of
    ``lists``: the counts of each item (and its exposure, each rank k adding
    ``rank_weights[k - 1]``) grow by one rank's ``bincount`` at a time, and the metrics are
    taken for several cutoffs at once."""
    n_items, width = len(facts.ids), lists.shape[1]
    users = float(np.count_nonzero(lists[:, 0] >= 0)) if width else 0.0
    running, exposed = np.zeros(n_items), np.zeros(n_items)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in SYSTEM_NAMES}
    step = max(1, COUNT_CELLS // max(2 * n_items, 1))  # counts and exposure
    by_rank = np.ascontiguousarray(lists.T)  # one rank's items side by side in memory
    for first in range(0, width, step):
        ranks = range(first, min(width, first + step))
        counts, exposure = np.empty((len(ranks), n_items)), np.empty((len(ranks), n_items))
        for row, k in enumerate(ranks):
            column = by_rank[k]
            added = np.bincount(column[column >= 0], minlength=n_items)
            running += added
            exposed += rank_weights[k] * added
            counts[row], exposure[row] = running, exposed
        cutoffs = np.arange(first + 1, first + len(ranks) + 1)
        for name, values in system_values(counts, cutoffs, users, facts, distribution,
                                          exposure).items():
            parts[name].append(values)
    return {name: np.concatenate(values) if values else np.zeros(0)
            for name, values in parts.items()}


def counts_at(lists: np.ndarray, cutoff: int, n_items: int, weights: np.ndarray,
              rank_weights: np.ndarray | None = None) -> np.ndarray:
    """How many users (each counted ``weights[u]`` times) have each item in their top
    ``cutoff``; with ``rank_weights``, each user's rank k counts ``rank_weights[k - 1]``
    times more (the items' exposure)."""
    top = lists[:, :cutoff]
    present = top >= 0
    counted = np.broadcast_to(weights[:, None], top.shape)
    if rank_weights is not None:
        counted = counted * rank_weights[None, :top.shape[1]]
    return np.bincount(top[present], minlength=n_items, weights=counted[present])


def system_values(counts: np.ndarray, cutoffs: np.ndarray, users: float | np.ndarray,
                  facts: ItemFacts, distribution: str, exposure: np.ndarray
                  ) -> dict[str, np.ndarray]:
    """Coverage, Gini, exposure's Gini, entropy and personalization from how many users
    (``users`` of them, with a list) have each item in their top K and how much exposure
    each item gets there: one row of ``counts`` and of ``exposure`` per cutoff K (or per
    resample, with one ``users`` each)."""
    catalogue = counts[:, facts.in_catalogue]
    size = catalogue.shape[1]
    held = np.count_nonzero(catalogue, axis=1)
    spread = size if distribution == "catalogue" else held
    pairs = np.asarray(users * (users - 1), dtype=np.float64)
    shared = np.einsum("ki,ki->k", counts, counts) - counts.sum(axis=1)  # (u, v, item)
    return {
        "coverage": held / size if size else np.full(len(counts), np.nan),
        "gini": gini(catalogue, spread),
        "exposure_gini": gini(exposure[:, facts.in_catalogue], spread),
        "entropy": normalized_entropy(catalogue, spread),
        "personalization": np.where(pairs > 0, 1.0 - safe_divide(shared, pairs) / cutoffs,
                                    np.nan),
    }


def gini(counts: np.ndarray, spread: int | np.ndarray) -> np.ndarray:
    """Gini index of each row of counts over its ``spread`` items (the row's nonzero counts
    and as many zeros as make ``spread``): sum_j (2j - n - 1) c_(j) / (n sum c), ascending.

    >>> gini(np.array([[0.0, 0.0, 0.0, 4.0]]), 4).tolist(), gini(np.array([[0.0, 4.0]]), 1)
    ([0.75], array([0.]))
    """
    ascending = np.sort(counts, axis=1)
    n_columns = counts.shape[1]
    spread = np.broadcast_to(np.asarray(spread, dtype=np.float64), (len(counts),))
    # the row's j-th smallest count is c_(j - (n_columns - spread)) of its spread items, so
    # the sum is 2 sum_j j c - (2 (n_columns - spread) + spread + 1) sum c: one product
    # (whole counts: every partial sum is a whole number, exact in float64)
    total = ascending.sum(axis=1)
    ranked = ascending @ np.arange(1.0, n_columns + 1)
    weighted = 2 * ranked - (2 * (n_columns - spread) + spread + 1) * total
    return np.where((total > 0) & (spread > 0), safe_divide(weighted, spread * total), np.nan)


def normalized_entropy(counts: np.ndarray, spread: int | np.ndarray) -> np.ndarray:
    """Shannon entropy of each row's shares c_i / sum c, divided by log n, n its ``spread``
    items (0 when n is 1).

    >>> normalized_entropy(np.array([[1.0, 1.0, 1.0, 1.0]]), 4).tolist()
    [1.0]
    """
    total = counts.sum(axis=1, keepdims=True)
    shares = safe_divide(counts, total)
    logs = np.log(np.where(shares > 0, shares, 1.0))
    entropy = -np.einsum("kj,kj->k", shares, logs)
    spread = np.broadcast_to(np.asarray(spread, dtype=np.float64), (len(counts),))
    scale = np.log(np.maximum(spread, 1.0))
    return np.where(total[:, 0] > 0, np.where(spread > 1, safe_divide(entropy, scale), 0.0),
                    np.nan)
