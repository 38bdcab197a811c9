"""Looking at users one by one: who each model serves worst, where two models disagree most,
two models head to head, a random user to explain, and how per-user values are spread.

Every function takes an evaluation (computed here or saved) and works on its per-user
values at one metric and cutoff (the users a model's means count, under its conventions).

>>> import pandas as pd
>>> from rankmetrics.evaluation import evaluate
>>> truth = pd.DataFrame({"user": ["a", "a", "b", "b"], "item": ["x", "y", "x", "y"],
...                       "rating": [1, 1, 1, 1]})
>>> good = pd.DataFrame({"user": ["a", "b"], "item": ["x", "x"], "score": [1.0, 1.0]})
>>> poor = pd.DataFrame({"user": ["a", "b"], "item": ["x", "z"], "score": [1.0, 1.0]})
>>> ev = evaluate(truth, {"good": good, "poor": poor}, max_cutoff=1)
>>> largest_disagreement(ev, "good", "poor", "ndcg", 1).user
'b'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.results import EvaluationResults
from rankmetrics.stats import paired_differences, restore_ties


@dataclass(frozen=True)
class Disagreement:
    """The user on whom two models' values differ most."""

    user: str
    value_a: float
    value_b: float

    @property
    def difference(self) -> float:
        """``value_b - value_a``."""
        return self.value_b - self.value_a


def worst_users(
    evaluation: EvaluationResults, model: str, metric: str, cutoff: int | None, *, count: int = 20
) -> pd.DataFrame:
    """The ``count`` users ``model`` serves worst at ``metric``@``cutoff``.

    Lowest value first; among equal values (to a relative precision of 1e-12:
    :func:`rankmetrics.stats.restore_ties`), users the other models serve best come first
    (they show what this model misses), then by user id. Columns: ``user``, ``relevant``
    (the user's relevant items), then one column per model with its value for the user (NaN
    where that model does not count the user), ``model``'s own column first.
    """
    check_int("count", count)
    own = evaluation.per_user_at(model, metric, cutoff).dropna()  # users without a value
    others = [m for m in evaluation.models if m != model]
    table = pd.DataFrame({model: own})
    for other in others:
        table[other] = evaluation.per_user_at(other, metric, cutoff).reindex(table.index)
    best_other = table[others].max(axis=1) if others else pd.Series(0.0, index=table.index)
    order = np.lexsort((
        table.index.to_numpy().astype(str),
        -restore_ties(best_other.fillna(-np.inf).to_numpy(dtype=np.float64)),
        restore_ties(table[model].to_numpy(dtype=np.float64)),
    ))
    chosen = table.iloc[order[:count]]
    relevant = pd.Series(evaluation.n_relevant, index=evaluation.users)
    out = chosen.reset_index(names="user")
    out.insert(1, "relevant", relevant.reindex(out["user"]).to_numpy())
    return out


def largest_disagreement(
    evaluation: EvaluationResults, model_a: str, model_b: str, metric: str, cutoff: int | None
) -> Disagreement | None:
    """The user with the largest ``|value_b - value_a|`` among users both models count
    (the first such user in ground-truth order on ties); None when they share no user."""
    both = head_to_head(evaluation, model_a, model_b, metric, cutoff)
    if both.empty:
        return None
    row = int(np.argmax(both["difference"].abs().to_numpy()))
    return Disagreement(str(both["user"].iloc[row]), float(both["value_a"].iloc[row]),
                        float(both["value_b"].iloc[row]))


def head_to_head(
    evaluation: EvaluationResults, model_a: str, model_b: str, metric: str, cutoff: int | None
) -> pd.DataFrame:
    """Two models' values user by user, on the users both count.

    Columns ``user``, ``value_a``, ``value_b`` and ``difference`` (``value_b - value_a``:
    positive where B serves the user better), in ground-truth user order.

    Differences are those of the paired tests (:func:`rankmetrics.stats.paired_differences`):
    a difference within 1e-12 of the larger absolute value of either model's values is 0 (the
    user is a tie), and differences that close to each other are the same float, so that
    values equal in exact arithmetic but computed apart (precision@3's ``1 - 2/3`` and
    ``1/3 - 0``) count as equal in the wins, ties and losses and in the largest gaps.

    >>> import pandas as pd
    >>> from rankmetrics.evaluation import evaluate
    >>> truth = pd.DataFrame({"user": ["a", "b"], "item": ["x", "x"], "rating": [1, 1]})
    >>> hit = pd.DataFrame({"user": ["a", "b"], "item": ["x", "x"], "score": [1.0, 1.0]})
    >>> half = pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"], "score": [1.0, 1.0]})
    >>> ev = evaluate(truth, {"hit": hit, "half": half}, max_cutoff=1)
    >>> head_to_head(ev, "half", "hit", "hit_rate", 1)["difference"].tolist()
    [0.0, 1.0]
    """
    if model_a == model_b:
        raise ValueError("Choose two different models to compare.")
    a = evaluation.per_user_at(model_a, metric, cutoff).rename("value_a")
    b = evaluation.per_user_at(model_b, metric, cutoff).rename("value_b")
    both = pd.concat([a, b], axis=1, join="inner").dropna()  # users without a value out
    both["difference"] = paired_differences(both["value_b"].to_numpy(dtype=np.float64),
                                            both["value_a"].to_numpy(dtype=np.float64))
    return both.reset_index(names="user")


def outcome_counts(pairs: pd.DataFrame) -> tuple[int, int, int]:
    """From a table of :func:`head_to_head`: the users B serves better (B's wins), the users
    both serve equally (ties) and those A serves better (B's losses), by the sign of its
    differences (0 for values equal to a relative precision of 1e-12); they are the
    ``wins``, ``ties`` and ``losses`` of :func:`rankmetrics.stats.paired_comparison` on
    the same users."""
    difference = pairs["difference"].to_numpy()
    return (int(np.count_nonzero(difference > 0)), int(np.count_nonzero(difference == 0)),
            int(np.count_nonzero(difference < 0)))


def biggest_differences(pairs: pd.DataFrame, *, count: int = 10) -> tuple[pd.DataFrame,
                                                                          pd.DataFrame]:
    """The users B beats A by most, and those A beats B by most.

    ``pairs`` is a table of :func:`head_to_head`. Each part holds at most ``count`` rows of
    it with a non-zero difference, largest gap first, then by user id; users with the same
    value under both models appear in neither.
    """
    check_int("count", count)
    users = pairs["user"].to_numpy().astype(str)
    difference = pairs["difference"].to_numpy()
    parts = []
    for sign in (1, -1):
        gap = sign * difference
        chosen = np.flatnonzero(gap > 0)
        order = chosen[np.lexsort((users[chosen], -gap[chosen]))][:count]
        parts.append(pairs.iloc[order].reset_index(drop=True))
    return parts[0], parts[1]


def surprise_user(evaluation: EvaluationResults, model: str, seed: int) -> str | None:
    """A random user among those ``model`` counts, the same for the same seed (None if the
    model counts no user)."""
    users = evaluation.users[evaluation.included(model)]
    if len(users) == 0:
        return None
    return str(users[int(np.random.default_rng(seed).integers(len(users)))])


def distribution_summary(
    evaluation: EvaluationResults, metric: str, cutoff: int | None
) -> pd.DataFrame:
    """Per model: users counted, mean, median, share of users at exactly 0, and the 10th and
    90th percentiles of the per-user values."""
    rows = []
    for model in evaluation.models:
        values = evaluation.per_user_at(model, metric, cutoff).to_numpy(dtype=np.float64)
        values = values[~np.isnan(values)]  # a user without a value (no item seen in training)
        empty = len(values) == 0
        rows.append({
            "model": model,
            "users": len(values),
            "mean": np.nan if empty else float(values.mean()),
            "median": np.nan if empty else float(np.median(values)),
            "share_zero": np.nan if empty else float(np.mean(values == 0)),
            "p10": np.nan if empty else float(np.quantile(values, 0.1)),
            "p90": np.nan if empty else float(np.quantile(values, 0.9)),
        })
    return pd.DataFrame(rows)
