r"""How much two models' lists have in common, user by user and at every K: the overlap of
their top K and Rank-Biased Overlap.

For one user, let :math:`A_K` and :math:`B_K` be the two models' top K (fewer items where a
list is shorter) and :math:`X_d = |A_d \cap B_d|` the items the two top d share.

- ``jaccard``: :math:`|A_K \cap B_K| / |A_K \cup B_K|`, from 0 (nothing in common) to 1 (the
  same items, in any order).
- ``share_a_in_b``: :math:`|A_K \cap B_K| / |A_K|`, the share of model A's top K that model B
  also recommends in its top K; ``share_b_in_a`` the other way round.
- ``rbo``: extrapolated Rank-Biased Overlap (Webber, Moffat and Zobel, *A similarity measure
  for indefinite rankings*, TOIS 2010, equation 32) with persistence p: the overlap at each
  depth weighted by :math:`p^{d-1}`, so that agreement at the top counts most (with p = 0.9
  the first 10 ranks carry 86% of the weight): 1 for the same list, 0 for lists with nothing
  in common.

For two top K of the same length k, Rank-Biased Overlap is

.. math:: \mathrm{RBO_{ext}} = \frac{X_k}{k} p^k + \frac{1-p}{p} \sum_{d=1}^{k} \frac{X_d}{d} p^d

and, where one list (of length s) is shorter than the other (of length l), equation 32 adds
terms for the ranks past the short list's end.

Two empty top K are the same list (every measure 1); an empty one against a non-empty one
shares nothing (0). The means are over the users at least one of the two models gave a list
to; users given a list by neither are left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from rankmetrics.beyond import BeyondInputs
from rankmetrics.evaluation import Evaluation

#: The measures, in the order tables show them.
MEASURES = ("jaccard", "share_a_in_b", "share_b_in_a", "rbo")

#: The persistence p of Rank-Biased Overlap unless another is given.
DEFAULT_PERSISTENCE = 0.9


def measure_title(measure: str, model_a: str = "A", model_b: str = "B",
                  persistence: float = DEFAULT_PERSISTENCE) -> str:
    """The measure in words, naming the models.

    >>> measure_title("share_a_in_b", "als", "bpr")
    "Share of als's top K also in bpr's"
    """
    return {
        "jaccard": "Items in common (Jaccard)",
        "share_a_in_b": f"Share of {model_a}'s top K also in {model_b}'s",
        "share_b_in_a": f"Share of {model_b}'s top K also in {model_a}'s",
        "rbo": f"Rank-biased overlap (RBO, p = {persistence:g})",
    }[measure]


def check_persistence(persistence: float) -> float:
    """The persistence as a float, checked to lie strictly between 0 and 1."""
    if isinstance(persistence, bool) or not isinstance(persistence, (int, float, np.floating)):
        raise ValueError(f"The persistence of rank-biased overlap must be a number between 0 "
                         f"and 1 (0.9 weights the first 10 ranks most); got {persistence!r}.")
    if not 0.0 < float(persistence) < 1.0:
        raise ValueError(f"The persistence of rank-biased overlap must be between 0 and 1, "
                         f"both left out (0.9 weights the first 10 ranks most); got "
                         f"{persistence!r}.")
    return float(persistence)


#: Users whose lists are sorted together when finding the items two lists share (bounds the
#: memory of the keys sorted at once).
USERS_PER_SORT = 16_384


def shared_ranks(lists_a: np.ndarray, lists_b: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every item two users x width matrices of item codes (-1: no item; no item twice in a
    row) both hold: its user, its 0-based rank in A and its 0-based rank in B, sorted by user.

    Each row's codes and columns are packed in one unsigned key, code above, column below,
    and the row sorted: an item both lists hold comes twice in a row, from A's column first.

    >>> [values.tolist() for values in shared_ranks(np.array([[1, 2, 3]]),
    ...                                             np.array([[3, 2, -1]]))]
    [[0, 0], [1, 2], [1, 0]]
    """
    a, b = _widened(lists_a, lists_b)
    width = a.shape[1]
    users, ranks_a, ranks_b = [], [], []
    for start, flat, same, low in _sorted_blocks(a, b):
        at = np.flatnonzero(same)  # positions in ``flat`` of the keys from A's columns
        users.append(at // (2 * width) + start)
        ranks_a.append((flat[at] & low).astype(np.int64))
        ranks_b.append((flat[at + 1] & low).astype(np.int64) - width)
    if not users:
        return (np.zeros(0, dtype=np.int64),) * 3
    return np.concatenate(users), np.concatenate(ranks_a), np.concatenate(ranks_b)


def _sorted_blocks(a: np.ndarray, b: np.ndarray
                   ) -> Iterator[tuple[int, np.ndarray, np.ndarray, Any]]:
    """Each block of users' two lists (of one width) as packed keys, code above and column
    below, sorted within each row: (first user, the keys flattened, whether each key and the
    next are one item of both lists, the mask of the column bits). The arrays are buffers
    that the next block writes over."""
    n_users, width = a.shape
    if not n_users or not width:
        return
    column_bits = int(2 * width - 1).bit_length()
    highest = int(max(a.max(), b.max())) + 1  # codes are shifted by 1: -1 becomes 0
    dtype = np.uint32 if highest.bit_length() + column_bits <= 32 else np.uint64
    columns = np.arange(2 * width, dtype=dtype)
    low = dtype((1 << column_bits) - 1)
    rows = min(USERS_PER_SORT, n_users)
    # buffers used block after block (fresh memory for each would cost its page faults)
    keys_buffer = np.empty((rows, 2 * width), dtype=dtype)
    codes_buffer = np.empty(rows * 2 * width, dtype=dtype)
    same_buffer = np.empty((2, rows * 2 * width - 1), dtype=bool)
    for start in range(0, n_users, USERS_PER_SORT):
        stop = min(start + USERS_PER_SORT, n_users)
        keys = keys_buffer[:stop - start]
        np.copyto(keys[:, :width], a[start:stop], casting="unsafe")
        np.copyto(keys[:, width:], b[start:stop], casting="unsafe")
        keys += dtype(1)
        keys <<= dtype(column_bits)
        keys |= columns
        keys.sort(axis=1)
        flat = keys.ravel()
        codes = np.right_shift(flat, dtype(column_bits), out=codes_buffer[:len(flat)])
        same = np.equal(codes[1:], codes[:-1], out=same_buffer[0, :len(flat) - 1])
        same &= np.not_equal(codes[1:], 0, out=same_buffer[1, :len(flat) - 1])  # an item
        same[2 * width - 1::2 * width] = False  # a row's last key against the next row's
        yield start, flat, same, low


def shared_depths(lists_a: np.ndarray, lists_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(user, depth) of every item two lists share, the depth 0-based: the item is in both
    top K from K = depth + 1 on (see :func:`shared_ranks`).

    >>> [values.tolist() for values in shared_depths(np.array([[1, 2, 3]]),
    ...                                              np.array([[3, 2, -1]]))]
    [[0, 0], [1, 2]]
    """
    user, rank_a, rank_b = shared_ranks(lists_a, lists_b)
    return user, np.maximum(rank_a, rank_b)


def shared_by_depth(lists_a: np.ndarray, lists_b: np.ndarray) -> np.ndarray:
    """:math:`X_d`, the items two users x width matrices of item codes (-1: no item; no
    item twice in a row) share within their first d ranks, for d = 1..width: int (users x
    width).

    >>> shared_by_depth(np.array([[1, 2, 3]]), np.array([[3, 2, -1]])).tolist()
    [[0, 1, 2]]
    """
    a, b = _widened(lists_a, lists_b)
    n_users, width = a.shape
    user, depth = shared_depths(a, b)
    counts = np.bincount(user * width + depth, minlength=n_users * width)
    return np.cumsum(counts.reshape(n_users, width), axis=1)


def _widened(lists_a: np.ndarray, lists_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both matrices at the wider one's width (-1 past a list's end; no copy when they are of
    one width)."""
    a, b = np.asarray(lists_a), np.asarray(lists_b)
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"The two models' lists are of {a.shape[0]} and {b.shape[0]} users: "
                         "give both for the same users, in the same order.")
    width = max(a.shape[1], b.shape[1])
    if a.shape[1] < width:
        a = np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=-1)
    if b.shape[1] < width:
        b = np.pad(b, ((0, 0), (0, width - b.shape[1])), constant_values=-1)
    return a, b


def list_agreement(lists_a: np.ndarray, lists_b: np.ndarray, *,
                   persistence: float = DEFAULT_PERSISTENCE) -> dict[str, np.ndarray]:
    """Every measure of :data:`MEASURES` for every user at every K = 1..width.

    Parameters
    ----------
    lists_a, lists_b : int arrays (users x width)
        Each user's top items from two models as item codes shared by both (-1 past a list's
        end; an item at most once in a list), the same users in the same order.
    persistence : float, default 0.9
        Rank-biased overlap's p, between 0 and 1.

    Returns
    -------
    dict of measure -> float array (users x width), column K - 1 the value at K

    Examples
    --------
    >>> values = list_agreement(np.array([[1, 2, 3]]), np.array([[2, 1, 4]]))
    >>> values["jaccard"].round(3).tolist(), values["share_a_in_b"].round(3).tolist()
    ([[0.0, 1.0, 0.5]], [[0.0, 1.0, 0.667]])
    """
    p = check_persistence(persistence)
    a, b = _widened(lists_a, lists_b)
    n_users, width = a.shape
    shared = shared_by_depth(a, b).astype(np.float64)
    cutoffs = np.arange(1, width + 1)
    length_a = np.minimum((a >= 0).sum(axis=1)[:, None], cutoffs)  # |A_K|
    length_b = np.minimum((b >= 0).sum(axis=1)[:, None], cutoffs)
    both_empty = (length_a == 0) & (length_b == 0)

    def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
        out = np.where(both_empty, 1.0, 0.0)
        np.divide(numerator, denominator, out=out, where=denominator > 0)
        return out

    at_k = shared  # X_K: what the two top K share
    values = {
        "jaccard": ratio(at_k, length_a + length_b - at_k),
        "share_a_in_b": ratio(at_k, length_a),
        "share_b_in_a": ratio(at_k, length_b),
        "rbo": _rbo(shared, np.minimum(length_a, length_b), np.maximum(length_a, length_b),
                    p, both_empty),
    }
    return values


def _rbo(shared: np.ndarray, short: np.ndarray, long: np.ndarray, p: float,
         both_empty: np.ndarray) -> np.ndarray:
    """Extrapolated RBO (Webber et al. 2010, equation 32) at every K, from the shared items
    by depth and each K's shorter (s) and longer (l) top K.

    Where both top K hold K items (s = l = K, most cells) the equation is
    (1 - p) / p sum_{d <= K} X_d / d p^d + X_K / K p^K; the rest, where a list ends before K,
    are computed with the terms past the short list's end, cell by cell."""
    n_users, width = shared.shape
    depth = np.arange(1, width + 1, dtype=np.float64)
    power = p ** depth                                  # p^d, d = 1..width
    running = np.cumsum(shared / depth * power, axis=1)  # sum_{d <= K} X_d / d p^d
    rbo = (1.0 - p) / p * running + shared / depth * power
    row, column = np.nonzero((short != depth) | (long != depth))
    if len(row):
        s_, l_ = short[row, column], long[row, column]

        def at(values: np.ndarray, k: np.ndarray) -> np.ndarray:
            """values at K = k for the cells (0 at k = 0)."""
            return np.where(k > 0, values[row, np.maximum(k, 1) - 1], 0.0)

        powers = np.concatenate([[0.0], np.cumsum(power)])             # sum p^d
        per_depth = np.concatenate([[0.0], np.cumsum(power / depth)])  # sum p^d / d
        x_long, x_short = at(shared, l_), at(shared, s_)
        s = np.maximum(s_, 1).astype(np.float64)
        l = np.maximum(l_, 1).astype(np.float64)  # noqa: E741 (the paper's l)
        # ranks s + 1..l: the short list's items found at depth d count as X_s (d - s) / (s d)
        past_short = x_short / s * ((powers[l_] - powers[s_])
                                    - s * (per_depth[l_] - per_depth[s_]))
        tail = ((x_long - x_short) / l + x_short / s) * p ** l_
        cells = (1.0 - p) / p * (at(running, l_) + past_short) + tail
        rbo[row, column] = np.where(s_ == 0, 0.0, cells)
    return np.where(both_empty, 1.0, rbo)


def _full(lists: np.ndarray) -> np.ndarray:
    """Which users' lists fill every column."""
    return lists[:, -1] >= 0 if lists.shape[1] else np.ones(len(lists), dtype=bool)


def _rows(lists: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``lists[keep]``, without a copy when every row is kept."""
    return lists if keep.all() else lists[keep]


def summed_agreement(lists_a: np.ndarray, lists_b: np.ndarray, *,
                     persistence: float = DEFAULT_PERSISTENCE) -> dict[str, np.ndarray]:
    """Every measure of :data:`MEASURES` summed over the users at every K = 1..width, as the
    sum of :func:`list_agreement`'s values, without its users x width matrices where the two
    lists of a user fill every rank (the usual case).

    For such a user, at every K both top K hold K items, so the shares (X_K / K) and
    rank-biased overlap are sums of X_d over users, found from the depths of the shared
    items alone; Jaccard, X_K / (2K - X_K), is summed over the users sharing an item (the
    others add 0). The users with a shorter list are summed from their values.

    >>> sums = summed_agreement(np.array([[1, 2], [3, 4]]), np.array([[2, 1], [5, -1]]))
    >>> sums["jaccard"].tolist(), sums["share_a_in_b"].tolist()
    ([0.0, 1.0], [0.0, 1.0])
    """
    p = check_persistence(persistence)
    a, b = _widened(lists_a, lists_b)
    full = _full(a) & _full(b)
    sums = _full_list_sums(_rows(a, full), _rows(b, full), p)
    if not full.all():
        short = list_agreement(a[~full], b[~full], persistence=p)
        for measure in MEASURES:
            sums[measure] = sums[measure] + short[measure].sum(axis=0)
    return sums


def _full_list_sums(a: np.ndarray, b: np.ndarray, p: float) -> dict[str, np.ndarray]:
    """:func:`summed_agreement` of users whose two lists fill every rank, a block of users
    at a time: each user's X_K from the depths of the shared items, read one by one where
    the lists share few, or from every position of the sorted keys where they share many
    (no list of entries to gather)."""
    n_users, width = a.shape
    depth = np.arange(1, width + 1, dtype=np.float64)
    shared = np.zeros(width)  # sum over users of X_K
    jaccard = np.zeros(width)
    offsets = np.zeros(0, dtype=np.int32)
    for _, flat, same, low in _sorted_blocks(a, b):
        rows = len(flat) // (2 * width)
        if np.count_nonzero(same) * 4 > rows * width:  # most items shared
            # the depth at every position: where the key and the next are one item, the
            # larger of A's rank and B's (the next key's column minus the width); else width
            columns = (flat & low).astype(np.int32)
            found = columns[1:] - width
            np.maximum(found, columns[:-1], out=found)
            found[~same] = width
            if len(offsets) != len(found):  # each position's row, as row x (width + 1)
                offsets = np.repeat(np.arange(rows, dtype=np.int32) * (width + 1),
                                    2 * width)[:-1]
            found += offsets
            counts = np.bincount(found, minlength=rows * (width + 1)).reshape(
                rows, width + 1)[:, :width]
        else:  # only the users sharing an item (the others add 0), numbered 0, 1, ...
            at = np.flatnonzero(same)
            found = np.maximum((flat[at] & low).astype(np.int64),
                               (flat[at + 1] & low).astype(np.int64) - width)
            row = at // (2 * width)
            first = np.ones(len(row), dtype=bool)
            np.not_equal(row[1:], row[:-1], out=first[1:])
            sharing = int(np.count_nonzero(first))
            counts = np.bincount((np.cumsum(first) - 1) * width + found,
                                 minlength=sharing * width).reshape(sharing, width)
        x = np.cumsum(counts, axis=1)
        shared += x.sum(axis=0)
        jaccard += (x / (2.0 * depth - x)).sum(axis=0)
    power = p ** depth
    rbo = (1.0 - p) / p * np.cumsum(shared / depth * power) + shared / depth * power
    return {"jaccard": jaccard, "share_a_in_b": shared / depth,
            "share_b_in_a": shared / depth, "rbo": rbo}


def _full_list_values(a: np.ndarray, b: np.ndarray, p: float, cutoff: int
                      ) -> dict[str, np.ndarray]:
    """Every measure of each user at K = ``cutoff`` (at most the width), for users whose two
    lists fill every rank: from the shared items' depths, X_K and
    sum_{d <= K} X_d p^d / d per user."""
    n_users, width = a.shape
    user, first_depth = shared_depths(a, b)
    within = first_depth < cutoff
    user, first_depth = user[within], first_depth[within]
    x = np.bincount(user, minlength=n_users).astype(np.float64)
    depth = np.arange(1, width + 1, dtype=np.float64)
    per_depth = np.concatenate([[0.0], np.cumsum(p ** depth / depth)])  # sum_{d <= j} p^d / d
    # an item shared from depth t + 1 on adds p^d / d at each depth d = t + 1..K
    running = np.bincount(user, weights=per_depth[cutoff] - per_depth[first_depth],
                          minlength=n_users)
    k = float(cutoff)
    return {"jaccard": x / (2.0 * k - x), "share_a_in_b": x / k, "share_b_in_a": x / k,
            "rbo": (1.0 - p) / p * running + x / k * p ** k}


@dataclass(frozen=True, eq=False)
class ListOverlap:
    """Two models' lists compared: each user's values at every K and their means.

    Attributes
    ----------
    model_a, model_b : str
    persistence : float
        Rank-biased overlap's p.
    users : Index
        The users the means are over: those at least one of the models gave a list to.
    lists_a, lists_b : int arrays (users x largest K)
        Those users' top items from each model, as item codes shared by both (-1 past a
        list's end).
    """

    model_a: str
    model_b: str
    persistence: float
    users: pd.Index
    lists_a: np.ndarray
    lists_b: np.ndarray

    @property
    def n_users(self) -> int:
        """The users the means are over."""
        return len(self.users)

    @property
    def max_cutoff(self) -> int:
        """The largest K compared."""
        return int(self.lists_a.shape[1])

    @cached_property
    def _curves(self) -> pd.DataFrame:
        sums = summed_agreement(self.lists_a, self.lists_b, persistence=self.persistence)
        count = max(self.n_users, 1)
        curves = pd.DataFrame({measure: sums[measure] / count for measure in MEASURES},
                              index=pd.RangeIndex(1, self.max_cutoff + 1, name="cutoff"))
        return curves if self.n_users else curves * np.nan

    def curves(self) -> pd.DataFrame:
        """The mean of each measure at every K: rows K, columns :data:`MEASURES` (NaN when
        no user has a list)."""
        return self._curves.copy()

    def at(self, cutoff: int) -> pd.DataFrame:
        """Every counted user's value of each measure at K = ``cutoff`` (past the largest K,
        the value at the largest: nothing changes there): rows users, columns
        :data:`MEASURES`."""
        cutoff = min(int(cutoff), self.max_cutoff)
        if cutoff < 1:
            raise ValueError(f"K must be at least 1; got {cutoff}.")
        a, b = self.lists_a[:, :cutoff], self.lists_b[:, :cutoff]
        full = _full(a) & _full(b)
        values = {measure: np.zeros(self.n_users) for measure in MEASURES}
        found = _full_list_values(_rows(a, full), _rows(b, full), self.persistence, cutoff)
        if not full.all():
            short = list_agreement(a[~full], b[~full], persistence=self.persistence)
        for measure in MEASURES:
            values[measure][full] = found[measure]
            if not full.all():
                values[measure][~full] = short[measure][:, -1]
        return pd.DataFrame(values, index=self.users)

    def per_user(self) -> dict[str, pd.DataFrame]:
        """Each counted user's value of each measure at every K: measure -> DataFrame (rows
        users, columns K = 1..the largest K)."""
        values = list_agreement(self.lists_a, self.lists_b, persistence=self.persistence)
        columns = pd.RangeIndex(1, self.max_cutoff + 1, name="cutoff")
        return {measure: pd.DataFrame(values[measure], index=self.users, columns=columns)
                for measure in MEASURES}


def list_overlap(source: Evaluation | BeyondInputs, model_a: str, model_b: str, *,
                 users: pd.Index | np.ndarray | None = None,
                 persistence: float = DEFAULT_PERSISTENCE,
                 max_cutoff: int | None = None) -> ListOverlap:
    """How much two models' top K have in common for each user, at K = 1..``max_cutoff``.

    Parameters
    ----------
    source : Evaluation or BeyondInputs
        An evaluation made with the models' whole lists (any beyond-accuracy input, for
        example ``evaluate(..., catalogue="all")``), or the lists themselves
        (:func:`rankmetrics.beyond.prepare_beyond`).
    model_a, model_b : str
        Two models of ``source``.
    users : the ground-truth users, in the order of the lists
        Read from the evaluation; needed with BeyondInputs (default: 0, 1, 2...).
    persistence : float, default 0.9
        Rank-biased overlap's p.
    max_cutoff : int, optional
        The largest K (default: the evaluation's largest K, or the longest list read).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankmetrics import evaluate
    >>> truth = pd.DataFrame({"user": ["u1"], "item": ["a"], "rating": [1]})
    >>> runs = {name: pd.DataFrame({"user": "u1", "item": list(items), "score": [3, 2, 1]})
    ...         for name, items in (("als", "abc"), ("bpr", "bad"))}
    >>> overlap = list_overlap(evaluate(truth, runs, max_cutoff=3, catalogue="all"),
    ...                        "als", "bpr")
    >>> overlap.curves()["jaccard"].round(3).tolist()
    [0.0, 1.0, 0.5]
    """
    if isinstance(source, BeyondInputs):
        inputs = source
    else:
        if source.beyond_inputs is None:
            raise ValueError("Comparing two models' lists needs their whole lists: evaluate "
                             "with a beyond-accuracy input, for example catalogue=\"all\".")
        inputs = source.beyond_inputs
        users = source.truth.user_ids.to_pandas() if users is None else users
        max_cutoff = source.max_cutoff if max_cutoff is None else max_cutoff
    for model in (model_a, model_b):
        if model not in inputs.lists:
            raise ValueError(f"No model named {model!r}: the models are "
                             f"{', '.join(map(repr, inputs.lists))}.")
    lists_a, lists_b = _widened(inputs.lists[model_a], inputs.lists[model_b])
    width = lists_a.shape[1] if max_cutoff is None else int(max_cutoff)
    if width < 1:
        raise ValueError(f"The largest K must be at least 1; got {max_cutoff!r}.")
    lists_a, lists_b = lists_a[:, :width], lists_b[:, :width]
    if lists_a.shape[1] < width:  # every K up to the one asked for
        pad = ((0, 0), (0, width - lists_a.shape[1]))
        lists_a = np.pad(lists_a, pad, constant_values=-1)
        lists_b = np.pad(lists_b, pad, constant_values=-1)
    counted = (lists_a[:, 0] >= 0) | (lists_b[:, 0] >= 0)
    check_persistence(persistence)
    every_user = np.arange(len(counted)) if users is None else np.asarray(users)
    if len(every_user) != len(counted):
        raise ValueError(f"{len(every_user)} users were given for lists of {len(counted)}.")
    return ListOverlap(model_a, model_b, float(persistence),
                       pd.Index(every_user[counted], name="user"),
                       _rows(lists_a, counted), _rows(lists_b, counted))
