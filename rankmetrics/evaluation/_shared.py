"""What every evaluation answers from its other answers, written once for an evaluation
computed here and for one read back from a bundle (see :mod:`rankmetrics.results`)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.results import EvaluationResults


class SharedMethods:
    """Methods made from the primitives of :class:`~rankmetrics.results.EvaluationResults`
    (``means``, ``per_user_at``, ``included``, ``per_user_cutoffs``)."""

    def curve(self: EvaluationResults, model: str, metric: str) -> np.ndarray:
        """The mean over counted users at every cutoff 1..max_cutoff (length 1 for a metric
        without a cutoff)."""
        return self.means((metric,), models=[model])[model][metric]

    def paired(self: EvaluationResults, metric: str, cutoff: int | None) -> pd.DataFrame:
        """Users x models values at one cutoff, on the users every model counts (for tests
        of differences, which need the same users for every model) and has a value for (ARP
        and novelty leaving out the items unseen in training have none for a user without a
        seen item)."""
        columns = [self.per_user_at(model, metric, cutoff) for model in self.models]
        users = columns[0].index
        if all(column.index.equals(users) for column in columns[1:]):
            # Every model counts the same users (the usual case): nothing to align.
            table = pd.DataFrame({column.name: column.to_numpy() for column in columns},
                                 index=users)
        else:
            table = pd.concat(columns, axis=1, join="inner")
        valued = table.notna().all(axis=1)
        return table if valued.all() else table[valued]

    def paired_tables(self: EvaluationResults, metrics: Iterable[str],
                      cutoff: int) -> dict[str, pd.DataFrame]:
        """:meth:`paired` of several metrics at one cutoff (metric -> table)."""
        return {metric: self.paired(metric, cutoff) for metric in metrics}

    def paired_mask(self: EvaluationResults) -> np.ndarray:
        """Boolean mask over :attr:`users`: the users every model counts (the users of the
        paired tests)."""
        mask = np.ones(len(self.users), dtype=bool)
        for model in self.models:
            mask &= self.included(model)
        return mask

    def cutoffs_with_values(self: EvaluationResults, cutoffs: Iterable[int]) -> list[int]:
        """The cutoffs among ``cutoffs`` at which per-user values exist, in increasing order
        (all of them for an evaluation computed here)."""
        available = self.per_user_cutoffs
        return sorted({int(cutoff) for cutoff in cutoffs if cutoff in available})

    def check_cutoff(self: EvaluationResults, cutoff: object) -> int:
        """``cutoff``, checked: a whole number from 1 to max_cutoff."""
        return check_int("cutoff", cutoff, high=self.max_cutoff)

    def cutoff_list(self: EvaluationResults, cutoffs: Iterable[int] | None) -> list[int]:
        """``cutoffs`` checked, sorted and without repeats; every cutoff 1..max_cutoff when
        None."""
        if cutoffs is None:
            return list(range(1, self.max_cutoff + 1))
        return sorted({check_int("cutoff", cutoff, high=self.max_cutoff) for cutoff in cutoffs})
