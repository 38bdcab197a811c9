r"""ERR@K: Expected Reciprocal Rank (Chapelle, Metzler, Zhang and Grinspan, *Expected
reciprocal rank for graded relevance*, CIKM 2009).

.. math:: \mathrm{ERR@K} = \sum_{r=1}^{K} \frac{1}{r}\, R_r \prod_{i=1}^{r-1} (1 - R_i)

.. math:: R_i = \frac{2^{g_i} - 1}{2^{g_{\max}}}

A reader goes down the list and stops at rank i with probability R_i, which grows with the
item's grade g_i; ERR is the expected 1 / (the rank where the reader stops). An unjudged item
has grade 0 and never stops the reader; a grade below 0 counts as 0. g_max is the
``max_grade`` convention: by default the highest grade of the relevance mapping (gdeval,
which ir_measures runs for ``ERR@k``, uses 4).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, grades_within
from rankmetrics.metrics._metric import Metric


def stop_probabilities(grades: np.ndarray, highest: float) -> np.ndarray:
    """(2^g - 1) / 2^g_max of each grade (grades below 0 as 0).

    >>> stop_probabilities(np.array([0.0, 1.0, 2.0]), 2.0).tolist()
    [0.0, 0.25, 0.75]
    """
    grades = grades_within(grades, highest, "ERR")
    return (np.exp2(grades) - 1.0) / np.exp2(highest)


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The chance of stopping at each rank, times the chance of getting there, over the rank,
    added up rank by rank."""
    grades, highest = block.grades
    stop = block.at_ranks(stop_probabilities(grades, highest))
    reached = np.ones_like(stop)
    np.cumprod(1.0 - stop[:, :-1], axis=1, out=reached[:, 1:])
    return np.cumsum(reached * stop / block.cutoffs, axis=1)


def reached(user: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """The chance that the reader gets to each entry: the product of (1 - R) over the entries
    of its user ranked above it (entries sorted by user, then rank), multiplied in rank order
    as :func:`per_user` multiplies them, one n-th entry of every user at a time.

    >>> reached(np.array([0, 0, 0, 1]), np.array([0.5, 0.5, 0.25, 0.75])).tolist()
    [1.0, 0.5, 0.25, 1.0]
    """
    chance = np.ones(len(user))
    if len(user) < 2:
        return chance
    first = np.ones(len(user), dtype=bool)
    np.not_equal(user[1:], user[:-1], out=first[1:])
    position = np.arange(len(user))
    nth = position - np.maximum.accumulate(np.where(first, position, 0))  # 0 for the first
    order = np.argsort(nth, kind="stable")
    bounds = np.searchsorted(nth[order], np.arange(1, int(nth.max()) + 2))
    for start, stop_at in zip(bounds[:-1], bounds[1:], strict=True):
        entries = order[start:stop_at]  # every user's n-th entry: the one above is done
        chance[entries] = chance[entries - 1] * (1.0 - stop[entries - 1])
    return chance


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each item that can stop the reader, at rank r, adds R_r x the chance of getting there
    / (r + 1) at every cutoff K > r (the other items multiply that chance by 1)."""
    grades, highest = items.grades
    stop = stop_probabilities(grades, highest)
    stops = stop > 0
    user, rank, stop = items.user[stops], items.rank[stops], stop[stops]
    return items.accumulated(rank, reached(user, stop) * stop / (rank + 1.0))


METRIC = Metric(
    name="err",
    label="ERR",
    plain_name="Where a reader is expected to stop",
    description="Expected 1 / rank at which a reader stops, who stops at each item with a "
    "probability growing with its grade, (2^g - 1) / 2^g_max (g_max: the max_grade "
    "convention, by default the mapping's highest grade).",
    formula=r"\mathrm{ERR@K} = \sum_{r=1}^{K} \frac{1}{r}\, R_r \prod_{i=1}^{r-1} (1 - R_i),"
    r"\quad R_i = \frac{2^{g_i} - 1}{2^{g_{\max}}}",
    position=75,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=1.0,
)
