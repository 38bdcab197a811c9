"""What a metric declares: its words, its formula and how it is computed.

One :class:`Metric` per module of this package; the registry (:data:`METRICS`) is built from
them, and the CLI, the library and the dashboard read only the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock

PerUser = Callable[[UserBlock, Conventions], np.ndarray]
Summed = Callable[[JudgedItems, Conventions], "np.ndarray | None"]
AtCutoff = Callable[[JudgedItems, Conventions], "np.ndarray | None"]


@dataclass(frozen=True)
class Metric:
    """One metric: its name, its label in charts, what it means, its formula, and its
    kernels.

    Attributes
    ----------
    name : str
        The name the CLI and the library take (``"ndcg"``).
    label : str
        The name shown in charts and tables (``"NDCG"``).
    description : str
        What the metric measures, in one or two sentences (help text).
    formula : str
        The definition in LaTeX.
    position : int
        Where the metric is listed among the others (lowest first).
    per_user : callable (UserBlock, Conventions) -> float array
        The values of each user of the block at every cutoff 1..K, shape (n_users, K); shape
        (n_users, 1) for a metric without a cutoff.
    summed : callable (JudgedItems, Conventions) -> float array or None, optional
        The sum over the users of the judged items at every cutoff, shape (K,), computed
        without per-user values; None (or returning None under some conventions) when the
        sum must come from the per-user values.
    at_cutoff : callable (JudgedItems, Conventions) -> float array or None, optional
        Every user's value at the one cutoff K = ``max_cutoff`` of the judged items, shape
        (n_users,), computed from the judged items without a users x K matrix and equal to
        the last column of ``per_user`` (the same operations in the same order); None (or
        returning None under some conventions) when it must come from ``per_user``.
    has_cutoff : bool
        False for a metric with one value per user (R-Precision).
    main : bool
        Shown by default in the CLI and the dashboard.
    highest : float or None
        The metric's largest value: a mean summed over users is capped at it (a sum may
        round a perfect value just above it).
    divided_by_cutoff : bool
        How the metric goes on beyond the ranks where the data can change it (past the
        longest list, the most relevant items and the longest ideal list): True for a count
        divided by K (Precision), which falls as 1/K there; False (every other metric) for
        one that keeps its value. Large cutoffs are extended this way, not computed.
    """

    name: str
    label: str
    description: str
    formula: str
    position: int
    per_user: PerUser
    summed: Summed | None = None
    at_cutoff: AtCutoff | None = None
    has_cutoff: bool = True
    main: bool = True
    highest: float | None = None
    divided_by_cutoff: bool = False

    def help(self) -> str:
        """The label, what the metric measures and its formula, as Markdown with LaTeX.

        >>> from rankmetrics.metrics import METRICS
        >>> print(METRICS["hit_rate"].help().splitlines()[0])
        **HitRate** (`hit_rate`): 1 if at least one relevant item is in the top K, else 0 \
(trec_eval's success).
        """
        return f"**{self.label}** (`{self.name}`): {self.description}\n\n$${self.formula}$$"
