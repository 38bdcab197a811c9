"""What a metric declares: its words, its formula, what it needs and how it is computed.

One :class:`Metric` per module of this package, accuracy and beyond accuracy alike; the
registry (:data:`rankmetrics.metrics.ALL_METRICS`) is built from them, and the CLI, the library
and the dashboard read only the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock

#: What a metric needs besides the ranked lists: ``"ground truth"`` (the accuracy metrics),
#: ``"nothing"`` (the lists alone), ``"interactions"`` (training interactions, for
#: popularity, each user's history), ``"attributes"`` (item attributes) or
#: ``"interactions and attributes"`` (both: the categories of each user's history).
NEEDS = ("ground truth", "nothing", "interactions", "attributes", "interactions and attributes")

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
        The short name shown in narrow table columns and next to the plain name
        (``"NDCG"``, in columns as ``"NDCG@10"``).
    plain_name : str
        What the metric is, in words a reader without the notation understands
        (``"Ranking quality"``, ``"Share of long-tail items"``): shown first in pickers and
        chart titles, the label after it.
    description : str
        What the metric measures, in one or two sentences (help text).
    formula : str
        The definition in LaTeX.
    position : int
        Where the metric is listed among the others (lowest first).
    per_user : callable (UserBlock, Conventions) -> float array, or None
        The values of each user of the block at every cutoff 1..K, shape (n_users, K); shape
        (n_users, 1) for a metric without a cutoff. None for a metric an evaluation does not
        compute per user from the lists (a system metric; the long-tail accuracy, which is
        NDCG or Recall on another ground truth).
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
    needs : str, one of :data:`NEEDS`
        The input without which the metric cannot be computed.
    averaged : bool
        True: one value per user, averaged over the counted users (usable wherever per-user
        values are: the users' table, significance tests). False: one value for the system
        (from how often each item is recommended), its interval by bootstrap over users.
    higher : str or None
        What a higher value says of a model's recommendations, as a predicate ("recommends
        more popular items"), for a beyond-accuracy metric, whose higher value is not better
        in itself; None where higher is better (accuracy, on every item or on the long tail).
    decimals : int
        Decimals a value is shown with (popularity and self-information need fewer than a
        share between 0 and 1).
    whole : bool
        One user's value is a whole number (a count); a mean that is whole is shown without
        decimals.
    long_tail_of : str or None
        For the long-tail accuracy: the accuracy metric computed on the ground truth
        restricted to long-tail items.
    divided_by_cutoff : bool
        How the metric goes on beyond the ranks where the data can change it (past the
        longest list, the most relevant items and the longest ideal list): True for a count
        divided by K (Precision), which falls as 1/K there; False (every other metric) for
        one that keeps its value. Large cutoffs are extended this way, not computed.
    """

    name: str
    label: str
    plain_name: str
    description: str
    formula: str
    position: int
    per_user: PerUser | None
    summed: Summed | None = None
    at_cutoff: AtCutoff | None = None
    has_cutoff: bool = True
    main: bool = True
    highest: float | None = None
    divided_by_cutoff: bool = False
    needs: str = "ground truth"
    averaged: bool = True
    higher: str | None = None
    decimals: int = 4
    whole: bool = False
    long_tail_of: str | None = None

    @property
    def beyond_accuracy(self) -> bool:
        """Whether the metric is a beyond-accuracy one (it needs no judgment, or more)."""
        return self.needs != "ground truth"

    def help(self) -> str:
        """The label, what the metric measures and its formula, as Markdown with LaTeX.

        >>> from rankmetrics.metrics import METRICS
        >>> print(METRICS["hit_rate"].help().splitlines()[0])
        **HitRate** (`hit_rate`): 1 if at least one relevant item is in the top K, else 0 \
(trec_eval's success).
        """
        return f"**{self.label}** (`{self.name}`): {self.description}\n\n$${self.formula}$$"
