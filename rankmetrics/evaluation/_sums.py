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
    """

    width: int
    sums: dict[str, dict[str, np.ndarray]]
    counts: dict[str, dict[str, int]]
    declared: dict[str, Any] = field(default_factory=dict)

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
        }, self.counts, self.declared)

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
            counted = self.counts[model]["users"]
            out[model] = {}
            for metric, total in by_metric.items():
                if not counted:
                    out[model][metric] = np.full(len(total), np.nan)
                    continue
                mean = total / counted
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
            users = self.counts[model]["users"]
            for metric, values in by_metric.items():
                if self.metric(metric).has_cutoff:
                    at = self.extended(metric, values, chosen)
                    rows.extend((model, metric, cutoff, float(value), users)
                                for cutoff, value in zip(chosen, at, strict=True))
                else:
                    rows.append((model, metric, None, float(values[0]), users))
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
    for part in parts[1:]:
        _check_same_shape(first, part)
        wide = part.widened(width)
        for model, by_metric in wide.sums.items():
            for metric, values in by_metric.items():
                sums[model][metric] += values
            for name, count in wide.counts[model].items():
                counts[model][name] += count
    return UserSums(width, sums, counts, first.declared)


def _check_same_shape(first: UserSums, other: UserSums) -> None:
    shape = {model: sorted(by_metric) for model, by_metric in first.sums.items()}
    other_shape = {model: sorted(by_metric) for model, by_metric in other.sums.items()}
    if shape != other_shape:
        raise ValueError("Sums to add must have the same models and metrics; got "
                         f"{shape} and {other_shape}.")

