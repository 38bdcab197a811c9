"""Sums of metric values over users at every cutoff, and the counts of users they are over.

Every mean rankmetrics reports is a sum over users divided by a count of users, and sums and
counts add up: the sums of two groups of users, added, are the sums of all of them. That is
what lets users be split over machines (see :mod:`rankmetrics.partition`): each part of the
users gives its :class:`UserSums`, :func:`add_sums` adds them, and :meth:`UserSums.means`
divides once at the end, exactly as one machine does with all the users at once.

Sums are kept at cutoffs 1..``width``: beyond the last cutoff at which a value can change
(see :attr:`rankmetrics.Evaluation.width`), a metric keeps its value, or falls as 1/K when
it is divided by K (:func:`extend_values`), so two parts with different widths are added
after extending the narrower one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankmetrics.metrics import METRICS

#: The user counts each model's sums come with (the columns of ``Evaluation.user_counts``
#: that add up over parts of the users).
COUNTS = ("users", "ground_truth_users", "no_relevant_items", "missing_from_model",
          "unknown_to_ground_truth")


def extend_values(values: np.ndarray, cutoffs: Iterable[int], last: int, *,
                  divided_by_cutoff: bool) -> np.ndarray:
    """Values at the given cutoffs from values at cutoffs ``last - n + 1 .. last`` on the last
    axis (n its length): beyond ``last`` a metric keeps its last value, or, divided by K
    (``divided_by_cutoff``), falls as 1/K.

    >>> extend_values(np.array([1.0, 0.5]), [1, 2, 4], last=2, divided_by_cutoff=True).tolist()
    [1.0, 0.5, 0.25]
    """
    cutoffs = np.asarray(list(cutoffs), dtype=np.int64)
    computed = np.minimum(cutoffs, last)
    picked = values[..., computed - (last - values.shape[-1]) - 1]
    if divided_by_cutoff:
        picked = picked * (computed / cutoffs)
    return picked


@dataclass(frozen=True)
class UserSums:
    """Per model, the sum over its counted users of each metric at cutoffs 1..``width``
    (one value for a metric without a cutoff), and the user counts of :data:`COUNTS`.

    Attributes
    ----------
    width : int
        The sums are at cutoffs 1..width.
    sums : dict model -> metric -> float array (width,) or (1,)
    counts : dict model -> count name -> int
    declared : dict metric -> its declaration (what it is: has_cutoff, divided_by_cutoff,
        highest), for metrics not in :data:`rankmetrics.metrics.METRICS`
    valued : dict model -> metric -> int array (width,)
        For a metric some counted users have no value for at some cutoff (ARP and novelty
        leaving out the items unseen in training): the users with a value at each cutoff,
        which its sums are over and its means divided by. Other metrics: every counted user.
    """

    width: int
    sums: dict[str, dict[str, np.ndarray]]
    counts: dict[str, dict[str, int]]
    declared: dict[str, Any] = field(default_factory=dict)
    valued: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def metric(self, name: str) -> Any:
        """What metric ``name`` is (its declaration)."""
        return self.declared.get(name) or METRICS[name]

    @property
    def models(self) -> list[str]:
        return list(self.sums)

    def widened(self, width: int) -> UserSums:
        """The same sums at cutoffs 1..``width`` (at least :attr:`width`)."""
        if width < self.width:
            raise ValueError(f"width must be at least {self.width}. Got {width} instead.")
        every = range(1, width + 1)
        return UserSums(width, {
            model: {metric: self.extended(metric, values, every) for metric, values
                    in by_metric.items()}
            for model, by_metric in self.sums.items()
        }, self.counts, self.declared, {
            model: {metric: extend_values(found, every, self.width, divided_by_cutoff=False)
                    if self.metric(metric).has_cutoff else found
                    for metric, found in by_metric.items()}
            for model, by_metric in self.valued.items()
        })

    def users_with_values(self, model: str, metric: str) -> np.ndarray:
        """The users each of ``model``'s sums of ``metric`` is over, at cutoffs 1..width
        (one count for a metric without a cutoff)."""
        found = self.valued.get(model, {}).get(metric)
        if found is not None:
            return found
        return np.full(len(self.sums[model][metric]), self.counts[model]["users"],
                       dtype=np.int64)

    def extended(self, metric: str, values: np.ndarray, cutoffs: Iterable[int]) -> np.ndarray:
        """A metric's values at cutoffs 1..width at the given cutoffs (unchanged for a
        metric without a cutoff)."""
        declared = self.metric(metric)
        if not declared.has_cutoff:
            return values
        return extend_values(values, cutoffs, self.width,
                             divided_by_cutoff=declared.divided_by_cutoff)

    def means(self) -> dict[str, dict[str, np.ndarray]]:
        """Means over counted users: model -> metric -> array over cutoffs 1..width (NaN
        when a model counts no user)."""
        out: dict[str, dict[str, np.ndarray]] = {}
        for model, by_metric in self.sums.items():
            out[model] = {}
            for metric, total in by_metric.items():
                counted = self.users_with_values(model, metric)
                if not counted.any():
                    out[model][metric] = np.full(len(total), np.nan)
                    continue
                mean = np.full(len(total), np.nan)
                np.divide(total, counted, out=mean, where=counted > 0)
                highest = self.metric(metric).highest  # a sum may round a perfect value above it
                if highest is not None:
                    np.minimum(mean, highest, out=mean)
                out[model][metric] = mean
        return out

    def summary(self, cutoffs: Iterable[int]) -> pd.DataFrame:
        """Long table ``model, metric, cutoff, value, users`` at the given cutoffs, as
        :meth:`rankmetrics.Evaluation.summary` writes it."""
        chosen = sorted(set(cutoffs))
        rows: list[tuple[str, str, int | None, float, int]] = []
        for model, by_metric in self.means().items():
            for metric, values in by_metric.items():
                users = self.users_with_values(model, metric)
                if self.metric(metric).has_cutoff:
                    at = self.extended(metric, values, chosen)
                    found = extend_values(users, chosen, self.width, divided_by_cutoff=False)
                    rows.extend((model, metric, cutoff, float(value), int(count))
                                for cutoff, value, count in zip(chosen, at, found,
                                                                strict=True))
                else:
                    rows.append((model, metric, None, float(values[0]), int(users[0])))
        table = pd.DataFrame(rows, columns=["model", "metric", "cutoff", "value", "users"])
        table["cutoff"] = table["cutoff"].astype("Int64")
        return table


def add_sums(parts: Iterable[UserSums]) -> UserSums:
    """The sums and counts of several disjoint groups of users, added up (each user in one
    group only; a user the ground truth lacks counts once per group it appears in)."""
    parts = list(parts)
    if not parts:
        raise ValueError("Give at least one UserSums to add.")
    width = max(part.width for part in parts)
    first = parts[0].widened(width)
    sums = {model: {metric: values.copy() for metric, values in by_metric.items()}
            for model, by_metric in first.sums.items()}
    counts = {model: dict(by_name) for model, by_name in first.counts.items()}
    with_gaps = {(model, metric) for part in parts for model, by_metric in part.valued.items()
                 for metric in by_metric}
    valued: dict[str, dict[str, np.ndarray]] = {}
    for model, metric in with_gaps:
        valued.setdefault(model, {})[metric] = first.users_with_values(model, metric).copy()
    for part in parts[1:]:
        _check_same_shape(first, part)
        wide = part.widened(width)
        for model, by_metric in wide.sums.items():
            for metric, values in by_metric.items():
                sums[model][metric] += values
                if (model, metric) in with_gaps:
                    valued[model][metric] += wide.users_with_values(model, metric)
            for name, count in wide.counts[model].items():
                counts[model][name] += count
    return UserSums(width, sums, counts, first.declared, valued)


def _check_same_shape(first: UserSums, other: UserSums) -> None:
    shape = {model: sorted(by_metric) for model, by_metric in first.sums.items()}
    other_shape = {model: sorted(by_metric) for model, by_metric in other.sums.items()}
    if shape != other_shape:
        raise ValueError("Sums to add must have the same models and metrics; got "
                         f"{shape} and {other_shape}.")

