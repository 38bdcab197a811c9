"""Two models' lists for one user side by side, rank by rank, hits marked, and where each
model ranked the user's ground-truth items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.conventions import Conventions
from rankmetrics.explain.rows import ranked_list, user_ratings
from rankmetrics.metrics import judge
from rankmetrics.relevance import RelevanceMapping


@dataclass(frozen=True)
class SideBySide:
    """Two models' top-K lists for one user, rank by rank, and the user's ground truth.

    Attributes
    ----------
    user : str
    cutoff : int
        K.
    lists : DataFrame
        One row per rank 1..K (fewer when both lists are shorter): ``rank``, then for each
        model (suffix ``_a`` or ``_b``) the ``item`` at that rank, its ``rating`` (NaN: no
        ground truth) and ``hit`` (the item is relevant under the relevance mapping);
        item None and hit False where that model's list has ended.
    truth : DataFrame
        The user's ground-truth items, highest grade first (then rating, then item id):
        ``item``, ``rating``, ``grade``, ``relevant``, and ``rank_a`` / ``rank_b``, the
        item's rank in each model's whole list (missing when the model did not rank it).
    """

    user: str
    cutoff: int
    lists: pd.DataFrame
    truth: pd.DataFrame


def side_by_side(
    truth: pd.DataFrame,
    run_a: pd.DataFrame,
    run_b: pd.DataFrame,
    user: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
) -> SideBySide:
    """One user's top K from two models next to each other, hits marked, and where each
    model ranked the user's ground-truth items.

    Items are ordered as :func:`rankmetrics.explain.explain_ndcg` and the metrics order them
    (score descending, then the tie rule of ``conventions``). Tables as for
    :func:`rankmetrics.explain.explain_ndcg`.

    >>> truth = pd.DataFrame({"user": ["u"] * 2, "item": ["A", "C"], "rating": [1, 1]})
    >>> run_a = pd.DataFrame({"user": ["u"] * 3, "item": list("ABC"), "score": [3, 2, 1]})
    >>> run_b = pd.DataFrame({"user": ["u"] * 2, "item": list("CD"), "score": [2, 1]})
    >>> both = side_by_side(truth, run_a, run_b, "u", cutoff=3)
    >>> both.lists[["item_a", "hit_a", "item_b", "hit_b"]].values.tolist()
    [['A', True, 'C', True], ['B', False, 'D', False], ['C', True, None, False]]
    >>> both.truth[["item", "rank_a", "rank_b"]].values.tolist()
    [['A', 1, <NA>], ['C', 3, 1]]
    """
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    cutoff = check_int("cutoff", cutoff)
    ratings = user_ratings(truth, user)
    judged = judge(ratings.to_numpy(), relevance, conventions)
    grades = judged.grades
    relevant = pd.Series(judged.relevant, index=ratings.index)
    ranked = {side: ranked_list(run, user, conventions.ties, conventions.identical_ids)
              for side, run in (("a", run_a), ("b", run_b))}
    length = max(min(len(items), cutoff) for items in ranked.values())
    # Position -1 (an item without ground truth, or past the end of a list) reads the
    # appended "no rating, not relevant".
    rating_of = np.append(ratings.to_numpy(), np.nan)
    relevant_of = np.append(relevant.to_numpy(dtype=bool), False)
    lists = pd.DataFrame({"rank": np.arange(1, length + 1)})
    for side, items in ranked.items():
        top = [str(item) for item in items[:length]]
        rating_row = np.full(length, -1, dtype=np.int64)
        rating_row[:len(top)] = ratings.index.get_indexer(pd.Index(items[:length]))
        lists[f"item_{side}"] = pd.Series(top + [None] * (length - len(top)), dtype="object")
        lists[f"rating_{side}"] = rating_of[rating_row]
        lists[f"hit_{side}"] = relevant_of[rating_row]
    table = pd.DataFrame({
        "item": pd.Series(ratings.index, dtype="str"),
        "rating": ratings.to_numpy(),
        "grade": grades,
        "relevant": relevant.to_numpy(),
    })
    for side, items in ranked.items():
        position = pd.Series(np.arange(1, len(items) + 1), index=pd.Index(items).astype(str))
        position = position[~position.index.duplicated()]
        table[f"rank_{side}"] = pd.array(position.reindex(table["item"]).to_numpy(),
                                         dtype="Int64")
    order = np.lexsort((table["item"].to_numpy(), -table["rating"].to_numpy(),
                        -table["grade"].to_numpy()))
    return SideBySide(str(user), cutoff, lists, table.iloc[order].reset_index(drop=True))
