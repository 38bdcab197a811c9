"""One user's rows as every explanation reads them: the ground-truth ratings by item, and
the items a model ranked for the user in the order the metrics rank them; and numbers as the
written-out formulas show them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankmetrics.prepared.ranked_run import rank_order


def user_ratings(truth: pd.DataFrame, user: str) -> pd.Series:
    """The user's ground-truth ratings, indexed by item (the first row of an item counts)."""
    judged = truth.loc[truth["user"] == user, ["item", "rating"]].drop_duplicates("item")
    return pd.Series(judged["rating"].to_numpy(dtype=np.float64),
                     index=judged["item"].to_numpy())


def ranked_list(run: pd.DataFrame, user: str, ties: str) -> np.ndarray:
    """The items a model ranked for the user, best first, ordered as RankedRun orders them."""
    mine = run.loc[run["user"] == user, ["item", "score"]]
    items = mine["item"].reset_index(drop=True)
    scores = mine["score"].to_numpy(dtype=np.float64)
    order = rank_order(np.zeros(len(items), dtype=np.int64), scores, items, None, ties)
    return items.to_numpy() if order is None else items.to_numpy()[order]


def formula_number(value: float) -> str:
    """A gain as written in a formula: 1, 3, 0.5."""
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def four_decimals(value: float) -> str:
    """A value as the formulas show it: 0.5087."""
    return f"{value:.4f}"
