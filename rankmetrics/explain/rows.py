"""One user's rows as every explanation reads them: the ground-truth ratings by item, and
the items a model ranked for the user in the order the metrics rank them; and numbers as the
written-out formulas show them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from rankmetrics.conventions import Conventions
from rankmetrics.prepared.ranked_run import rank_order
from rankmetrics.relevance import RelevanceMapping


def user_ratings(truth: pd.DataFrame, user: str) -> pd.Series:
    """The user's ground-truth ratings, indexed by item (the first row of an item counts)."""
    judged = truth.loc[truth["user"] == user, ["item", "rating"]].drop_duplicates("item")
    return pd.Series(judged["rating"].to_numpy(dtype=np.float64),
                     index=judged["item"].to_numpy())


def ranked_list(run: pd.DataFrame, user: str, ties: str, identical_ids: str = "keep"
                ) -> np.ndarray:
    """The items a model ranked for the user, best first, ordered as RankedRun orders them
    (without an item whose id is the user's id when ``identical_ids`` is "drop")."""
    mine = run.loc[run["user"] == user, ["item", "score"]]
    if identical_ids == "drop":
        mine = mine.loc[mine["item"].astype(str) != str(user)]
    items = mine["item"].reset_index(drop=True)
    scores = mine["score"].to_numpy(dtype=np.float64)
    order = rank_order(np.zeros(len(items), dtype=np.int64), scores, items, None, ties)
    return items.to_numpy() if order is None else items.to_numpy()[order]


def counted_ratings(ratings: pd.Series, ranked_items: np.ndarray,
                    conventions: Conventions) -> pd.Series:
    """The user's ratings the metrics count: all of them, or with ``relevant_items="in_list"``
    those of the items the model listed (what a library given only the list's rows sees)."""
    if conventions.relevant_items == "in_list":
        return ratings[ratings.index.isin(ranked_items)]
    return ratings


def formula_number(value: float) -> str:
    """A gain as written in a formula: 1, 3, 0.5."""
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def four_decimals(value: float) -> str:
    """A value as the formulas show it: 0.5087."""
    return f"{value:.4f}"


def evaluated_value(truth: pd.DataFrame, run: pd.DataFrame, user: str, metric: str, cutoff: int,
               relevance: RelevanceMapping, conventions: Conventions) -> float:
    """The metric of one user from :func:`rankmetrics.evaluate` on that user's rows."""
    from rankmetrics.evaluation import evaluate

    theirs = truth.loc[truth["user"] == user, ["user", "item", "rating"]]
    mine = run.loc[run["user"] == user, ["user", "item", "score"]]
    counted = replace(conventions, empty_users="zero", missing_users="zero")
    ev = evaluate(theirs, {"model": mine}, relevance=relevance, conventions=counted,
                  max_cutoff=cutoff)
    return float(ev.per_user_at("model", metric, cutoff).iloc[0])


def threshold_variants(relevance: RelevanceMapping,
                        ratings: pd.Series) -> list[tuple[str, RelevanceMapping]]:
    """The relevance mapping with each threshold the user's ratings make a difference at."""
    values = ratings.to_numpy(dtype=np.float64)
    if relevance.kind == "binary":
        current = float(relevance.table[0][0])
        ratings_seen = sorted({float(v) for v in values if np.isfinite(v)} | {current})
        return [(f"rating ≥ {formula_number(t)}", RelevanceMapping.binary(t)) for t in ratings_seen]
    grades = relevance.grades(values)
    levels = sorted({float(g) for g in grades if g > 0} | {relevance.threshold})
    return [(f"grade ≥ {formula_number(t)}", replace(relevance, threshold=t)) for t in levels]
