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

from dataclasses import dataclass

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


def shared_by_depth(lists_a: np.ndarray, lists_b: np.ndarray) -> np.ndarray:
    """:math:`X_d`, the items two users x width matrices of item codes (-1: no item; no
    item twice in a row) share within their first d ranks, for d = 1..width: int (users x
    width).

    >>> shared_by_depth(np.array([[1, 2, 3]]), np.array([[3, 2, -1]])).tolist()
    [[0, 1, 2]]
    """
    a, b = _widened(lists_a, lists_b)
    n_users, width = a.shape
    if not n_users or not width:
        return np.zeros((n_users, width), dtype=np.int64)
    # each user's two lists side by side, sorted within the row: an item both hold comes
    # twice in a row, once from A's columns (< width) and once from B's
    both = np.concatenate([a, b], axis=1)
    order = np.argsort(both, axis=1)
    ranked = np.take_along_axis(both, order, axis=1)
    user, column = np.nonzero((ranked[:, 1:] == ranked[:, :-1]) & (ranked[:, 1:] >= 0))
    first, second = order[user, column], order[user, column + 1]
    # a shared item counts from the depth at which both lists hold it
    depth = np.maximum(np.minimum(first, second), np.maximum(first, second) - width)
    counts = np.bincount(user * width + depth, minlength=n_users * width)
    return np.cumsum(counts.reshape(n_users, width), axis=1)


def _widened(lists_a: np.ndarray, lists_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both matrices at the wider one's width (-1 past a list's end)."""
    a, b = np.asarray(lists_a), np.asarray(lists_b)
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"The two models' lists are of {a.shape[0]} and {b.shape[0]} users: "
                         "give both for the same users, in the same order.")
    width = max(a.shape[1], b.shape[1])
    return (np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=-1),
            np.pad(b, ((0, 0), (0, width - b.shape[1])), constant_values=-1))


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


@dataclass(frozen=True)
class ListOverlap:
    """Two models' lists compared: each user's values at every K and their means.

    Attributes
    ----------
    model_a, model_b : str
    persistence : float
        Rank-biased overlap's p.
    values : dict of measure -> DataFrame
        Each counted user's value (rows, indexed by user) at K = 1..width (columns).
    """

    model_a: str
    model_b: str
    persistence: float
    values: dict[str, pd.DataFrame]

    @property
    def n_users(self) -> int:
        """The users the means are over."""
        return len(self.values["jaccard"])

    def curves(self) -> pd.DataFrame:
        """The mean of each measure at every K: rows K, columns :data:`MEASURES`."""
        means = {measure: self.values[measure].mean(axis=0) for measure in MEASURES}
        curves = pd.DataFrame(means)
        curves.index.name = "cutoff"
        return curves

    def at(self, cutoff: int) -> pd.DataFrame:
        """Every counted user's value of each measure at K = ``cutoff`` (past the longest
        list, the value at the longest: nothing changes there)."""
        column = min(int(cutoff), self.values["jaccard"].shape[1])
        return pd.DataFrame({measure: self.values[measure][column]
                             for measure in MEASURES})


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
    values = list_agreement(lists_a[counted], lists_b[counted], persistence=persistence)
    every_user = np.arange(len(counted)) if users is None else np.asarray(users)
    index = pd.Index(every_user[counted], name="user")
    columns = pd.RangeIndex(1, width + 1, name="cutoff")
    return ListOverlap(model_a, model_b, float(persistence), {
        measure: pd.DataFrame(values[measure], index=index, columns=columns)
        for measure in MEASURES})
